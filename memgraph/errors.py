"""One exception root for everything memgraph raises on purpose.

The CLI maps ``MemgraphError`` to ``Error: <message>`` on stderr and exit 1
(``UsageError`` to exit 2). Anything else is a bug and shows a traceback only
with ``--debug``.
"""

from __future__ import annotations


class MemgraphError(Exception):
    """Root of every error memgraph raises deliberately."""

    exit_code = 1


class UsageError(MemgraphError):
    """The caller asked for something malformed (bad flag value, bad id)."""

    exit_code = 2


class ConfigError(MemgraphError):
    """Configuration is missing or invalid."""


class InvalidId(UsageError):
    """A session id, persona or project name is unsafe or malformed."""


class ValidationFailed(MemgraphError):
    """A document or patch broke a generic invariant or a profile law.

    ``problems`` holds one line per violation, ``path: message``.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        first = problems[0] if problems else "invalid"
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(f"{first}{more}")


class IllegalTransition(ValidationFailed):
    """A lifecycle transition the profile's table does not allow."""

    def __init__(self, profile: str, current: str | None, target: str) -> None:
        self.profile = profile
        self.current = current
        self.target = target
        super().__init__(
            [f"profile {profile}: illegal lifecycle transition {current or '(new)'} -> {target}"]
        )


class PatchRejected(ValidationFailed):
    """A MemoryPatchCandidate failed validation; nothing was applied."""


class PatchAlreadyDecided(PatchRejected):
    """The patch id was already applied or rejected; a patch is decided once."""


class NotFound(MemgraphError):
    """A referenced node, edge, summary, session or file does not exist."""


class StoreError(MemgraphError):
    """The canonical store cannot be opened, read or written."""


class StoreBusy(StoreError):
    """The store stayed locked by other writers past the retry deadline."""


class StoreMissing(StoreError):
    """Opened read-only where no store is yet (a read-only open never creates one)."""


class SnapshotError(MemgraphError):
    """A snapshot file is unreadable, malformed or inconsistent."""


class ReaderError(MemgraphError):
    """An input file (transcript, page, YAML) cannot be read at all."""


class MissingExtra(MemgraphError):
    """An optional dependency is not installed; the message has the install line."""

    def __init__(self, extra: str, package: str) -> None:
        super().__init__(
            f"the optional extra '{extra}' is not installed ({package} missing); "
            f"install it with: pip install 'memgraph[{extra}]'"
        )


class BackendUnavailable(MemgraphError):
    """An optional helper (Qdrant, Ollama) cannot be reached."""


def error_line(exc: BaseException) -> str:
    """``Error: <message>`` on one line, whatever the message holds: what every CLI
    path (typer and the fast paths) prints for a ``MemgraphError``."""
    return f"Error: {' '.join(str(exc).split()) or type(exc).__name__}"


def unexpected_as_error(exc: BaseException) -> MemgraphError | None:
    """The one-line ``MemgraphError`` for an exception that reached the CLI from
    a damaged store (``sqlite3.DatabaseError``, a stored document that no longer
    parses), a file too odd to read, or the filesystem (any ``OSError``: a folder or
    a symlink loop where a file goes); None for anything else (a bug).

    Used by the CLI's last line of defence so a damaged store never shows a
    traceback; library code raises ``StoreError`` itself where it can.
    """
    import sys

    sqlite3 = sys.modules.get("sqlite3")  # loaded whenever a store was opened
    if sqlite3 is not None and isinstance(exc, sqlite3.DatabaseError):
        return StoreError(
            f"the store cannot be read: {exc} (a damaged store? run `memgraph validate`; "
            "recovery: `sqlite3 STORE .recover`, or the last good snapshot or backup)"
        )
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and isinstance(exc, pydantic.ValidationError):
        err = exc.errors()[0] if exc.error_count() else {}
        where = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        return StoreError(
            f"a {exc.title} document is malformed at {where}: {err.get('msg')} "
            "(if it came from the store, the store is damaged: run `memgraph validate`)"
        )
    if isinstance(exc, UnicodeEncodeError) and exc.reason == "surrogates not allowed":
        # an argument or file in another encoding, its bytes kept as lone surrogates
        return UsageError(
            "the input holds bytes that are not valid UTF-8 (text in another encoding?); "
            "give it as UTF-8"
        )
    if isinstance(exc, (OverflowError, UnicodeEncodeError, RecursionError)):
        return UsageError(f"input out of range or not encodable: {type(exc).__name__}: {exc}")
    return _bad_path(exc)


def _bad_path(exc: BaseException) -> MemgraphError | None:
    """A path the OS cannot take, from a flag, the environment or the config file
    (``MEMGRAPH_HOME`` longer than a file name may be, ``home = "a\\u0000b"``):
    it fails in whichever ``stat`` meets it first, so it is named here."""
    import errno

    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
        shown = str(exc.filename)[:60] + "..." if exc.filename is not None else "a path"
        return UsageError(
            f"file name too long: {shown}: use a shorter path (an argument, a flag, "
            "a MEMGRAPH_* variable or the config file)"
        )
    loop = isinstance(exc, OSError) and exc.errno == errno.ELOOP
    if loop or (isinstance(exc, RuntimeError) and str(exc).startswith("Symlink loop from ")):
        # Python < 3.13's Path.resolve() says RuntimeError("Symlink loop from '...'")
        where = exc.filename if isinstance(exc, OSError) else str(exc)[18:].strip("'")
        return UsageError(
            f"{where} is a symlink loop (a link that leads back to itself): "
            "remove or fix the link, or give another path"
        )
    if isinstance(exc, ValueError) and str(exc) == "embedded null byte":
        return UsageError(
            "a path contains a NUL byte: check the paths given as arguments, flags, "
            "MEMGRAPH_* variables and in the config file"
        )
    if isinstance(exc, OSError) and exc.errno is not None and exc.strerror:
        # the filesystem refused a file memgraph keeps (a folder where its state file
        # goes, a lock file made a folder): name it; the rename's target is the file
        where = exc.filename2 if exc.filename2 is not None else exc.filename
        shown = f"{where}: " if where is not None else ""
        return StoreError(
            f"{shown}{exc.strerror}: memgraph cannot use it as it is; fix or move it and rerun"
        )
    return None
