"""Stored documents as plain slotted objects: a read path without pydantic.

Importing pydantic and defining the document models costs 105-140 ms of CPU
(notes/benchmarks.md, 2026-12-04), more than a short command's whole budget.
A store opened for a lean read (``memgraph.store.decode.use_plain``) decodes
its rows into these classes instead: the same attribute names and value types
as the documents (enums from ``memgraph.documents.enums``, aware UTC
datetimes), so ``context_cut`` reads either (``memgraph.documents.views``).
They are read-only results of a read, never written back; ``Model.model_validate(
x.as_dict())`` is the document (``memgraph.documents.plain_context.packet_document``
turns a whole packet into its ``MemoryContextPacket`` for ``--json`` and MCP).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, ClassVar

from memgraph.documents.enums import AnchorKind, FreshnessState, ProfileName

TEMPORAL = ("valid_from", "valid_to", "ingested_at")
_NO_DEFAULT = object()


def when(value: str | None) -> datetime | None:
    """A stored timestamp (``2026-12-04T03:40:00.000000Z``) as an aware UTC datetime."""
    if value is None:
        return None
    dt = datetime.fromisoformat(value)
    return dt if dt.tzinfo is UTC else dt.astimezone(UTC)


class Plain:
    """Base: ``FIELDS`` in the document's order, ``DEFAULTS`` for the optional ones
    (a list/dict default is copied, a class default is called), ``CONVERT`` for
    the stored JSON values that are not plain JSON types (enums, datetimes)."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[str, ...]] = ()
    DEFAULTS: ClassVar[dict[str, Any]] = {}
    CONVERT: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def __init__(self, **values: Any) -> None:
        for name in self.FIELDS:
            value = values.pop(name, _NO_DEFAULT)
            if value is _NO_DEFAULT:
                value = self.DEFAULTS.get(name, _NO_DEFAULT)
                if value is _NO_DEFAULT:
                    raise TypeError(f"{type(self).__name__}: {name} is required")
                if isinstance(value, list | dict):
                    value = type(value)()
                elif isinstance(value, type):
                    value = value()
            setattr(self, name, value)
        if values:
            raise TypeError(f"{type(self).__name__}: unknown field(s) {sorted(values)}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        convert = cls.CONVERT
        return cls(
            **{k: (convert[k](v) if k in convert and v is not None else v) for k, v in data.items()}
        )

    def as_dict(self) -> dict[str, Any]:
        """Field values, plain members as dicts (what the document validates from)."""
        return {f: _dumped(getattr(self, f)) for f in self.FIELDS}

    def __copy__(self) -> Any:
        new = object.__new__(type(self))
        for f in self.FIELDS:
            setattr(new, f, getattr(self, f))
        return new

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the documents

    def __repr__(self) -> str:
        shown = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.FIELDS[3:6])
        return f"{type(self).__name__}({shown}, ...)"


def _dumped(value: Any) -> Any:
    if isinstance(value, Plain):
        return value.as_dict()
    if isinstance(value, list):
        return [_dumped(v) for v in value]
    return value


def _many(make: Callable[[Any], Any]) -> Callable[[list[Any]], list[Any]]:
    return lambda values: [make(v) for v in values]


_WHEN = dict.fromkeys(TEMPORAL, when)
NONE = dict.fromkeys(TEMPORAL)


class PlainAnchor(Plain):
    FIELDS = (
        *TEMPORAL,
        "id",
        "kind",
        "ref",
        "line",
        "record_uuid",
        "sha",
        "content_hash",
        "label",
    )
    __slots__ = FIELDS
    DEFAULTS: ClassVar[dict[str, Any]] = {**NONE, "line": None, "record_uuid": None, "sha": None}
    DEFAULTS |= {"content_hash": None, "label": None}
    CONVERT: ClassVar[dict[str, Callable[[Any], Any]]] = {**_WHEN, "kind": AnchorKind}
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    id: str
    kind: AnchorKind
    ref: str
    line: int | None
    record_uuid: str | None
    sha: str | None
    content_hash: str | None
    label: str | None


_anchors = _many(PlainAnchor.from_dict)


class PlainNode(Plain):
    FIELDS = (
        *TEMPORAL,
        "id",
        "domain_id",
        "profile",
        "kind",
        "title",
        "claim",
        "question",
        "tension",
        "action_implication",
        "anchors",
        "source_hashes",
        "lifecycle",
        "salience",
        "confidence",
        "created_at",
        "updated_at",
        "attributes",
        "superseded_by",
    )
    __slots__ = FIELDS
    DEFAULTS: ClassVar[dict[str, Any]] = {
        **NONE,
        **dict.fromkeys(("title", "claim", "question", "tension", "action_implication"), ""),
        "anchors": [],
        "source_hashes": [],
        "salience": 0.5,
        "confidence": 0.5,
        "attributes": {},
        "superseded_by": None,
    }
    CONVERT: ClassVar[dict[str, Callable[[Any], Any]]] = {
        **_WHEN,
        "created_at": when,
        "updated_at": when,
        "profile": ProfileName,
        "anchors": _anchors,
        "salience": float,
        "confidence": float,
    }
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    id: str
    domain_id: str
    profile: ProfileName
    kind: str
    title: str
    claim: str
    question: str
    tension: str
    action_implication: str
    anchors: list[PlainAnchor]
    source_hashes: list[str]
    lifecycle: str
    salience: float
    confidence: float
    created_at: datetime
    updated_at: datetime
    attributes: dict[str, Any]
    superseded_by: str | None


