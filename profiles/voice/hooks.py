"""Claude Code hooks as a library: the SessionEnd payload, capture, install.

Used by ``memgraph hook`` (typer) and by the lean ``hook_fast`` path; nothing
here imports typer or pydantic-settings.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from memgraph.errors import ConfigError, InvalidId, ReaderError
from memgraph.ids import is_safe_name

if TYPE_CHECKING:  # importing the store pulls in pydantic: keep this module light
    from memgraph.store import Store
    from profiles.voice.capture_types import CaptureRequest
    from profiles.voice.leanhook import Declined, Pending

HOOK_EVENT = "SessionEnd"
HOOK_MARK = "hook session-end"
MAX_HOOK_INPUT = 1 << 20
MAX_SETTINGS_BYTES = 16 << 20


@dataclass(frozen=True)
class HookInput:
    """The fields of Claude Code's SessionEnd payload that capture uses."""

    transcript_path: Path
    session_id: str | None
    cwd: str | None

    def capture_request(self, vault: Path, redact: bool | None) -> CaptureRequest:
        """The capture of this session into ``vault`` (``redact``: None = the config's)."""
        from profiles.voice.capture_types import CaptureRequest
        from profiles.voice.privacy import PrivacyPolicy

        return CaptureRequest(
            transcript=self.transcript_path,
            vault=vault,
            session_id=self.session_id,
            cwd=self.cwd,
            privacy=PrivacyPolicy.from_config(redact),
        )


def parse_hook_input(raw: bytes | str) -> HookInput:
    """Validate the hook JSON; one-line ``MemgraphError`` when it is unusable."""
    if len(raw) > MAX_HOOK_INPUT:
        raise ReaderError(f"hook input larger than {MAX_HOOK_INPUT} bytes")
    from memgraph.inputs import check_path_text, json_object

    data = json_object(raw, "hook input")
    path = data.get("transcript_path")
    if not isinstance(path, str) or not path.strip():
        raise ReaderError("hook input has no transcript_path")
    check_path_text(path, "hook input transcript_path")
    sid = data.get("session_id")
    if sid is not None and not isinstance(sid, str):
        raise ReaderError("hook input session_id is not a string")
    if sid is not None and not is_safe_name(sid):
        raise InvalidId(f"hook input session_id {sid[:80]!r} is not a safe id")
    cwd = data.get("cwd")
    return HookInput(Path(path).expanduser(), sid, cwd if isinstance(cwd, str) else None)


def stream_sha256(fh: BinaryIO) -> str:
    """Hex sha256 of a file just opened by ``open_regular`` (nothing read from it
    yet): its raw file read into one reused buffer, past the buffered reader (a
    new 1 MB bytes object per read, or the reader's own copy, costs ~30 % more CPU
    than hashing)."""
    raw: Any = getattr(fh, "raw", None)
    if raw is None or fh.tell() != 0:
        raw = fh  # any other stream: read through it
    try:  # buffers are reused: zero-filling 1 MB per file costs as much
        buf = _BUFFERS.pop()  # list.pop/append are atomic: threads share the pool
    except IndexError:
        buf = bytearray(1 << 20)
    try:
        h = hashlib.sha256()
        with memoryview(buf) as view:
            while n := raw.readinto(buf):
                h.update(view[:n])
        return h.hexdigest()
    finally:
        if len(_BUFFERS) < 4:
            _BUFFERS.append(buf)


_BUFFERS: list[bytearray] = []


def file_digest(path: Path) -> tuple[int, int, str] | None:
    """(size, mtime_ns, sha256) of a file; None when it cannot be read (the capture
    reports the unreadable file itself)."""
    try:
        from memgraph.inputs import open_regular

        st = os.stat(path)
        with open_regular(path, "transcript") as fh:
            hexdigest = stream_sha256(fh)
        return (st.st_size, st.st_mtime_ns, hexdigest)
    except (OSError, ReaderError):
        return None


