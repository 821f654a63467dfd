"""Which files a scan reads, and reading them safely.

Files come from ``git ls-files`` (tracked plus untracked-not-ignored, so
``.gitignore`` is respected) or, outside git, from a walk that skips hidden,
vendored and virtualenv directories. Every read stays inside the repository:
folders and files are opened relative to the folder above them with ``O_NOFOLLOW``
(``Folders``), a symlink is resolved and refused when it leaves the root, and size
is checked before reading. Anything skipped is one ledger line with its reason; the
scan always continues.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from memgraph.beneath import READ_FLAGS, descend, open_folder
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


class Folders:
    """The folders one scan reads from, each opened once (``O_NOFOLLOW``, relative to
    the folder above it, the root's first) and the files opened relative to them: no
    path string is walked again per file, so a folder swapped for a link to outside
    after it was opened is never followed, and one swapped before is met by the open
    itself (no check-then-open gap). A folder that is a link landing inside the root
    is read through (its resolved folders are opened the same way); one leading out
    is refused.

    At most ``CAP`` folders stay open, the least recently used closed first: a
    listing is sorted, so a scan needs its current folder and those above it, and a
    tree of any size stays far below the descriptor limit. ``close`` (or the end of
    a ``with`` block) closes them all."""

    CAP = 64

    def __init__(self, root: Path) -> None:
        self.root = root  # resolved (check_root)
        self._top = os.fspath(root)
        self._prefix = self._top.rstrip("/") + "/"
        try:
            self._root_fd = open_folder(self._top, None)
        except OSError as exc:
            raise ReaderError(f"cannot open {self._top[:120]!r}: {exc.strerror or exc}") from None
        self._fds: dict[str, int] = {}  # folder -> descriptor, least recently used first
        self._outside: set[str] = set()  # folders whose link leads out of the root

    def __enter__(self) -> Folders:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        fds, self._fds = self._fds, {}
        for fd in fds.values():
            os.close(fd)
        if self._root_fd >= 0:
            os.close(self._root_fd)
            self._root_fd = -1

    def fd(self, folder: str) -> int | None:
        """The descriptor of ``folder`` (relative, "" = the root), valid until the next
        call; None when it is a link out of the root. Raises ``OSError`` (absent, not
        a folder, a link loop)."""
        if not folder:
            return self._root_fd
        fds = self._fds
        fd = fds.pop(folder, None)
        if fd is None:
            if folder in self._outside:
                return None
            fd = self._open(folder)
            if fd is None:
                self._outside.add(folder)
                return None
        fds[folder] = fd  # the most recently used last
        if len(fds) > self.CAP:
            os.close(fds.pop(next(iter(fds))))
        return fd

    def _open(self, folder: str) -> int | None:
        above, _, name = folder.rpartition("/")
        above_fd = self.fd(above)
        if above_fd is None:
            return None
        try:
            return open_folder(name, above_fd)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
        # a link: read through it when it lands inside the root, as a resolve would;
        # its resolved folders are opened without following links (one swapped in
        # since the resolve raises ELOOP: refused)
        real = self.relative(os.path.realpath(self._prefix + folder))
        if real is None:
            return None
        return descend(os.dup(self._root_fd), real.split("/") if real else ())

    def relative(self, real: str) -> str | None:
        """``real`` (absolute, resolved) relative to the root; None when outside it."""
        if real == self._top:
            return ""
        return real[len(self._prefix) :] if real.startswith(self._prefix) else None


def read_source(
    folders: Folders, rel: str, max_bytes: int = MAX_BYTES
) -> SourceFile | LedgerLine | None:
    """The file's bytes, a ledger line saying why not, or None when it is gone.
    ``folders`` is the scan's open folders of its (resolved) root.

    Every scan reads every listed file, so this runs on plain strings and ``os``
    calls (no ``Path`` per file, no buffered file object): a one-file rescan of a
    ~100k-line tree spent ~7 ms of CPU on that overhead alone. Each file is opened
    relative to its folder's descriptor (``Folders``): no realpath per folder, and
    nothing between a check and the open to race with."""
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
    folder, _, name = rel.rpartition("/")
    try:
        dir_fd = folders.fd(folder)
        if dir_fd is None:
            return LedgerLine(rel, "its folder is a symlink to outside the repository: not read")
        st = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return LedgerLine(rel, f"cannot stat: {exc.strerror or exc}")
    if stat.S_ISLNK(st.st_mode):
        try:
            real = os.path.realpath(os.path.join(folders.root, rel), strict=True)
        except OSError:
            return LedgerLine(rel, "dangling or looping symlink: not read")
        target = folders.relative(real)
        if target is None:
            return LedgerLine(rel, "symlink points outside the repository: not read")
        folder, _, name = target.rpartition("/")  # read the target through its folder
        try:
            dir_fd = folders.fd(folder)
            if dir_fd is None:  # a folder on the way became a link since the resolve
                return LedgerLine(rel, "symlink points outside the repository: not read")
            st = os.lstat(name or ".", dir_fd=dir_fd)
        except OSError as exc:
            return LedgerLine(rel, f"cannot stat: {exc.strerror or exc}")
    if not stat.S_ISREG(st.st_mode):
        return LedgerLine(rel, "not a regular file: not read")
    if st.st_size > max_bytes:
        return LedgerLine(rel, f"too large ({st.st_size} bytes > {max_bytes}): generated? not read")
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
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