class PlainEdge(Plain):
    FIELDS = (
        *TEMPORAL,
        "id",
        "source_id",
        "target_id",
        "kind",
        "profile",
        "claim",
        "anchors",
        "lifecycle",
        "confidence",
        "attributes",
    )
    __slots__ = FIELDS
    DEFAULTS: ClassVar[dict[str, Any]] = {
        **NONE,
        "claim": "",
        "anchors": [],
        "confidence": 0.5,
        "attributes": {},
    }
    CONVERT: ClassVar[dict[str, Callable[[Any], Any]]] = {
        **_WHEN,
        "profile": ProfileName,
        "anchors": _anchors,
        "confidence": float,
    }
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    id: str
    source_id: str
    target_id: str
    kind: str
    profile: ProfileName
    claim: str
    anchors: list[PlainAnchor]
    lifecycle: str
    confidence: float
    attributes: dict[str, Any]


class PlainFreshness(Plain):
    FIELDS = (*TEMPORAL, "state", "checked_at", "stale_ids", "reason")
    __slots__ = FIELDS
    DEFAULTS: ClassVar[dict[str, Any]] = {
        **NONE,
        "state": FreshnessState.fresh,
        "checked_at": None,
    }
    DEFAULTS |= {"stale_ids": [], "reason": ""}
    CONVERT: ClassVar[dict[str, Callable[[Any], Any]]] = {
        **_WHEN,
        "state": FreshnessState,
        "checked_at": when,
    }
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    state: FreshnessState
    checked_at: datetime | None
    stale_ids: list[str]
    reason: str


class PlainSummary(Plain):
    FIELDS = (
        *TEMPORAL,
        "id",
        "domain_id",
        "covers_node_ids",
        "covers_edge_ids",
        "covers_summary_ids",
        "target",
        "claim",
        "question",
        "tension",
        "action_implication",
        "anchor_count",
        "source_hashes",
        "freshness",
        "confidence",
        "known_omissions",
    )
    __slots__ = FIELDS
    DEFAULTS: ClassVar[dict[str, Any]] = {
        **NONE,
        "covers_node_ids": [],
        "covers_edge_ids": [],
        "covers_summary_ids": [],
        **dict.fromkeys(("claim", "question", "tension", "action_implication"), ""),
        "anchor_count": 0,
        "source_hashes": {},
        "freshness": PlainFreshness,
        "confidence": 0.5,
        "known_omissions": [],
    }
    CONVERT: ClassVar[dict[str, Callable[[Any], Any]]] = {
        **_WHEN,
        "freshness": PlainFreshness.from_dict,
        "confidence": float,
    }
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    id: str
    domain_id: str
    covers_node_ids: list[str]
    covers_edge_ids: list[str]
    covers_summary_ids: list[str]
    target: str
    claim: str
    question: str
    tension: str
    action_implication: str
    anchor_count: int
    source_hashes: dict[str, str]
    freshness: PlainFreshness
    confidence: float
    known_omissions: list[str]

    def covered_ids(self) -> list[str]:
        return [*self.covers_node_ids, *self.covers_edge_ids, *self.covers_summary_ids]


class PlainReceipt(Plain):
    FIELDS = (
        *TEMPORAL,
        "id",
        "patch_id",
        "op",
        "target_id",
        "target_type",
        "profile",
        "actor",
        "at",
        "before",
        "after",
        "reason",
        "details",
    )
    __slots__ = FIELDS
    DEFAULTS: ClassVar[dict[str, Any]] = {**NONE, "profile": None, "before": None, "after": None}
    DEFAULTS |= {"reason": "", "details": {}}
    CONVERT: ClassVar[dict[str, Callable[[Any], Any]]] = {**_WHEN, "at": when}
    valid_from: datetime | None
    valid_to: datetime | None
    ingested_at: datetime | None
    id: str
    patch_id: str
    op: str
    target_id: str
    target_type: str
    profile: str | None
    actor: str
    at: datetime
    before: str | None
    after: str | None
    reason: str
    details: dict[str, Any]


def decoder(cls: type[Plain]) -> Callable[[str | bytes], Any]:
    """Stored JSON text -> plain object (``json.loads`` then ``cls.from_dict``)."""
    loads, make = json.loads, cls.from_dict
    return lambda text: make(loads(text))
