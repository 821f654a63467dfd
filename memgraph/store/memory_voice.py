"""Voice search on the in-memory backend: scans of the node map, ranked like FTS5.

Text matching follows the SQLite store's FTS5 setup (``unicode61 remove_diacritics 2``
tokens, phrases, prefix*, BM25 with k1 = 1.2 and b = 0.75 over title and body, the
body column only for voice search), so both backends find the same messages in the
same order on the contract suite's data. Split from ``memory_ext`` (size).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from memgraph.documents import (
    MemoryNode,
)
from memgraph.fts import plan_words, query_terms, to_fts5_query
from memgraph.store.sqlite_txn import iso
from memgraph.store.voice_rows import (
    BARE_COMMAND,
    VoiceIndexStats,
    VoiceRow,
    VoiceSearch,
    common_plan,
)

if TYPE_CHECKING:
    from memgraph.store.memory import MemoryStore

_TOKEN = re.compile(r"[^\W_]+")
_PHRASE = re.compile(r'"((?:[^"]|"")*)"(\*?)')
K1, B = 1.2, 0.75


def tokens(text: str) -> list[str]:
    """FTS5 ``unicode61 remove_diacritics 2``: alphanumeric runs, folded, unaccented."""
    folded = unicodedata.normalize("NFD", text.lower())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return _TOKEN.findall(plain)


_BARE = re.compile(BARE_COMMAND)


def body_text(n: MemoryNode) -> str:
    return "\n".join(t for t in (n.claim, n.question, n.tension, n.action_implication) if t)


def _phrases(match: str) -> list[tuple[list[str], bool]]:
    found = []
    for text, star in _PHRASE.findall(match):
        words = tokens(text.replace('""', '"'))
        if words:
            found.append((words, bool(star)))
    return found


def _hits(phrase: tuple[list[str], bool], toks: list[str]) -> int:
    words, prefix = phrase
    n, count = len(words), 0
    for i in range(len(toks) - n + 1):
        if toks[i : i + n - 1] != words[:-1]:
            continue
        last = toks[i + n - 1]
        if last == words[-1] or (prefix and last.startswith(words[-1])):
            count += 1
    return count


def _str_attr(n: MemoryNode, key: str) -> str | None:
    value = n.attributes.get(key)
    return value if isinstance(value, str) else None


def _nocase(text: str) -> str:
    # SQLite's NOCASE folds ASCII letters only
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def _day(text: str) -> float:
    if not text:
        return 0.0
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() / 86400.0


class MemoryVoiceIndex:
    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    def _nodes(self) -> dict[str, MemoryNode]:
        return self.store.current_state().nodes

    def _live(self) -> list[tuple[MemoryNode, VoiceRow, str | None]]:
        rows = []
        for n in self._nodes().values():
            if n.profile.value != "voice" or n.kind != "message" or n.lifecycle == "retired":
                continue
            conf = n.attributes.get("confidence")
            ok_conf = isinstance(conf, int | float) and not isinstance(conf, bool)
            row = VoiceRow(
                score=0.0,
                ts=iso(n.valid_from) or "",
                constellation=_str_attr(n, "constellation") or "",
                session_id=_str_attr(n, "session_id") or "",
                project=_str_attr(n, "project") or "",
                text=n.claim,
                classification=_str_attr(n, "classification"),
                confidence=float(conf) if ok_conf else None,  # type: ignore[arg-type]
                voice_page=_str_attr(n, "voice_page"),
                node_id=n.id,
            )
            rows.append((n, row, iso(n.ingested_at)))
        return rows

    def search(self, request: VoiceSearch) -> list[VoiceRow]:
        q = request
        match = to_fts5_query(q.query) if q.query.strip() else ""
        if q.query.strip() and not match:
            return []
        if q.only is not None and not q.only:
            return []
        live = [x for x in self._live() if x[0].lifecycle != "forgotten"]  # no tombstone
        everything = live
        only = set(q.only) if q.only is not None else None
        project = _nocase(q.project) if q.project else None
        cls = _nocase(q.classification) if q.classification else None

        def keep(row: VoiceRow, ingested: str | None) -> bool:
            if q.since is not None and row.ts < q.since:
                return False
            if q.until is not None and row.ts > q.until:
                return False
            if q.as_of is not None and (ingested is None or ingested > q.as_of):
                return False
            if project is not None and project not in (
                _nocase(row.project),
                _nocase(row.constellation),
            ):
                return False
            if q.unclassified:
                if row.classification is not None:
                    return False
            elif cls is not None and (
                row.classification is None or _nocase(row.classification) != cls
            ):
                return False
            if q.session_prefix and not row.session_id.startswith(q.session_prefix):
                return False
            return only is None or row.node_id in only

        def bare(n: MemoryNode) -> bool:
            return not q.bare_commands and _BARE.fullmatch(body_text(n)) is not None

        def current_then(n: MemoryNode) -> bool:
            # a changed transcript record: a superseded version is current only
            # as of a time before it was superseded
            if n.lifecycle != "superseded":
                return True
            at = n.attributes.get("superseded_at")
            return q.as_of is not None and isinstance(at, str) and at > q.as_of

        live = [x for x in live if keep(x[1], x[2]) and current_then(x[0]) and not bare(x[0])]
        if q.recent_sessions > 0:
            recent: list[str] = []
            for _, row, _ in sorted(live, key=lambda x: x[1].ts, reverse=True):
                if row.session_id not in recent:
                    recent.append(row.session_id)
                    if len(recent) == q.recent_sessions:
                        break
            live = [x for x in live if x[1].session_id in recent]
        if not match:
            newest = sorted(live, key=lambda x: (x[1].ts, x[1].node_id), reverse=True)
            return [row for _, row, _ in reversed(newest[: q.limit])]
        phrases = _phrases(match)
        if not phrases:
            return []
        stats = _Corpus(self._nodes().values())
        idf = [stats.idf(p) for p in phrases]
        ref = max((_day(row.ts) for _, row, _ in everything), default=0.0)
        matched = []
        for node, row, _ in live:  # insertion order (the SQLite rowid's)
            body = tokens(body_text(node))
            freqs = [_hits(p, body) for p in phrases]
            if all(freqs):
                matched.append((node, row, body, freqs))
        plan, cap = "full", max(q.candidates, q.limit)
        if len(matched) > cap and q.candidates >= 1 and plan_words(q.query):
            rarest = min(stats.df(w) for w in plan_words(q.query))
            plan = common_plan(stats.n, rarest)
        if plan != "full":  # common words: the newest `candidates` matches only
            matched = matched[-cap:]
        if plan == "recent":
            # (more matches than limit: no substring tier)
            by_time = [
                (1 if row.classification == q.demote else 0, row) for _, row, _, _ in matched
            ]
            by_time.sort(key=lambda x: x[1].node_id)
            by_time.sort(key=lambda x: x[1].ts, reverse=True)
            by_time.sort(key=lambda x: x[0])
            return [row for _, row in by_time[: q.limit]]
        scored: list[tuple[int, float, VoiceRow]] = []
        for node, row, body, freqs in matched:
            size = len(tokens(node.title)) + len(body)
            bm25 = -sum(
                w * f * (K1 + 1.0) / (f + K1 * (1 - B + B * size / stats.avgdl))
                for w, f in zip(idf, freqs, strict=True)
            )
            age = max(0.0, ref - _day(row.ts))
            score = bm25 * (0.5 + 0.5 / (1.0 + age / q.recency_days))
            tier = 1 if row.classification == q.demote else 0
            scored.append((tier, score, _with_score(row, score)))
        scored.sort(key=lambda x: x[2].node_id)
        scored.sort(key=lambda x: x[2].ts, reverse=True)
        scored.sort(key=lambda x: (x[0], x[1]))
        hits = [row for _, _, row in scored[: q.limit]]
        if not q.word and len(hits) < q.limit:
            hits += self._partial_tier(q, live, hits)
        return hits

    def _partial_tier(
        self,
        q: VoiceSearch,
        live: list[tuple[MemoryNode, VoiceRow, str | None]],
        whole: list[VoiceRow],
    ) -> list[VoiceRow]:
        """Substring tier (VoiceSearch): every term a case-insensitive substring,
        newest indexed first, ``demote`` last; 1-character terms: none."""
        terms = [t.lower() for t in query_terms(q.query)]
        if not terms or any(len(t) < 2 for t in terms):
            return []
        seen = {h.node_id for h in whole}
        found = [
            row
            for node, row, _ in reversed(live)
            if row.node_id not in seen and all(t in body_text(node).lower() for t in terms)
        ][: q.limit - len(whole)]
        return sorted(found, key=lambda r: r.classification == q.demote)

    def stats(self) -> VoiceIndexStats:
        live = self._live()
        rows = [row for node, row, _ in live if node.lifecycle != "forgotten"]
        times = [r.ts for r in rows]
        by_const: dict[str, int] = {}
        by_cls: dict[str | None, int] = {}
        for r in rows:
            by_const[r.constellation] = by_const.get(r.constellation, 0) + 1
            by_cls[r.classification] = by_cls.get(r.classification, 0) + 1
        return VoiceIndexStats(
            messages=len(rows),
            sessions=len({r.session_id for r in rows}),
            pages=len({r.voice_page for r in rows if r.voice_page is not None}),
            classified=sum(1 for r in rows if r.classification is not None),
            first=min(times) if times else None,
            last=max(times) if times else None,
            by_constellation=tuple(by_const.items()),
            by_classification=tuple(by_cls.items()),
            forgotten=len(live) - len(rows),
        )

    def session_messages(self, session_id: str) -> list[MemoryNode]:
        return [
            n
            for n in self._nodes().values()
            if n.profile.value == "voice"
            and n.kind == "message"
            and (_str_attr(n, "session_id") or "") == session_id
        ]

    def session_span(self, session_id: str) -> tuple[str, str] | None:
        times = [t for t in (iso(n.valid_from) for n in self.session_messages(session_id)) if t]
        return (min(times), max(times)) if times else None

    def reindex(self) -> tuple[int, int]:
        return len(self._live()), len(self._nodes())


def _with_score(row: VoiceRow, score: float) -> VoiceRow:
    from memgraph.store.rows import as_dict

    return VoiceRow(**{**as_dict(row), "score": score})


class _Corpus:
    """Row count, average row length and phrase document frequency, as FTS5 counts them."""

    def __init__(self, nodes: Iterable[MemoryNode]) -> None:
        nodes = list(nodes)
        self.bodies = [tokens(body_text(n)) for n in nodes]
        self.titles = [tokens(n.title) for n in nodes]
        self.n = len(self.bodies)
        total = sum(len(t) for t in self.titles) + sum(len(b) for b in self.bodies)
        self.avgdl = total / self.n if self.n and total else 1.0

    def df(self, word: str) -> int:
        """Nodes holding ``word`` in title or body (FTS5 vocabulary's ``doc``)."""
        return sum(
            1 for t, b in zip(self.titles, self.bodies, strict=True) if word in t or word in b
        )

    def idf(self, phrase: tuple[list[str], bool]) -> float:
        having = sum(1 for b in self.bodies if _hits(phrase, b))
        value = math.log((self.n - having + 0.5) / (having + 0.5))
        return value if value > 0 else 1e-6
