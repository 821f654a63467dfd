"""Lean path for ``memgraph note TEXT [options]`` (no typer, rich, pydantic).

``run(argv) -> int | None``: an exit code, or ``None`` for anything this path
does not handle (help, unknown options, a session not started yet, a
first-time store): typer then runs the same command on the full engine path.
Paths and the configured session come from the one resolver
(``memgraph.config``), the write from the store's ``NoteAppend``. Output and
exit codes match ``memgraph.cli.session``'s ``note`` command.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from memgraph.cli.lean_args import Spec, parse_strings

# Stdlib-only session modules, loaded by file so that importing them does not
# run ``profiles/__init__`` (which builds every pydantic model: ~250 ms).
_LEAN = ("records", "emit", "harness", "views", "lean")
_OPTIONS = {"--session", "--persona", "--harness", "--at", "--home", "--workspace"}


def _load(name: str) -> ModuleType:
    full = f"profiles.session.{name}"
    if full in sys.modules:
        return sys.modules[full]
    if "profiles" in sys.modules:
        return importlib.import_module(full)
    spec = importlib.util.find_spec("profiles")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(full)
    path = Path(next(iter(spec.submodule_search_locations))) / "session" / f"{name}.py"
    mspec = importlib.util.spec_from_file_location(full, path)
    if mspec is None or mspec.loader is None:
        raise ModuleNotFoundError(full)
    module = importlib.util.module_from_spec(mspec)
    sys.modules[full] = module
    try:
        mspec.loader.exec_module(module)
    except BaseException:
        del sys.modules[full]
        raise
    return module


_NOTE = Spec(
    valued={name: name for name in _OPTIONS},
    flags={"--json": "--json", "--no-redact": "--no-redact"},
)


def parse(argv: list[str]) -> tuple[str, dict[str, str], bool] | None:
    """(text, options, --json) or None when the arguments are not plainly ours
    (--help, unknown flags: typer's job)."""
    opts = parse_strings(argv, _NOTE)
    if opts is None:
        return None
    as_json = opts.pop("--json", None) is not None
    return opts.pop("text"), opts, as_json


def run(argv: list[str]) -> int | None:
    parsed = parse(argv)
    if parsed is None:
        return None
    text, opts, as_json = parsed
    from memgraph.errors import MemgraphError, error_line

    try:
        return _note(text, opts, as_json, dict(os.environ))
    except MemgraphError as exc:
        sys.stderr.write(error_line(exc) + "\n")
        return exc.exit_code


def _note(text: str, opts: dict[str, str], as_json: bool, env: dict[str, str]) -> int | None:
    from datetime import UTC, datetime

    from memgraph.errors import MemgraphError, UsageError

    for name in _LEAN:  # in dependency order, so sibling imports hit sys.modules
        _load(name)
    records: Any = _load("records")
    harness_mod: Any = _load("harness")
    from memgraph.config import paths, privacy, resolve

    # the one resolver, as the typer command's load_settings: home, and the
    # configured session when the environment names none
    db = paths(home=opts.get("--home"), env=env)[0]
    harness = opts.get("--harness") or harness_mod.detect_harness(env)
    records.check_name(harness, "harness")
    configured = resolve(None, env, ("session",)).get("session")
    if configured and "MEMGRAPH_SESSION" not in env:
        env["MEMGRAPH_SESSION"] = str(configured)
    sid, _ = harness_mod.active_session(opts.get("--session"), env, harness)
    if sid is None:
        from profiles.wakeup.active import find_active  # recorded by the SessionStart hook

        sid = find_active(db.parent, os.getcwd())
    if sid is None:
        raise UsageError(harness_mod.NO_SESSION)
    records.check_name(sid, "session id")
    persona = opts.get("--persona") or env.get("MEMGRAPH_PERSONA") or None
    if persona is not None:
        records.check_name(persona, "persona")
    records.check_text(text)
    secrets = privacy(False if "--no-redact" in opts else None, env)[0]
    text, redacted = records.redact_note(text, secrets)
    now = datetime.now(UTC)
    at = records.parse_at(opts["--at"], now) if "--at" in opts else now
    lean: Any = _load("lean")
    views: Any = _load("views")
    rec = records.NoteRecord(
        session_id=sid,
        persona=persona or "",
        text=text,
        at=at,
        harness=harness,
        writer=records.new_writer(),
        now=now,
    )
    result = lean.lean_note(db, rec, persona)
    if result is None:
        return None
    # The note is committed: from here on a failure is a warning (exit 0), never
    # an error a caller would retry into a second copy of the note.
    path: Path | str = f"{sid}.yaml"
    warning = None
    try:
        workspace = Path(result.workspace)
        if not workspace.is_dir():  # started on another machine (profiles.session.api.view_file)
            here = opts.get("--workspace") or resolve(None, env, ("workspace",)).get("workspace")
            workspace = Path(str(here)).expanduser() if here else Path.cwd()
        path = views.session_file(workspace, result.persona, sid)
        view = views.write_view(path, lambda: views.render_from_sql(db, sid), _on_edit(db, sid))
        if view.conflict is not None:
            sys.stderr.write(
                f"memgraph: {view.path} held edits memgraph cannot import; kept verbatim in "
                f"{view.conflict} (the view now shows the store)\n"
            )
    except MemgraphError as exc:
        warning = " ".join(str(exc).split())
    line = records.note_output(
        result.node_id, sid, result.persona, at, harness, path, as_json, redacted
    )
    sys.stdout.write(line + "\n")
    if warning:
        sys.stderr.write(records.view_warning(result.node_id, warning) + "\n")
    return 0


def _on_edit(db: Path, sid: str) -> Any:
    """Import notes added to the YAML by hand (rare: only then the engine is loaded)."""

    def on_edit(text: str) -> bool:
        from memgraph.store import open_store
        from profiles.session.handedit import on_edit_for

        store = open_store(db)
        try:
            return bool(on_edit_for(store, sid)(text))
        finally:
            store.close()

    return on_edit
