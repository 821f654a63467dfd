"""SessionNotes: the schema of a session YAML file, and its reader.

Files are rendered by ``profiles.session.emit``; this module parses them back
(``parse_session_yaml``) for ``session show`` and round-trip checks. A file a
person edited badly gives a ``ReaderError`` with one line, never a traceback.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memgraph.documents import UtcDatetime
from memgraph.errors import ReaderError
from memgraph.ids import is_safe_name
from profiles.session.emit import NoteRow, render_yaml
from profiles.session.records import fixed_iso

MAX_FILE_BYTES = 64 * 1024 * 1024


class SessionNote(BaseModel):
    model_config = ConfigDict(extra="forbid")

    timestamp: UtcDatetime
    text: str = Field(min_length=1)
    harness: str = Field(min_length=1, max_length=64)
    id: str | None = Field(default=None, pattern=r"^n-[0-9a-f]{16}$")


class SessionNotes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    session_id: str
    persona: str
    started_at: UtcDatetime
    notes: list[SessionNote] = Field(default_factory=list)

    @field_validator("session_id", "persona")
    @classmethod
    def _safe(cls, value: str) -> str:
        if not is_safe_name(value):
            raise ValueError(f"unsafe name {value[:60]!r}")
        return value


def render_session_notes(doc: SessionNotes) -> str:
    rows = [
        NoteRow(timestamp=fixed_iso(n.timestamp), text=n.text, harness=n.harness, id=n.id or "")
        for n in doc.notes
    ]
    return render_yaml(doc.session_id, doc.persona, fixed_iso(doc.started_at), rows)


def parse_session_yaml(text: str, source: str = "<text>") -> SessionNotes:
    """Parse a session file; ``ReaderError`` (one line) for anything malformed."""
    import yaml

    if len(text) > MAX_FILE_BYTES:
        raise ReaderError(f"{source}: file is larger than {MAX_FILE_BYTES} bytes")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise ReaderError(f"{source}: not valid YAML{where}: {problem}") from None
    except RecursionError:
        raise ReaderError(f"{source}: YAML nests too deeply") from None
    if not isinstance(data, dict):
        raise ReaderError(f"{source}: expected a mapping with session_id, persona, notes")
    # YAML turns unquoted timestamps into datetimes; naive ones are rejected below.
    try:
        doc = SessionNotes.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "file"
        raise ReaderError(f"{source}: {loc}: {err['msg']}") from None
    return doc


def read_session_file(path: str, text: str) -> SessionNotes:
    return parse_session_yaml(text, source=path)


def in_order(doc: SessionNotes) -> bool:
    keys: list[tuple[datetime, str]] = [(n.timestamp, n.id or "") for n in doc.notes]
    return keys == sorted(keys)
