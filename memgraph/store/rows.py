"""Rows and requests of the profile-owned indexes (see ``memgraph.store.interfaces``;
the voice message index's are in ``memgraph.store.voice_rows``).

A profile maps its documents to these rows and calls the index interfaces; a
store backend maps them to its tables. Stdlib only, and not even ``typing`` or
``dataclasses`` at run time (``dataclasses`` imports ``inspect``, ~10 ms): the
fast paths (``memgraph voice``, ``memgraph note``) build these records too.
Times are fixed-width UTC text (``iso``), the form every backend sorts as time.
"""

from __future__ import annotations

from datetime import UTC, datetime

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the idiom)
if TYPE_CHECKING:
    from dataclasses import dataclass as record  # mypy checks the records as dataclasses
    from typing import Any
else:

    def record(frozen: bool = True) -> object:
        return light_record


def light_record(cls: Any) -> Any:
    """A frozen dataclass look-alike: __init__ (positional or keyword, class
    defaults), __eq__, __hash__, __repr__, immutability."""
    fields = tuple(cls.__annotations__)
    defaults = {f: cls.__dict__[f] for f in fields if f in cls.__dict__}
    name = cls.__name__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if not kwargs and len(args) == len(fields):  # every field, in order: the common case
            for f, value in zip(fields, args, strict=True):
                object.__setattr__(self, f, value)
            return
        if len(args) > len(fields):
            raise TypeError(f"{name}() takes {len(fields)} arguments")
        values = dict(zip(fields, args, strict=False))
        for key, value in kwargs.items():
            if key not in fields or key in values:
                raise TypeError(f"{name}() got an unexpected or repeated argument {key!r}")
            values[key] = value
        for f in fields:
            if f not in values and f not in defaults:
                raise TypeError(f"{name}() missing argument {f!r}")
            object.__setattr__(self, f, values.get(f, defaults.get(f)))

    def __setattr__(self: Any, key: str, value: Any) -> None:
        raise AttributeError(f"{name} is immutable")

    def _values(self: Any) -> tuple[Any, ...]:
        return tuple(getattr(self, f) for f in fields)

    def __eq__(self: Any, other: object) -> bool:
        return type(other) is type(self) and _values(self) == _values(other)

    def __repr__(self: Any) -> str:
        return f"{name}({', '.join(f'{f}={getattr(self, f)!r}' for f in fields)})"

    cls.__init__, cls.__setattr__, cls.__eq__, cls.__repr__ = (
        __init__,
        __setattr__,
        __eq__,
        __repr__,
    )
    cls.__hash__ = lambda self: hash(_values(self))
    return cls


def as_dict(row: Any) -> dict[str, Any]:
    """A record's fields by name (``dataclasses.asdict`` for these records, shallow)."""
    return {f: getattr(row, f) for f in row.__annotations__}


