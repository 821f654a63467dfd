"""The documents' enums and small helpers, without pydantic.

Read paths (``memgraph context``, ``memgraph recall``) compare stored values
with these (``node.profile is ProfileName.voice``) without ever building a
pydantic model; the document modules re-export them from their old places
(``memgraph.documents.base.ProfileName`` is this ``ProfileName``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any


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


class AnchorKind(StrEnum):
    """Evidence pointer kinds. An anchor points at evidence; it is never a claim."""

    transcript = "transcript"  # path + line + record uuid
    commit = "commit"  # repo + sha
    file = "file"  # path + content hash
    url = "url"
    page = "page"  # vault page path
    entity = "entity"  # a named entity (session, project, repo, branch, path)


class FreshnessState(StrEnum):
    fresh = "fresh"
    stale = "stale"


class CutName(StrEnum):
    repo = "repo"
    role = "role"
    persona = "persona"
    coordinator = "coordinator"


class SleepDisposition(StrEnum):
    distilled = "distilled"
    incubated = "incubated"
    pruned = "pruned"


class PatchStatus(StrEnum):
    proposed = "proposed"
    applied = "applied"
    rejected = "rejected"


def utcnow() -> datetime:
    return datetime.now(UTC)


def to_json(doc: Any) -> str:
    """``doc.model_dump_json()`` of a pydantic document, without pydantic's per-call
    Python wrapper (and without importing pydantic: the model class carries its
    serializer). Same text, ~0.5 us less per call: the bulk-ingest path serialises
    every node and every receipt once (notes/benchmarks.md)."""
    text: str = type(doc).__pydantic_serializer__.to_json(doc, warnings=False).decode()
    return text
