"""The repo cut's semantic history signal: files of the past commits worded like the task.

With the optional MiniLM embedder configured, the task text's vector is compared
with the subjects of the newest ``HISTORY_WINDOW`` commits on the repo's history
node (``[sha, subject, [paths]]``, newest first); the ``NEAREST_K`` nearest at
cosine >= ``NEAREST_MIN`` give each module they touched (commits of more than
``NEAREST_MAX_FILES`` files are skipped) its best cosine, divided by the best
module's; ``rank_modules`` adds ``NEAREST_WEIGHT x`` that. k, floor and window
were chosen on the fixed choose/confirm split of
bench/bench_repo_localise_semantic.py ``--nearest`` (notes/repo.md, 2026-12-05
(m17)): recall@5 pooled choose +0.58 (3 commits won / 2 lost), confirm +1.00 (9 / 0),
at weight 0.2 on the hand-set score (max ~2.5). The weight is now fitted with the
model's (``repo_model.py``, whose scores reach ~7): 0.516 by the pairwise ranker on
the 12 training repositories (leave-one-repo-out +0.09 points over the model
without it), which is also m17's 0.2 carried to the new scale (notes/repo.md, s36).
The floor is MiniLM's scale: any other model (or
none) leaves the signal out, and the cut ranks as without it.

Subject vectors come from the file ``memgraph repo scan`` writes with MiniLM
configured (``context_cut/repo_vectors.py``; ``prime`` puts them in the process
memo), so a cut in a new process embeds its task text and only the subjects the
file lacks. ``configured_embedder`` is the one place the CLI and the MCP server
turn the embedder setting into the embedder this signal takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from context_cut.repo_history import HISTORY_WINDOW

if TYPE_CHECKING:
    from context_cut.embedders import Embedder

NEAREST_WEIGHT = 0.5  # fitted with repo_model's weights (see the docstring)
NEAREST_MIN = 0.6  # cosine a past subject needs to the task text
NEAREST_K = 3  # nearest past commits looked at
NEAREST_MAX_FILES = 20  # a commit touching more says little about any one file
MINILM = "minilm:all-MiniLM-L6-v2"
SETTINGS = {"minilm": MINILM, "minilm-torch": MINILM}  # embedder setting -> its model's name
MODELS = frozenset(SETTINGS.values())  # the floor was chosen for this model
_MEMO_LIMIT = 4096  # subject vectors remembered per process
_MEMO: dict[tuple[str, str], list[float]] = {}


def _rows(commits: Sequence[Any], window: int) -> list[tuple[str, list[str]]]:
    """(subject, files) of the newest ``window`` well-formed history rows."""
    out: list[tuple[str, list[str]]] = []
    for row in list(commits)[:window]:
        if not isinstance(row, list | tuple) or len(row) != 3:
            continue
        _sha, subject, files = row
        if isinstance(subject, str) and subject.strip() and isinstance(files, list | tuple):
            out.append((subject, [f for f in files if isinstance(f, str)]))
    return out


def window_subjects(commits: Sequence[Any], window: int = HISTORY_WINDOW) -> list[str]:
    """The subjects the signal compares, newest first (what the scan stores)."""
    return [subject for subject, _files in _rows(commits, window)]


def configured_embedder(
    setting: str | None,
    *,
    model: str = "all-minilm",
    host: str | None = None,
    timeout: float = 30.0,
) -> tuple[Embedder | None, str | None]:
    """The embedder the setting names when its model is one of ``MODELS`` (else
    None: nothing else is built or imported), or (None, a one-line notice) when
    its extra is missing or it does not load."""
    if setting not in SETTINGS:
        return None, None
    from context_cut.embedders import make_embedder
    from memgraph.errors import BackendUnavailable, MissingExtra

    try:
        embedder = make_embedder(setting, model=model, host=host, timeout=timeout)
    except (MissingExtra, BackendUnavailable) as exc:
        notice = f"vectors unavailable, the repo cut ranks without past-commit vectors: {exc}"
        return None, " ".join(notice.split())
    return embedder, None


def prime(
    embedder: Embedder | None,
    commits: Sequence[Any],
    directory: Path,
    repo: str,
    window: int = HISTORY_WINDOW,
) -> str | None:
    """Put the scan's stored vectors of the window's subjects the process memo
    lacks into it (read only: a missing one is embedded by the cut and kept in
    process); the one-line reason the file was ignored, if it was."""
    if embedder is None or embedder.name not in MODELS:
        return None
    model = embedder.name
    todo = [s for s in dict.fromkeys(window_subjects(commits, window)) if (model, s) not in _MEMO]
    if not todo:
        return None
    from context_cut.repo_vectors import stored_subjects

    found, why = stored_subjects(directory, repo, model, embedder.dimension, todo)
    _remember(model, found)
    return why


def _remember(model: str, vectors: dict[str, list[float]]) -> None:
    """Keep subject vectors for the process, at most ``_MEMO_LIMIT`` (then start over)."""
    if len(_MEMO) + len(vectors) > _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO.update(((model, s), v) for s, v in vectors.items())


def _vectors(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Vectors of ``texts``; subjects are remembered per model across cuts."""
    model = embedder.name
    todo = list(dict.fromkeys(t for t in texts if (model, t) not in _MEMO))
    if todo:
        _remember(model, dict(zip(todo, embedder.embed(todo), strict=True)))
    return [_MEMO[(model, t)] for t in texts]


def nearest_files(
    embedder: Embedder | None,
    text: str,
    commits: Sequence[Any],
    paths: set[str],
    window: int = HISTORY_WINDOW,
) -> dict[str, float]:
    """path -> best cosine of the ``NEAREST_K`` nearest past subjects touching it
    (>= ``NEAREST_MIN``), divided by the best path's; {} without a MiniLM
    embedder, history or a near subject. An embedder that fails says nothing."""
    from memgraph.errors import BackendUnavailable, MissingExtra

    if embedder is None or embedder.name not in MODELS or not text.strip():
        return {}
    rows = _rows(commits, window)
    if not rows:
        return {}
    try:
        (query,) = embedder.embed([text])
        subjects = _vectors(embedder, [subject for subject, _files in rows])
    except (BackendUnavailable, MissingExtra):
        return {}
    sims = [sum(a * b for a, b in zip(query, v, strict=False)) for v in subjects]
    nearest = sorted(range(len(rows)), key=lambda i: -sims[i])[:NEAREST_K]  # stable: newest first
    out: dict[str, float] = {}
    for i in nearest:
        files = rows[i][1]
        if sims[i] < NEAREST_MIN or len(files) > NEAREST_MAX_FILES:
            continue
        for f in files:
            if f in paths:
                out[f] = max(out.get(f, 0.0), sims[i])
    best = max(out.values(), default=0.0) or 1.0
    return {p: s / best for p, s in out.items()}