def iso(dt: datetime) -> str:
    """Fixed-width UTC text (``2026-04-14T14:32:00.000000Z``): sorts as time.
    The same text as ``memgraph.store.sqlite.iso`` (isoformat keeps a year's zeros)."""
    return dt.astimezone(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


# -- ingest ledger ----------------------------------------------------------------

# (path, lines, captured, filtered {rule: n}, dropped {reason: n}, file_error,
#  redacted {kind: n}): the latest accounting of one transcript (profiles.voice.ledger)
LedgerRow = tuple[str, int, int, dict[str, int], dict[str, int], str | None, dict[str, int]]
# Redaction counts (profiles.voice.privacy) ride in the stored ``filtered`` JSON under
# ``redacted:<kind>`` keys (no schema change); they are not lines, so line sums leave
# them out.
LEDGER_REDACTED = "redacted:"


def ledger_columns(row: LedgerRow) -> tuple[str, int, int, str, str, str | None]:
    """``row`` as its stored columns (path, lines, captured, filtered, dropped, file_error)."""
    import json

    p, n, c, f, d, e, r = row
    filtered = json.dumps({**f, **{LEDGER_REDACTED + k: v for k, v in r.items()}}, sort_keys=True)
    return p, n, c, filtered, json.dumps(d, sort_keys=True), e


def ledger_row(
    path: object, lines: object, captured: object, filtered: object, dropped: object, error: object
) -> LedgerRow:
    """A stored row back; damaged JSON comes back as a ``damaged_ledger_row`` file error."""
    import json

    try:
        f, d = json.loads(str(filtered)), json.loads(str(dropped))
        if not isinstance(f, dict) or not isinstance(d, dict):
            raise ValueError
        counts = {str(k): int(v) for k, v in f.items()}
        return (
            str(path), int(str(lines)), int(str(captured)),
            {k: v for k, v in counts.items() if not k.startswith(LEDGER_REDACTED)},
            {str(k): int(v) for k, v in d.items()},
            str(error) if error else None,
            {k[len(LEDGER_REDACTED):]: v for k, v in counts.items()
             if k.startswith(LEDGER_REDACTED)},
        )  # fmt: skip
    except (ValueError, TypeError):
        return (str(path), 0, 0, {}, {}, "damaged_ledger_row", {})


def ledger_totals(
    rows: list[LedgerRow],
) -> tuple[tuple[int, int, int, int], tuple[tuple[str, int], ...]]:
    """(lines, captured, filtered, dropped) and dropped counts by reason ("file:<reason>"
    for files not read), sorted by reason: ``VoiceIndexStats.ledger`` / ``ledger_dropped``."""
    reasons: dict[str, int] = {}
    lines = captured = filtered = dropped = 0
    for _, n, c, f, d, e, _r in rows:
        lines, captured = lines + n, captured + c
        filtered += sum(f.values())
        dropped += sum(d.values())
        for k, v in d.items():
            reasons[k] = reasons.get(k, 0) + v
        if e is not None:
            reasons["file:" + e] = reasons.get("file:" + e, 0) + 1
    return (lines, captured, filtered, dropped), tuple(sorted(reasons.items()))


# -- transcript registry ----------------------------------------------------------


@record(frozen=True)
class RegistryRow:
    """One processed transcript file (``profiles.voice.backfill``)."""

    path: str
    size: int
    mtime_ns: int
    sha256: str
    session_id: str | None
    status: str  # paged | skipped | error
    reason: str | None  # e.g. too_few_messages:2, no_messages, the error line
    message_count: int
    page: str | None  # first page written, relative to the vault
    processed_at: str


# -- session notes index and the lean note append ---------------------------------


@record(frozen=True)
class SessionRow:
    """A started session as the session index holds it."""

    session_id: str
    node_id: str
    persona: str
    workspace: str
    started_at: str
    harness: str
    lifecycle: str


@record(frozen=True)
class NoteIndexRow:
    """An active note of a session, in view order (ts, node id)."""

    ts: str
    text: str
    harness: str
    node_id: str


@record(frozen=True)
class NodeRow:
    """A node as the lean writer hands it over: indexed columns plus the JSON doc."""

    id: str
    profile: str
    kind: str
    domain_id: str
    lifecycle: str
    valid_from: str | None
    valid_to: str | None
    ingested_at: str | None
    updated_at: str
    title: str
    body: str
    doc: str


@record(frozen=True)
class EdgeRow:
    id: str
    source_id: str
    target_id: str
    kind: str
    profile: str
    lifecycle: str
    doc: str


@record(frozen=True)
class ReceiptRow:
    id: str
    patch_id: str
    op: str
    target_id: str
    at: str
    doc: str


@record(frozen=True)
class PatchRow:
    id: str
    status: str
    created_at: str
    doc: str


@record(frozen=True)
class NoteWrite:
    """Everything one lean note writes: exactly what ``apply_patch`` would store
    for the same upsert_node + upsert_edge patch (``profiles.session.lean``)."""

    node: NodeRow
    edge: EdgeRow
    receipts: tuple[ReceiptRow, ...]
    patch: PatchRow


@record(frozen=True)
class GraphWrite:
    """Every row one lean capture writes (``profiles.voice.lean``): new nodes, their
    edges, one receipt per effect and the applied patch, exactly what ``apply_patch``
    would store for the same patch of upserts of nodes and edges that do not exist yet."""

    nodes: tuple[NodeRow, ...]
    edges: tuple[EdgeRow, ...]
    receipts: tuple[ReceiptRow, ...]
    patch: PatchRow


# -- term statistics ----------------------------------------------------------------


@record(frozen=True)
class TermFrequencies:
    """Document frequency of each asked term over every node's text;
    ``nodes`` is the node count (an upper bound is fine: the largest row id)."""

    nodes: int
    df: tuple[tuple[str, int], ...]


# -- activity lookups -------------------------------------------------------------


@record(frozen=True)
class ActivitySource:
    """Live nodes of one profile and kind, in these lifecycle states."""

    profile: str
    kind: str
    states: tuple[str, ...]


@record(frozen=True)
class ActivityRow:
    """A node in a time range, reduced to what activity windows read.
    ``text`` is the claim for ``message`` nodes and '' for any other kind."""

    kind: str
    node_id: str
    valid_from: str
    attributes: dict[str, Any]
    text: str


__all__ = [
    "ActivityRow",
    "ActivitySource",
    "EdgeRow",
    "NodeRow",
    "NoteIndexRow",
    "NoteWrite",
    "PatchRow",
    "ReceiptRow",
    "RegistryRow",
    "SessionRow",
    "TermFrequencies",
    "as_dict",
    "iso",
    "light_record",
    "record",
]
