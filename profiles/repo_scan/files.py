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
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from memgraph.errors import ReaderError
from profiles.artifact.git import run_git

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


def git_state(root: Path) -> tuple[Path | None, str | None]:
    """The work tree's top folder (None: not in git) and HEAD's sha (None: no
    commit yet), from one git process (a rescan's start-up pays for each)."""
    proc = run_git(root, "rev-parse", "--show-toplevel", "--verify", "-q", "HEAD")
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
    top, head = git_state(root)
    if top is not None:
        # paths come relative to ``root`` even when it is a sub-folder of the repo
        proc = run_git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
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


def read_source(root: Path, rel: str, max_bytes: int = MAX_BYTES) -> SourceFile | LedgerLine | None:
    """The file's bytes, a ledger line saying why not, or None when it is gone."""
    lang = language_of(rel)
    if lang is None:
        return LedgerLine(rel, "not a source file")
    if "\x00" in rel or rel.startswith("/") or ".." in PurePosixPath(rel).parts:
        return LedgerLine(rel, "path escapes the repository: not read")
    from memgraph.inputs import non_utf8_name

    shown = non_utf8_name(rel)
    if shown is not None:  # no node, id or ledger line can hold its bytes
        return LedgerLine(shown, "file name is not UTF-8: not read (rename it)")
    path = root / rel
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return LedgerLine(rel, f"cannot stat: {exc.strerror or exc}")
    if stat.S_ISLNK(st.st_mode):
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return LedgerLine(rel, "dangling or looping symlink: not read")
        if not _inside(root, target):
            return LedgerLine(rel, "symlink points outside the repository: not read")
        path = target
        st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        return LedgerLine(rel, "not a regular file: not read")
    if st.st_size > max_bytes:
        return LedgerLine(rel, f"too large ({st.st_size} bytes > {max_bytes}): generated? not read")
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError as exc:
        return LedgerLine(rel, f"cannot open: {exc.strerror or exc}")
    try:
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        return LedgerLine(rel, f"cannot read: {exc.strerror or exc}")
    if len(data) > max_bytes:
        return LedgerLine(rel, f"too large (> {max_bytes} bytes): generated? not read")
    if b"\0" in data[:8192]:
        return LedgerLine(rel, "binary content: not read")
    return SourceFile(rel, lang, data, hashlib.sha256(data).hexdigest())
