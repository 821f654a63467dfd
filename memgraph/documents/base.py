"""Shared base for every document: pure pydantic data, no I/O."""

# No ``from __future__ import annotations`` in the modules that define documents:
# pydantic would then evaluate each field's annotation from its text (a compile and
# an eval per field: ~3 ms of every process that builds the models, a one-file repo
# rescan's included; notes/repo.md, speed37). The annotations are the same objects.

from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field

# re-exported from their old place: the enums and helpers live without pydantic
from memgraph.documents.enums import ProfileName as ProfileName
from memgraph.documents.enums import to_json as to_json
from memgraph.documents.enums import utcnow as utcnow


def _to_utc(value: datetime) -> datetime:
    return value if value.tzinfo is UTC else value.astimezone(UTC)


# Every timestamp is timezone-aware and normalised to UTC when validated, so it
# serialises as ISO-8601 with a ``Z``; naive datetimes are rejected so two
# machines never disagree on "when". Normalising at validation (rather than a
# Python serializer) keeps JSON serialisation in pydantic-core: the bulk-ingest
# hot path serialises every node and receipt at least once.
UtcDatetime = Annotated[AwareDatetime, AfterValidator(_to_utc)]

JsonValue = Any


# ``default_factory`` for empty lists and dicts, instead of the builtins ``list`` and
# ``dict``: pydantic reads a factory's signature when it builds a model, and a
# builtin's goes through ``inspect``'s text-signature parser (tokenize: ~2.5 ms for
# the first, ~0.2 ms each after; ~4.5 ms of every process that builds the write
# path's models, e.g. a one-file repo rescan). The values are the same.
def new_list() -> list[Any]:
    return []


def new_dict() -> dict[str, Any]:
    return {}


class Document(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, validate_assignment=False)


_M = TypeVar("_M", bound=BaseModel)


def evolve(model: _M, update: dict[str, Any]) -> _M:
    """``model.model_copy(update=update)`` without its per-copy overhead.

    Like ``model_copy`` it does not validate ``update``: use it only with
    values that are already valid (the engine's own bookkeeping on hot paths).
    Documents forbid extra fields and hold no private attributes, so a copy
    is the field dict plus the set of fields set.
    """
    cls = type(model)
    copied = cls.__new__(cls)
    object.__setattr__(copied, "__dict__", {**model.__dict__, **update})
    fields_set = model.__pydantic_fields_set__
    if not update.keys() <= fields_set:
        fields_set = fields_set | update.keys()
    # Otherwise the copy shares the original's set (~0.6 us less per copy, and
    # receipts are copied from a template with every field set). Only attribute
    # assignment ever mutates it, and documents are not mutated once built.
    object.__setattr__(copied, "__pydantic_fields_set__", fields_set)
    object.__setattr__(copied, "__pydantic_extra__", None)
    object.__setattr__(copied, "__pydantic_private__", None)
    return copied


class Temporal(Document):
    """Bi-temporal fields: valid time (when it was true) and ingestion time."""

    valid_from: UtcDatetime | None = None
    valid_to: UtcDatetime | None = None
    ingested_at: UtcDatetime | None = None


Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