class FileDigest:
    """(size, mtime_ns, sha256) of a file, computed on a background thread.

    The hook starts it before importing the heavy modules: hashlib and file reads
    release the GIL, so the hash costs no wall time on a second core (and warms
    the page cache for the reader).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._value: tuple[int, int, str] | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        self._value = file_digest(self.path)

    def get(self) -> tuple[int, int, str] | None:
        self._thread.join()
        return self._value


class DigestWorker:
    """``FileDigest`` for a run of files (backfill): ONE helper thread hashes them in
    the order they are submitted. A thread per file pays a start each, and
    ``Thread.start`` waits until the new thread runs: well under a millisecond on an
    idle machine, 3-5 ms when the other core is busy (155 files: 0.5 s of wall)."""

    def __init__(self) -> None:
        import queue

        self._jobs: queue.SimpleQueue[PendingDigest | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def submit(self, path: Path) -> PendingDigest:
        job = PendingDigest(path)
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, daemon=True)
            self._thread.start()
        self._jobs.put(job)
        return job

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job.value = file_digest(job.path)
            except Exception:  # the caller hashes the file itself and reports it
                job.value = None
            finally:
                job.done.release()

    def close(self) -> None:
        """Stop the thread once the files submitted are hashed."""
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join()
            self._thread = None


class PendingDigest:
    """One file submitted to a ``DigestWorker``: ``get`` waits for its digest."""

    __slots__ = ("done", "path", "value")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.value: tuple[int, int, str] | None = None
        self.done = threading.Lock()
        self.done.acquire()  # released by the worker when value is set

    def get(self) -> tuple[int, int, str] | None:
        with self.done:
            return self.value


def _not_a_link_out(path: Path) -> None:
    """The harness names its transcript; a symlink there that points out of its own
    folder (at /etc/passwd, at another user's file) is not read: a path from input
    never escapes its root, and a transcript's root is the folder it sits in (as a
    backfill's is the transcript root: ``readers.links_out_of``)."""
    from profiles.voice.readers import links_out_of

    try:
        if not links_out_of(path, path.parent.resolve(strict=True)):
            return
    except (OSError, RuntimeError):
        return  # dangling or a loop: open_regular says which, in one line
    from memgraph.inputs import printable_path

    raise ReaderError(
        f"cannot read transcript {printable_path(path)}: it is a symlink out of its "
        f"folder (to {printable_path(path.resolve())}); not read"
    )


def session_end(
    raw: bytes | str, store_path: str | Path, vault: Path, *, redact: bool | None = None
) -> str:
    """Capture the session named by the hook JSON; the one-line summary.
    ``redact=False`` (``--no-redact``) keeps pasted secrets; None: the config's."""
    from memgraph.inputs import open_regular

    hook = parse_hook_input(raw)
    _not_a_link_out(hook.transcript_path)
    open_regular(hook.transcript_path, "transcript").close()  # before any store is touched
    digest = FileDigest(hook.transcript_path)
    from profiles.voice import leanhook

    # a new session on a current store: no pydantic, no store class (leanhook)
    done: str | leanhook.Declined | leanhook.Pending = leanhook.Declined(None)
    if "://" not in str(store_path):  # a store file (a URL is another backend)
        done = leanhook.capture(Path(store_path), hook, vault, digest, redact)
    if isinstance(done, str):
        return done
    from memgraph.store import open_store

    store = open_store(store_path)
    try:
        return capture_for_hook(store, hook, vault, digest, redact=redact, lean=done)
    finally:
        store.close()


def capture_for_hook(
    store: Store,
    hook: HookInput,
    vault: Path,
    digest: FileDigest | None = None,
    *,
    redact: bool | None = None,
    lean: Declined | Pending | None = None,
) -> str:
    """Capture + registry row; the one-line summary the hook prints. ``lean``: what
    the lean path left to do (``profiles.voice.leanhook``)."""
    from profiles.voice.backfill import record_capture
    from profiles.voice.capture import capture_messages, capture_transcript
    from profiles.voice.leanhook import Pending, summary
    from profiles.voice.views import write_session_page_ex

    request = hook.capture_request(vault, redact)
    if isinstance(lean, Pending):  # graph written; these pages render from the store
        result = lean.result
        for plan in result.sessions:
            if plan.session_id in lean.sessions:
                plan.page, plan.page_written = write_session_page_ex(
                    store, vault, plan.session_id, min_messages=request.min_messages
                )
    elif lean is not None and lean.read is not None:  # read and screened already
        read = lean.read
        result = capture_messages(store, read.messages, request, transcript=read.path)
        result.harness, result.stats = read.harness, read.stats
        result.session_id = result.session_id or read.session_id or request.session_id
    else:
        result = capture_transcript(store, request)
    known = digest.get() if digest is not None else None
    outcome = record_capture(store, hook.transcript_path, result, vault, digest=known)
    return summary(result, outcome)


def default_command() -> str:
    """The SessionEnd hook command of this memgraph (absolute: ``memgraph.executable``)."""
    from memgraph.executable import shell_command

    return f"{shell_command()} {HOOK_MARK}"


def install_session_end_hook(settings_path: Path, command: str) -> bool:
    """Add the SessionEnd hook to a Claude Code settings file; False if present.

    Other settings (and other hooks) are kept as they are; a file that is not
    a JSON object is refused rather than overwritten.
    """
    from memgraph.configfile import replace_config_file
    from memgraph.inputs import read_bounded_text

    data: dict[str, Any] = {}
    original: str | None = None
    if os.path.lexists(settings_path):
        try:
            # bounded, and a FIFO/device is refused before any read (it would hang)
            original = read_bounded_text(settings_path, MAX_SETTINGS_BYTES, "settings file")
            loaded = json.loads(original)
        except ReaderError as exc:
            raise ConfigError(f"{exc}; not changed") from None
        except (OSError, ValueError, RecursionError) as exc:
            raise ConfigError(
                f"{settings_path} is not readable JSON ({exc}); not changed"
            ) from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"{settings_path} is not a JSON object; not changed")
        data = loaded
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f"{settings_path}: 'hooks' is not an object; not changed")
    groups = hooks.setdefault(HOOK_EVENT, [])
    if not isinstance(groups, list):
        raise ConfigError(f"{settings_path}: 'hooks.{HOOK_EVENT}' is not a list; not changed")
    for group in groups:
        for hook in group.get("hooks", []) if isinstance(group, dict) else []:
            cmd = hook.get("command") if isinstance(hook, dict) else None
            if isinstance(cmd, str) and HOOK_MARK in cmd and "memgraph" in cmd:
                return False
    groups.append({"hooks": [{"type": "command", "command": command}]})
    # a symlinked settings file keeps its link (the target is edited), its mode,
    # and the previous version in <settings>.bak
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    replace_config_file(settings_path, text, planned_from=original)
    return True
