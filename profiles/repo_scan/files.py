"""Which files a scan reads, and reading them safely.

Files come from ``git ls-files`` (tracked plus untracked-not-ignored, so
``.gitignore`` is respected) or, outside git, from a walk that skips hidden,
vendored and virtualenv directories. Every read stays inside the repository:
a symlink is resolved and refused when it leaves the root, files are opened
with ``O_NOFOLLOW``, and size is checked before reading. Anything skipped is one
ledger line with its reason; the scan always continues.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from memgraph.errors import ReaderError
from profiles.artifact.gitrun import abandon_git, finish_git, run_git, start_git

MAX_BYTES = 1_000_000  # bigger sources are generated or vendored: ledgered, not parsed
_SKIP_DIRS = frozenset(
    {"node_modules", "__pycache__", "target", "dist", "build", "venv", "site-packages"}
)

# suffix -> language; anything else is not source and is only counted
LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".rs": "rust",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".go": "go",
    ".sql": "sql",
}
# the languages read through tree-sitter (the optional extra; other.py)
TREE_SITTER_LANGS = frozenset({"rust", "typescript", "tsx", "javascript", "go"})
# manifests and schema files read for binaries, packages and schemas
MANIFESTS = frozenset({"pyproject.toml", "Cargo.toml", "package.json", "go.mod"})


def language_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if name in MANIFESTS:
        return "manifest"
    if name.endswith(".schema.json"):
        return "json_schema"
    dot = name.rfind(".")
    return LANGUAGES.get(name[dot:].lower()) if dot > 0 else None


@dataclass(frozen=True)
class LedgerLine:
    """One skipped or degraded file and why (printed one line each)."""

    path: str
    reason: str

    def line(self) -> str:
        from memgraph.inputs import printable_path  # a repository's names, escaped

        return f"{printable_path(self.path)}: {self.reason}"


@dataclass(frozen=True)
class SourceFile:
    path: str  # posix, relative to the root
    lang: str
    data: bytes
    digest: str  # sha256 hex of the bytes


@dataclass
class Listing:
    root: Path
    git: bool
    head: str | None
    paths: list[str] = field(default_factory=list)  # source candidates, sorted
    not_source: int = 0  # files listed but of no language we read


def check_root(path: Path) -> Path:
    text = str(path)
    if "\x00" in text or not text.strip():
        raise ReaderError(f"invalid repository path {text[:80]!r}")
    try:
        root = path.expanduser().resolve()
    except (OSError, RuntimeError) as exc:
        raise ReaderError(f"cannot resolve {text[:80]!r}: {exc}") from None
    if not root.is_dir():
        raise ReaderError(f"{text[:120]!r} is not a directory: pass a repository folder")
    from memgraph.inputs import non_utf8_name

    shown = non_utf8_name(root)  # the repo node keeps its root: JSON cannot hold the bytes
    if shown is not None:
        raise ReaderError(
            f"the repository path {shown[:120]} is not UTF-8: rename the folder "
            "(or the parent whose name is not) and scan again"
        ) from None
    return root


_REV_PARSE = ("rev-parse", "--show-toplevel", "--verify", "-q", "HEAD")
_LS_FILES = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")


def git_state(root: Path) -> tuple[Path | None, str | None]:
    """The work tree's top folder (None: not in git) and HEAD's sha (None: no
    commit yet), from one git process (a rescan's start-up pays for each)."""
    return _state_of(run_git(root, *_REV_PARSE))


def _state_of(proc: subprocess.CompletedProcess[bytes]) -> tuple[Path | None, str | None]:
    out = proc.stdout.decode("utf-8", "replace").rstrip("\n")
    if proc.returncode == 0:  # the top folder, then the sha on the last line
        top, _, sha = out.rpartition("\n")
    elif proc.returncode == 1 and out:  # a repository without a commit: no HEAD
        top, sha = out, ""
    else:
        return None, None
    top = top.strip()
    return (Path(top).resolve() if top else None), (sha.strip() or None)


def _walk(root: Path) -> list[str]:
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in _SKIP_DIRS
            and not (here / d / "pyvenv.cfg").exists()
        )
        rel = here.relative_to(root)
        out += [(rel / f).as_posix() for f in filenames]
    return out


