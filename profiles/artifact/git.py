"""Commits read from real git repositories via ``git log`` (subprocess).

One ``git log --all --source`` call per repo, with first-parent file lists for
merges, fields split by ASCII unit/record separators. A record that does not
parse (a commit message holding a separator byte, a truncated stream) is
counted and skipped, never fatal. Non-repos and empty repos read as "no
commits"; a path that is not a directory, or is hostile (NUL, option-like), is
a one-line ``ReaderError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from memgraph.errors import ReaderError
from profiles.artifact.gitrun import run_git

MAX_FILES_PER_COMMIT = 500  # a vendored-tree commit lists thousands; keep the first ones

_FIELDS = ("sha", "parents", "an", "ae", "at", "cn", "ce", "ct", "source", "subject", "body")
_PLACEHOLDERS = ("%H", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%S", "%s", "%b")
_FORMAT = "%x1e" + "%x1f".join(_PLACEHOLDERS) + "%x1f"
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")

# Commits made by automation: they never answer an operator message.
_BOT = re.compile(
    r"\[bot\]|dependabot|renovate|github-actions|greenkeeper|snyk-bot|pre-commit-ci|mergify"
    r"|semantic-release-bot|allcontributors|imgbot|weblate|\bbot@|-bot\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Commit:
    repo: str  # repo name (top-level directory name)
    repo_path: str  # absolute top-level path
    sha: str
    parents: tuple[str, ...]
    author: str
    author_email: str
    authored_at: datetime
    committer: str
    committer_email: str
    committed_at: datetime
    branch: str | None
    subject: str
    body: str
    files: tuple[str, ...]
    files_total: int

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    @property
    def is_bot(self) -> bool:
        who = " ".join((self.author, self.author_email, self.committer, self.committer_email))
        return bool(_BOT.search(who))


@dataclass
class GitRead:
    repo: str
    repo_path: str
    commits: list[Commit] = field(default_factory=list)
    bad_records: int = 0
    warnings: list[str] = field(default_factory=list)
    in_repo: bool = True  # False: the path is inside no git repository (nothing was read)


def _check_path(path: Path) -> Path:
    text = str(path)
    if "\x00" in text or not text.strip():
        raise ReaderError(f"invalid repository path {text[:80]!r}")
    try:
        resolved = path.expanduser().resolve()
    except (OSError, RuntimeError) as exc:
        raise ReaderError(f"cannot resolve repository path {text[:80]!r}: {exc}") from None
    if not resolved.is_dir():
        raise ReaderError(f"repository path {text[:120]!r} is not a directory")
    return resolved


def find_toplevel(path: str | Path) -> Path | None:
    """The git top-level containing ``path`` (a file or dir), or None.

    Missing paths, non-repos and unreadable dirs are all "no repo": session cwds
    come from transcripts written on other machines.
    """
    text = str(path)
    if not text or "\x00" in text:
        return None
    p = Path(text).expanduser()
    try:
        # Only an existing path: a cwd from another machine must not resolve to
        # whatever repo happens to contain its nearest existing ancestor here.
        if p.is_file():
            p = p.parent
        if not p.is_dir():
            return None
        p = p.resolve()
    except OSError:
        return None
    try:
        proc = run_git(p, "rev-parse", "--show-toplevel")
    except ReaderError:
        return None
    if proc.returncode != 0:
        return None
    top = proc.stdout.decode("utf-8", "replace").strip()
    return Path(top) if top else None


def _time(value: str) -> datetime:
    dt = datetime.fromisoformat(value.strip())
    if dt.tzinfo is None:
        raise ValueError("naive time")
    return dt.astimezone(UTC)


def _parse_record(record: bytes, repo: str, repo_path: str) -> Commit:
    head, sep, tail = record.rpartition(b"\x1f")
    if not sep:
        raise ValueError("no field separator")
    fields = [f.decode("utf-8", "replace") for f in head.split(b"\x1f")]
    if len(fields) != len(_FIELDS):
        raise ValueError(f"{len(fields)} fields")
    v = dict(zip(_FIELDS, fields, strict=True))
    sha = v["sha"].strip()
    if not _SHA.match(sha):
        raise ValueError("bad sha")
    files = [
        f.decode("utf-8", "replace") for f in tail.replace(b"\n", b"\x00", 1).split(b"\x00") if f
    ]
    source = v["source"].strip()
    branch = source.removeprefix("refs/heads/").removeprefix("refs/remotes/") or None
    return Commit(
        repo=repo,
        repo_path=repo_path,
        sha=sha,
        parents=tuple(v["parents"].split()),
        author=v["an"],
        author_email=v["ae"],
        authored_at=_time(v["at"]),
        committer=v["cn"],
        committer_email=v["ce"],
        committed_at=_time(v["ct"]),
        branch=branch,
        subject=v["subject"],
        body=v["body"].strip("\n"),
        files=tuple(files[:MAX_FILES_PER_COMMIT]),
        files_total=len(files),
    )


def read_commits(
    path: str | Path, since: datetime | None = None, until: datetime | None = None
) -> GitRead:
    """Every commit reachable from any ref of the repo containing ``path``.

    ``since``/``until`` bound the committer time. A directory outside any repo,
    or a repo without commits, gives an empty read with a warning.
    """
    start = _check_path(Path(path))
    top = find_toplevel(start)
    if top is None:
        read = GitRead(repo=start.name, repo_path=str(start), in_repo=False)
        read.warnings.append(f"{start}: not inside a git repository")
        return read
    read = GitRead(repo=top.name, repo_path=str(top))
    args = [
        "log",
        "--all",
        "--source",
        "-z",
        "--diff-merges=first-parent",
        "--name-only",
        "--no-renames",
        f"--format={_FORMAT}",
    ]
    # A day of slack: git stops walking at the first old commit it meets, and
    # clock-skewed history should not cut the wanted range; exact bounds below.
    if since is not None:
        args.append(f"--since=@{since.timestamp() - 86400:.0f}")
    if until is not None:
        args.append(f"--until=@{until.timestamp() + 86400:.0f}")
    proc = run_git(top, *args)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        message = err[-1] if err else f"exit {proc.returncode}"
        if "does not have any commits" in message or "bad default revision" in message:
            read.warnings.append(f"{top}: no commits yet")
            return read
        raise ReaderError(f"git log failed in {top}: {message[:200]}")
    seen: set[str] = set()
    for record in proc.stdout.split(b"\x1e"):
        if not record.strip(b"\x00\n"):
            continue
        try:
            commit = _parse_record(record, read.repo, read.repo_path)
        except (ValueError, UnicodeError):
            read.bad_records += 1
            continue
        if commit.sha in seen:
            continue
        if since is not None and commit.committed_at < since:
            continue
        if until is not None and commit.committed_at > until:
            continue
        seen.add(commit.sha)
        read.commits.append(commit)
    read.commits.sort(key=lambda c: (c.committed_at, c.sha))
    return read
