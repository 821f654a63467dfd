"""Past commit BODIES as a repo-cut signal, for the learned model's bench.

    python bench/bench_repo_localise_learn.py --bodies 100 --only ...,pastbody ...

The product's history signals (``past50`` / ``past100``, ``repo_history.py``)
are BM25 of the task over each module's past commit SUBJECTS (git's ``%s``, what
the scanner stores). This module gives a dump row ``pastbody``: the same BM25
over the BODIES (the message after its subject line, first ``cap`` characters)
of the newest ``window`` non-merge commits before the row's commit, each body's
words lent to the files that commit touched. Read from the repository itself
(one ``git log`` per repository and revision), so any dump can take it without
being made again. notes/repo.md, 2026-12-07 (s37), has what it gave.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from functools import cache
from typing import Any

from context_cut.repo_index import ModuleIndex
from context_cut.repo_query import query_weights
from profiles.repo_scan.facts import terms

Commit = tuple[str, str, tuple[str, ...]]  # sha, whole message, files


@cache
def history(repo: str, rev: str) -> tuple[list[Commit], dict[str, int]]:
    """Every non-merge commit reachable from ``rev``, newest first, and sha -> position."""
    out = subprocess.run(
        [
            "git",
            "-C",
            repo,
            "log",
            "-z",
            "--no-merges",
            "--name-only",
            "--format=%x00%H%x00%B",
            rev,
        ],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "replace")
    commits: list[Commit] = []
    # each commit: "\0<sha>\0<message>\0" then its files "\n<file>\0<file>\0..."
    for chunk in out.split("\x00\x00"):
        parts = chunk.lstrip("\x00").split("\x00")
        if len(parts) < 2 or len(parts[0]) != 40:
            continue
        files = tuple(f.strip("\n") for f in parts[2:] if f.strip("\n"))
        commits.append((parts[0], parts[1], files))
    return commits, {sha: i for i, (sha, _m, _f) in enumerate(commits)}


def body_scores(row: dict[str, Any], window: int, cap: int, repo: str) -> dict[str, float]:
    """Module -> BM25 of the row's message over its modules' past bodies."""
    commits, pos = history(repo, row["rev"])
    at = pos.get(row["sha"])
    if at is None:
        return {}
    allowed = set(row["len"])
    docs: dict[str, Counter[str]] = {}
    for _sha, message, files in commits[at + 1 : at + 1 + window]:
        words = terms(message.partition("\n")[2][:cap])
        if words:
            for f in files:
                if f in allowed:
                    docs.setdefault(f, Counter()).update(words)
    if not docs:
        return {}
    return ModuleIndex(dict(docs), set(), []).bm25(query_weights(row["message"]))


def add_bodies(rows: list[dict[str, Any]], window: int, cap: int, moved: dict[str, str]) -> None:
    """Each row's ``pastbody`` (``moved``: a dump's recorded repo path -> where it is now)."""
    for r in rows:
        r["pastbody"] = body_scores(r, window, cap, moved.get(r["repo"], r["repo"]))
