"""The ``memgraph`` command: a thin layer over the library.

Every ``MemgraphError`` becomes ``Error: <message>`` on stderr with exit 1
(usage errors 2); a traceback is shown only with ``--debug``. Keep heavy
imports inside command functions so ``memgraph voice`` starts fast.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterable

from memgraph.cli.output import flush_stdout

# Hot commands get a lean path that avoids importing typer/pydantic-settings.
# ``run(argv) -> int | None``: an exit code, or None for "not mine, use typer".
FAST_PATHS = {
    "voice": "memgraph.cli.voice_fast",
    "note": "memgraph.cli.session_fast",
    "hook": "memgraph.cli.hook_fast",
    "repo": "memgraph.cli.repo_fast",
    "recall": "memgraph.cli.recall_fast",
    "wake": "memgraph.cli.wake_fast",
    "context": "memgraph.cli.context_fast",
}


def _shared_store(argv: list[str]) -> bool:
    """A postgresql:// store (``--store URL``, ``MEMGRAPH_STORE`` or ``store`` in the
    config file): the lean paths read SQLite files only, so the command takes the
    full path."""
    from memgraph.config import URL_SCHEMES, store_url
    from memgraph.errors import MemgraphError

    if any(a.startswith((*URL_SCHEMES, "--store=postgres")) for a in argv):
        return True
    try:
        return store_url() is not None
    except MemgraphError:
        return False  # a bad config file: the command itself reports it


# pydantic's values of PYDANTIC_DISABLE_PLUGINS that turn every plugin off
# (pydantic/plugin/_loader.py ``get_plugins``)
_PLUGINS_OFF = ("__all__", "1", "true")
_LOADER = "pydantic.plugin._loader"


def skip_plugin_loader() -> None:
    """With every pydantic plugin disabled, stand in for pydantic's plugin loader
    (``pydantic.plugin._loader``) so that the first model build does not import it.

    Its only caller, ``pydantic.plugin._schema_validator.create_schema_validator``,
    asks ``get_plugins()`` per model and gets ``()`` when plugins are off; but the
    module imports ``importlib.metadata`` (email, zipfile, csv, socket...) at its
    top: ~16 ms CPU of every process that builds a model, a one-file repo rescan's
    included (notes/repo.md, speed37). The stand-in's ``get_plugins`` asks the same
    variable each call and, were plugins switched on later, hands over to
    pydantic's own loader. Nothing is done when the loader is already imported or
    plugins are on. tests/memgraph/cli/test_pydantic_plugins.py pins pydantic's
    side of this (the caller, its import, the values)."""
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") not in _PLUGINS_OFF or _LOADER in sys.modules:
        return
    import types

    stub = types.ModuleType(_LOADER, "memgraph's stand-in: every pydantic plugin is disabled")

    def get_plugins() -> Iterable[object]:
        if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in _PLUGINS_OFF:
            return ()
        if sys.modules.get(_LOADER) is stub:
            del sys.modules[_LOADER]
        found: Iterable[object] = importlib.import_module(_LOADER).get_plugins()
        return found

    stub.get_plugins = get_plugins  # type: ignore[attr-defined]
    sys.modules[_LOADER] = stub


def main(exit: Callable[[int], object] = os._exit) -> None:
    """The console script. ``exit`` ends the process after a fast path (tests pass
    ``sys.exit`` to inspect the process afterwards).

    Ctrl-C anywhere (a fast path, an import, a typer command: ``MemgraphGroup``
    turns it into this same exit) prints ``interrupted; rerun to resume`` and
    exits 130, never a traceback."""
    try:
        _main(exit)
    except KeyboardInterrupt:
        from memgraph.terminal import interrupted

        code = interrupted()
        sys.stdout.flush()
        exit(code)
        sys.exit(code)
    except BrokenPipeError as exc:
        # the reader of stdout left (`| head`): what it wanted was written; end quietly
        from memgraph.cli.output import reader_left

        if not reader_left(exc):
            raise
        exit(0)
        sys.exit(0)


ESCAPE = "memgraph-escape"


def _escape(err: UnicodeError) -> tuple[str, int]:
    """Characters the output cannot encode, as JSON-style ``\\uXXXX`` escapes (a
    character past U+FFFF as its surrogate pair): readable in text, and a JSON line
    stays valid JSON that decodes to the original text."""
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for ch in err.object[err.start : err.end]:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}")
        else:
            out.append(f"\\u{cp:04x}")
    return "".join(out), err.end


def printable_output() -> None:
    """stdout and stderr never fail on what they cannot encode: a person's own words
    (any script, emoji) on a terminal in a Latin-1 or ASCII locale, and a lone
    surrogate from an undecodable file name on any terminal, made `wake`, `voice`
    and every `--json` fail with "Error: ... UnicodeEncodeError" and print nothing."""
    import codecs

    codecs.register_error(ESCAPE, _escape)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors=ESCAPE)


def _main(exit: Callable[[int], object]) -> None:
    argv = sys.argv[1:]
    printable_output()
    # memgraph uses no pydantic plugins; skipping their entry-point scan keeps the
    # hook and note paths inside their start-up budgets (the user's choice wins).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    skip_plugin_loader()
    # The numpy MiniLM runs BLAS on one thread anyway (context_cut/minilm_numpy.py);
    # OpenBLAS starting its pool when numpy is imported cost 0-50 ms of a `recall`
    # process on the busy 2-core machine (the user's own setting wins).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    text = _static_output(argv)
    if text is not None:
        sys.stdout.write(text)
        flush_stdout()
        exit(0)
        return
    # (the voice lean path reads a PostgreSQL store itself; note and hook defer)
    lean = argv and argv[0] in FAST_PATHS and "--debug" not in argv
    if lean and (argv[0] == "voice" or not _shared_store(argv)):
        # A fast path is a short-lived process: cyclic-GC passes over the heap that
        # importing pydantic builds cost more than the few cycles they would free.
        gc.disable()
        try:
            module = importlib.import_module(FAST_PATHS[argv[0]])
        except ModuleNotFoundError:
            module = None
        if module is not None:
            code = _run_fast(module, argv[1:])
            if code is not None:
                # The fast path has closed its store and written its files; skip
                # interpreter teardown (tens of ms freeing what the OS frees anyway).
                flush_stdout()
                sys.stderr.flush()
                exit(code)
                return
    gc.enable()
    from memgraph.cli.app import app

    try:
        app(prog_name="memgraph")
    except SystemExit:
        flush_stdout()  # here, not in the interpreter's teardown, where it would print
        raise


def _static_output(argv: list[str]) -> str | None:
    """``--version`` and ``[COMMAND ...] --help`` without importing typer: the help
    pages are typer's own output, generated into help.json by
    scripts/cli_reference.py (a test keeps them equal). None: let typer answer."""
    if argv == ["--version"]:
        from memgraph import __version__

        return f"memgraph {__version__}\n"
    if not argv or argv[-1] != "--help" or any(a.startswith("-") for a in argv[:-1]):
        return None
    import shutil

    # click wraps help at min(columns, 80) - 2: the pages are rendered at 80 and up
    if shutil.get_terminal_size().columns < 80:
        return None
    import json

    try:
        with open(os.path.join(os.path.dirname(__file__), "help.json"), encoding="utf-8") as fh:
            pages = json.load(fh)
    except (OSError, ValueError):
        return None
    page = pages.get(" ".join(argv[:-1])) if isinstance(pages, dict) else None
    return page if isinstance(page, str) else None


def _run_fast(module: object, argv: list[str]) -> int | None:
    """A fast path's exit code; a damaged store or out-of-range value that
    escaped it is one ``Error:`` line, never a traceback."""
    from memgraph.errors import unexpected_as_error

    try:
        code: int | None = module.run(argv)  # type: ignore[attr-defined]
    except Exception as exc:
        from memgraph.cli.output import reader_left

        if reader_left(exc):
            return 0
        known = unexpected_as_error(exc)
        if known is None:
            raise
        message = " ".join(str(known).split())
        print(f"Error: {message}", file=sys.stderr)
        return known.exit_code
    return code
