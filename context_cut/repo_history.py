"""The repo cut's history signal: BM25 over each module's past commit subjects.

The scanner keeps the last commits of HEAD on one ``history`` node per repo
(``profiles/repo_scan/history.py``: ``[sha, subject, [paths]]``, newest
first). A module's history document is the terms of the subjects of the
commits in that window that touched it; ``rank_modules`` adds
``HISTORY_WEIGHT x`` its BM25 score (normalised to the best module) to the
cut score. Weights and window were chosen on this project's history with
click and httpx beside it (bench/bench_repo_localise.py, notes/repo.md).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from profiles.repo_scan.facts import terms

if TYPE_CHECKING:  # annotations only: no pydantic import on this module's account
    from memgraph.documents import MemoryNode
    from memgraph.store.protocol import Store

# Chosen on bench/bench_repo_localise.py (notes/repo.md, 2026-12-04 14:15): the newest
# 50 commits at weight 0.3 gave +13.3 / +11.7 / +14.0 points of recall@5 over BM25 on
# this project / click / httpx; with 50 commits every weight 0.2-0.7 stayed >= +10 on all
# three, while windows of 100-400 commits favour old topics (+8 to +11 on this project).
HISTORY_WEIGHT = 0.3
HISTORY_WINDOW = 50  # newest commits of the stored window that count
LONG_WINDOW = 100  # the longer window of the cut's model (repo_model.py: past100, recency)


def history_docs(
    commits: Iterable[Any], paths: set[str], window: int = HISTORY_WINDOW
) -> dict[str, Counter[str]]:
    """path -> term counts of the subjects of the commits that touched it
    (only ``paths``, the current modules; rows that do not parse are skipped)."""
    return windowed_history_docs(commits, paths, (window,))[0]


def windowed_history_docs(
    commits: Iterable[Any], paths: set[str], windows: tuple[int, ...]
) -> list[dict[str, Counter[str]]]:
    """``history_docs`` for each of ``windows`` (newest N commits), in one pass: a
    subject is split into terms once however many windows hold it."""
    docs: list[dict[str, Counter[str]]] = [defaultdict(Counter) for _ in windows]
    last = max(windows, default=0)
    for i, row in enumerate(commits):
        if i >= last:
            break
        if not isinstance(row, list | tuple) or len(row) != 3:
            continue
        _sha, subject, files = row
        touched = [f for f in files if isinstance(f, str) and f in paths] if files else []
        if touched and isinstance(subject, str):
            words = terms(subject)
            for window, doc in zip(windows, docs, strict=True):
                if i < window:
                    for f in touched:
                        doc[f].update(words)
    return [{p: tf for p, tf in doc.items() if tf} for doc in docs]


def history_node(store: Store, repo: str) -> MemoryNode | None:
    """The repo's history node, or None (not a git folder, or scanned without it)."""
    from profiles.repo_scan.history import history_node_id

    nid = history_node_id(repo)
    with store.reader() as reader:
        node = reader.get_nodes([nid]).get(nid)
    return node if node is not None and node.lifecycle != "retired" else None
