"""Commit history per file: the subjects of the last commits that touched it.

A commit message says what a change was about in words a later task uses
("fix the wake lean path", "voice search: bare-command filter"), so the repo
cut scores each module by BM25 over the subjects of its past commits beside
its own text (``context_cut/repo_history.py``; notes/repo.md, 2026-12-04).

One node per repo (kind ``history``, repo_architecture) holds the window: the
last ``limit`` non-merge commits of HEAD under the scanned folder, newest
first, as ``[sha, subject, [paths]]``. It is covered by no summary (a commit
changes no code a summary describes) and is written only when HEAD moves:
- same HEAD (and limit) as stored: nothing is read or written;
- the stored HEAD is an ancestor of HEAD: ``git log OLD..HEAD`` (the new
  commits only) is put in front of the stored window, which is cut to ``limit``
  (on a linear history this equals a fresh read, tested; after a merge the new
  commits sit in front, not in ``git log``'s date order among the old ones);
- otherwise (rebase, reset, another branch, first scan): one bounded
  ``git log -n limit``.
A folder that is not a git repository (or has no commit) has no history node.

Hostile input: subjects are decoded leniently (not UTF-8 -> U+FFFD), control
characters become spaces, and a subject is cut to ``MAX_SUBJECT`` characters;
a commit touching more than ``MAX_FILES`` files (a formatting sweep, a vendored
tree) is kept without its files; a record that does not parse is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgraph.errors import ReaderError
from memgraph.ids import anchor_id, node_id
from profiles.artifact.gitrun import run_git
from profiles.repo_scan.keys import ARCH, EPOCH

if TYPE_CHECKING:  # the documents load only when the node is written (HEAD moved)
    from memgraph.documents import GraphOp
    from memgraph.documents.views import NodeView
    from memgraph.store.protocol import Store

HISTORY_COMMITS = 100  # commits kept per repo, newest first (the cut reads 50 and 100)
MAX_SUBJECT = 300  # characters of one subject
MAX_FILES = 100  # a commit touching more files is a sweep: its files are not listed
_SHA = re.compile(rb"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
_FORMAT = "--format=%x00%H%x00%s"


@dataclass(frozen=True)
class HistoryCommit:
    sha: str
    subject: str
    files: tuple[str, ...]

    def as_json(self) -> list[Any]:
        return [self.sha, self.subject, list(self.files)]


def history_node_id(repo: str) -> str:
    return node_id(ARCH.value, "history", repo)


def clean_subject(raw: bytes) -> str:
    text = raw[: MAX_SUBJECT * 4].decode("utf-8", "replace")
    return _CONTROL.sub(" ", text).strip()[:MAX_SUBJECT]


def parse_log(data: bytes) -> list[HistoryCommit]:
    """``git log -z --name-only --format=%x00%H%x00%s`` output -> commits.

    Records start at an empty token: sha, subject, then file names until the
    next empty token (the first name follows a newline). A record whose sha
    does not parse is skipped up to the next record start.
    """
    out: list[HistoryCommit] = []
    tokens = data.split(b"\0")
    i, n = 0, len(tokens)
    while i < n:
        if tokens[i] != b"" or i + 2 >= n or not _SHA.match(tokens[i + 1]):
            i += 1
            continue
        sha, subject = tokens[i + 1].decode("ascii"), clean_subject(tokens[i + 2])
        i += 3
        files: list[str] = []
        while i < n and tokens[i] != b"":
            name = tokens[i][1:] if not files and tokens[i][:1] == b"\n" else tokens[i]
            if name and len(files) <= MAX_FILES:
                files.append(name.decode("utf-8", "replace"))
            i += 1
        kept = tuple(sorted(set(files))) if len(files) <= MAX_FILES else ()
        out.append(HistoryCommit(sha, subject, kept))
    return out


def read_history(
    root: Path, limit: int, since: str | None = None, head: str = "HEAD"
) -> list[HistoryCommit] | None:
    """The newest ``limit`` non-merge commits of ``head`` touching ``root`` (paths
    relative to it), or only those after ``since``; None when git fails."""
    rev = f"{since}..{head}" if since else head
    args = ["log", "-z", "--no-merges", "--relative", "--name-only", "-n", str(limit), _FORMAT]
    proc = run_git(root, *args, rev, "--", ".")
    if proc.returncode != 0:
        return None
    return parse_log(proc.stdout)


def _is_ancestor(root: Path, old: str, new: str) -> bool:
    return run_git(root, "merge-base", "--is-ancestor", old, new).returncode == 0


def window(root: Path, head: str, limit: int, stored: NodeView | None) -> list[Any] | None:
    """The window for ``head`` as JSON rows, reading only what the stored node lacks."""
    attrs = stored.attributes if stored is not None and stored.lifecycle != "retired" else {}
    old_head, old_rows = attrs.get("head"), list(attrs.get("commits") or [])
    if (
        isinstance(old_head, str)
        and _SHA.match(old_head.encode())
        and attrs.get("limit") == limit
        and _is_ancestor(root, old_head, head)
    ):
        new = read_history(root, limit, since=old_head, head=head)
        if new is not None:
            return ([c.as_json() for c in new] + old_rows)[:limit]
    full = read_history(root, limit, head=head)
    return None if full is None else [c.as_json() for c in full]


def history_ops(
    store: Store, repo: str, root: Path, head: str | None, limit: int = HISTORY_COMMITS
) -> list[GraphOp]:
    """Upsert of the history node when HEAD moved (or retire it outside git)."""
    nid = history_node_id(repo)
    with store.reader() as reader:
        stored = reader.get_nodes([nid]).get(nid)
    if head is None or limit <= 0 or not _SHA.match(head.encode()):
        if stored is not None and stored.lifecycle != "retired":
            from memgraph.documents import RetireNode

            return [RetireNode(node_id=nid, reason="no git history for this folder")]
        return []
    if (
        stored is not None
        and stored.lifecycle != "retired"
        and stored.attributes.get("head") == head
        and stored.attributes.get("limit") == limit
    ):
        return []  # keyed on HEAD: nothing moved
    try:
        rows = window(root, head, limit, stored)
    except ReaderError:  # git missing or timed out: the scan goes on without history
        return []
    if rows is None:
        return []
    from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, UpsertNode

    attributes = {"commits": rows, "head": head, "limit": limit, "repo": repo}
    # the stored lifecycle (write.kept_lifecycle): accepted -> observed is no transition
    live = stored is not None and stored.lifecycle != "retired"
    kept = stored.lifecycle if stored is not None and live else "observed"
    node = MemoryNode(
        id=nid,
        domain_id=f"repo:{repo}",
        profile=ARCH,
        kind="history",
        title=f"history {repo}",
        claim=f"last {len(rows)} commits of {repo} up to {head[:12]}",
        lifecycle=kept,
        created_at=EPOCH if stored is None else stored.created_at,
        updated_at=EPOCH,
        anchors=[
            MemoryAnchor(
                id=anchor_id("commit", str(root), head),
                kind=AnchorKind.commit,
                ref=str(root),
                sha=head,
                label=f"HEAD {head[:12]}",
            )
        ],
        attributes=attributes,
    )
    return [UpsertNode(node=node)]
