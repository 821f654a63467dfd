"""Removing forgotten text from stored history: the request and the document rewrite.

``memgraph forget`` is the one operation that removes text (D4's exception). The
forgotten nodes themselves become tombstones through ``apply_patch``; what
still carries their text afterwards is history: ``node_history`` versions, the
full patch documents the store keeps, receipts (a reason may quote it), edge and
summary documents and their history, and the embedding manifests of those
nodes. Each backend implements ``TextScrub`` (``memgraph.store.interfaces``)
with the pure rewrite below, then compacts so the bytes leave its files too
(SQLite: FTS merge, VACUUM, WAL truncated; PostgreSQL: VACUUM FULL).

The rewrite is scoped so a short forgotten text ("yes") never clobbers other
messages: inside a JSON object that IS one of the forgotten nodes (``id``) or
an op on one (``node_id``), every forgotten text is replaced; elsewhere only
texts of at least ``min_global`` characters are (a longer text found anywhere
else is a quote of it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

MIN_GLOBAL = 16
# an object whose one of these names a forgotten node is about it (a node, an op
# on it, a receipt for it, an edge touching it): every forgotten text goes there
SCOPE_KEYS = ("id", "node_id", "target_id", "source_id")
# tables whose ``doc`` column the scrub rewrites (the live ``nodes`` rows are
# rewritten by the engine: the tombstone patch)
DOC_TABLES = (
    "node_history",
    "edges",
    "edge_history",
    "summaries",
    "summary_history",
    "receipts",
    "patches",
)


@dataclass(frozen=True)
class ScrubRequest:
    node_ids: tuple[str, ...]  # the forgotten nodes (tombstoned already)
    texts: tuple[str, ...]  # their texts: claims, titles, ...
    marker: str = "[forgotten]"
    min_global: int = MIN_GLOBAL
    compact: bool = True  # reclaim freed space so the text leaves the files

    def ordered_texts(self) -> tuple[str, ...]:
        """Longest first (a title is a prefix of its claim), empty ones out."""
        return tuple(sorted({t for t in self.texts if t.strip()}, key=lambda t: (-len(t), t)))

    def probes(self) -> tuple[str, ...]:
        """Substrings a stored document holding any target must contain (for a
        cheap SQL pre-filter): the node ids, and a JSON-safe piece of each long
        text. Empty: no pre-filter possible (scan every row)."""
        found = list(self.node_ids)
        for text in self.ordered_texts():
            if len(text) < self.min_global:
                continue
            piece = _json_safe_piece(text)
            if len(piece) < 4:
                return ()
            found.append(piece)
        return tuple(found)


@dataclass
class ScrubReport:
    rows: dict[str, int] = field(default_factory=dict)  # table -> rows rewritten
    manifests: int = 0  # embedding manifests removed
    compacted: bool = False

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def _json_safe_piece(text: str) -> str:
    """The longest run of characters every JSON encoder writes unchanged."""
    best = cur = ""
    for ch in text:
        if " " <= ch <= "~" and ch not in '"\\':
            cur += ch
            if len(cur) > len(best):
                best = cur
        else:
            cur = ""
    return best


def _replace(value: str, texts: tuple[str, ...], marker: str) -> str:
    for text in texts:
        if text in value:
            value = value.replace(text, marker)
    return value


def _walk(value: Any, request: ScrubRequest, ids: frozenset[str], scoped: bool) -> Any:
    texts = request.ordered_texts()
    if isinstance(value, str):
        if scoped:
            return _replace(value, texts, request.marker)
        long = tuple(t for t in texts if len(t) >= request.min_global)
        return _replace(value, long, request.marker) if long else value
    if isinstance(value, list):
        return [_walk(v, request, ids, scoped) for v in value]
    if isinstance(value, dict):
        inside = scoped or any(value.get(k) in ids for k in SCOPE_KEYS)
        return {k: _walk(v, request, ids, inside) for k, v in value.items()}
    return value


def scrub_value(value: Any, request: ScrubRequest) -> Any:
    """``value`` (parsed JSON) with the forgotten texts replaced by the marker."""
    return _walk(value, request, frozenset(request.node_ids), False)


def scrub_doc(doc: str, request: ScrubRequest) -> str | None:
    """The rewritten JSON document, or None when nothing in it changes."""
    try:
        parsed = json.loads(doc)
    except ValueError:
        return None
    after = scrub_value(parsed, request)
    if after == parsed:
        return None
    return json.dumps(after, ensure_ascii=False, separators=(",", ":"))


__all__ = ["DOC_TABLES", "ScrubReport", "ScrubRequest", "scrub_doc", "scrub_value"]
