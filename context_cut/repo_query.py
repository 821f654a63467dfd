"""The task text as the repo cut weighs it, and what it shows when no word matches.

1. Scope prefix. Many projects start a commit subject (and a task written like
   one) with the component it is about: ``store/postgres: ...``, ``repo cut:
   ...``, ``fix(parser): ...`` (conventional commits). ``query_weights`` gives
   the words of such a prefix ``SCOPE_WEIGHT`` times the weight of the other
   words in the text match and the history match (BM25 with weighted query
   terms). A text without a prefix is weighted as before (every word 1).
2. Recency fallback. A text that matches fewer than ``FALLBACK_MODULES``
   modules (``Typo``, ``Lint``, ``checkstyle``) would give a short or empty cut;
   ``recent_modules`` lists the non-test modules in the order the newest commits
   touched them (the scanner's ``history`` node), and ``rank_modules`` fills the
   cut up to ``FALLBACK_MODULES`` with them (score 0, after every match).

Chosen on bench/bench_repo_localise.py (notes/repo.md, 2026-12-04 18:15): over
the older halves of this project, click and httpx and confirmed on the newer
halves and on requests (tuned on by nobody), the fallback changed 6 commits'
recall@5, all for the better; the scope weight 15 for the better, 7 for the worse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from memgraph.terminal import plural
from profiles.repo_scan.facts import terms

SCOPE_WEIGHT = 3.0  # the prefix's words weigh this many other words (1.5 / 2 / 3 measured)
FALLBACK_MODULES = 10  # the cut is filled up to this many modules by recency
MAX_SCOPE = 40  # characters of a scope prefix (longer: a sentence with a colon)
# "scope: rest" at the start of the text: no colon or newline inside, a blank after.
_SCOPE = re.compile(rf"[^:\n]{{1,{MAX_SCOPE}}}:\s")


def query_weights(text: str) -> dict[str, float]:
    """Term -> weight for the text match: 1 for every word of ``text``,
    ``SCOPE_WEIGHT`` for the words of a leading ``scope:`` prefix."""
    weights = dict.fromkeys(terms(text), 1.0)
    m = _SCOPE.match(text.lstrip())
    if m is not None:
        for t in terms(m.group(0)):
            weights[t] = SCOPE_WEIGHT
    return weights


def recent_modules(commits: Iterable[Any], paths: set[str], tests: set[str]) -> list[str]:
    """Non-test modules among ``paths`` in the order the commits (newest first,
    ``[sha, subject, [paths]]``) touched them; rows that do not parse are skipped."""
    seen: dict[str, None] = {}
    for row in commits:
        if not isinstance(row, list | tuple) or len(row) != 3 or not row[2]:
            continue
        for f in row[2]:
            if isinstance(f, str) and f in paths and f not in tests:
                seen.setdefault(f)
    return list(seen)


def fill_up(ranked: list[tuple[str, float]], recent: list[str]) -> list[tuple[str, float]]:
    """``ranked`` filled up to FALLBACK_MODULES with ``recent`` modules (score 0)."""
    if len(ranked) >= FALLBACK_MODULES or not recent:
        return ranked
    have = {p for p, _s in ranked}
    extra = [p for p in recent if p not in have][: FALLBACK_MODULES - len(ranked)]
    return ranked + [(p, 0.0) for p in extra]


def recent_notice(shown: list[str]) -> list[str]:
    """The packet notice for modules shown by the fallback (none: no notice)."""
    if not shown:
        return []
    return [
        f"{plural(len(shown), 'module')} shown because they changed recently (or are large), not "
        "because the task's words matched them: " + ", ".join(shown[:5])
    ]
