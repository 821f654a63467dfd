"""Shared base for every document: pure pydantic data, no I/O."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, PlainSerializer

# Every timestamp is timezone-aware and serialised as UTC ISO-8601 with a ``Z``;
# naive datetimes are rejected so two machines never disagree on "when".
UtcDatetime = Annotated[
    AwareDatetime,
    PlainSerializer(
        lambda d: d.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        return_type=str,
        when_used="json",
    ),
]

JsonValue = Any


def utcnow() -> datetime:
    return datetime.now(UTC)


class Document(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, validate_assignment=False)


class Temporal(Document):
    """Bi-temporal fields: valid time (when it was true) and ingestion time."""

    valid_from: UtcDatetime | None = None
    valid_to: UtcDatetime | None = None
    ingested_at: UtcDatetime | None = None


class ProfileName(StrEnum):
    """Every profile the substrate knows: repo, agent and capture domains."""

    repo_architecture = "repo_architecture"
    repo_dataflow = "repo_dataflow"
    role_self = "role_self"
    short_term = "short_term"
    incubation = "incubation"
    agency_pressure = "agency_pressure"
    candidate_intervention = "candidate_intervention"
    evidence = "evidence"
    voice = "voice"
    artifact = "artifact"
    session = "session"
    activity = "activity"


Confidence = Annotated[float, Field(ge=0.0, le=1.0)]