def list_files(root: Path) -> Listing:
    """Source candidates under ``root`` (a resolved directory), sorted."""
    # both git processes at once (a rescan waits for one git, not two in a row);
    # outside git the listing fails and is not used
    state = start_git(root, *_REV_PARSE)
    try:
        listed = start_git(root, *_LS_FILES)
    except BaseException:
        abandon_git(state)
        raise
    try:
        top, head = _state_of(finish_git(state, root))
    except BaseException:  # rev-parse timed out: the listing is not waited for either
        abandon_git(listed)
        raise
    proc = finish_git(listed, root)
    if top is not None:
        # paths come relative to ``root`` even when it is a sub-folder of the repo
        if proc.returncode != 0:
            raise ReaderError(f"git ls-files failed in {root}")
        names = [n.decode("utf-8", "surrogateescape") for n in proc.stdout.split(b"\0") if n]
        listing = Listing(root=root, git=True, head=head)
    else:
        # no git: walk (hidden, vendored and virtualenv dirs skipped)
        names = _walk(root)
        listing = Listing(root=root, git=False, head=None)
    for name in sorted(set(names)):
        if language_of(name) is None:
            listing.not_source += 1
        else:
            listing.paths.append(name)
    return listing


def _inside(root: Path, target: Path) -> bool:
    try:
        target.relative_to(root)
    except ValueError:
        return False
    return True


def _folder_inside(root: Path, folder: str, seen: dict[str, bool] | None) -> bool:
    """Whether ``folder`` (relative, "" = the root) resolves inside ``root`` (resolved):
    a tracked path under a folder since replaced by a symlink to elsewhere must not be
    read through it. Once per folder and scan (``seen``): a realpath per folder."""
    if not folder:
        return True
    if seen is not None and folder in seen:
        return seen[folder]
    here = os.path.join(root, folder)
    real = os.path.realpath(here)
    ok = real == here or _inside(root, Path(real))
    if seen is not None:
        seen[folder] = ok
    return ok


def read_source(
    root: Path, rel: str, max_bytes: int = MAX_BYTES, folders: dict[str, bool] | None = None
) -> SourceFile | LedgerLine | None:
    """The file's bytes, a ledger line saying why not, or None when it is gone.
    ``root`` is resolved (``check_root``); ``folders`` remembers, for one scan, which
    folders resolve inside it.

    Every scan reads every listed file, so this runs on plain strings and ``os``
    calls (no ``Path`` per file, no buffered file object): a one-file rescan of a
    ~100k-line tree spent ~7 ms of CPU on that overhead alone."""
    lang = language_of(rel)
    if lang is None:
        return LedgerLine(rel, "not a source file")
    if "\x00" in rel or rel.startswith("/") or ".." in rel.split("/"):
        return LedgerLine(rel, "path escapes the repository: not read")
    if not rel.isascii():  # an ASCII name is UTF-8 text
        from memgraph.inputs import non_utf8_name

        shown = non_utf8_name(rel)
        if shown is not None:  # no node, id or ledger line can hold its bytes
            return LedgerLine(shown, "file name is not UTF-8: not read (rename it)")
    if not _folder_inside(root, rel.rpartition("/")[0], folders):
        return LedgerLine(rel, "its folder is a symlink to outside the repository: not read")
    path: str | Path = os.path.join(root, rel)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return LedgerLine(rel, f"cannot stat: {exc.strerror or exc}")
    if stat.S_ISLNK(st.st_mode):
        try:
            target = Path(path).resolve(strict=True)
        except (OSError, RuntimeError):
            return LedgerLine(rel, "dangling or looping symlink: not read")
        if not _inside(root, target):
            return LedgerLine(rel, "symlink points outside the repository: not read")
        path = target
        st = target.stat()
    if not stat.S_ISREG(st.st_mode):
        return LedgerLine(rel, "not a regular file: not read")
    if st.st_size > max_bytes:
        return LedgerLine(rel, f"too large ({st.st_size} bytes > {max_bytes}): generated? not read")
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        return LedgerLine(rel, f"cannot open: {exc.strerror or exc}")
    try:
        data = _read_at_most(fd, max_bytes + 1, st.st_size + 1)
    except OSError as exc:
        return LedgerLine(rel, f"cannot read: {exc.strerror or exc}")
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        return LedgerLine(rel, f"too large (> {max_bytes} bytes): generated? not read")
    if b"\0" in data[:8192]:
        return LedgerLine(rel, "binary content: not read")
    return SourceFile(rel, lang, data, hashlib.sha256(data).hexdigest())


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _read_at_most(fd: int, limit: int, guess: int) -> bytes:
    """Up to ``limit`` bytes of ``fd`` (EOF first, or ``limit`` reached), asking for
    ``guess`` bytes first (the size ``stat`` gave, plus one): a buffer of the file's
    size, not of ``limit``; then small reads to EOF (a file that grew since)."""
    chunks: list[bytes] = []
    got = 0
    want = min(guess, limit)
    while got < limit:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
        want = min(limit - got, 1 << 16)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
