"""``memgraph render``: any machine writes the views of any session from the store."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memgraph.store import open_store
from profiles.render import RenderRequest, render_views

SAMPLE = Path(__file__).resolve().parents[2] / "memgraph" / "sample"
AT = datetime(2026, 4, 14, 9, 0, tzinfo=UTC)


def _files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in (".md", ".yaml") and p.name != "log.md"
    }


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_second_machine_renders_what_the_first_captured(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from profiles.session.api import NoteRequest, StartRequest, note, start_session
    from profiles.voice.capture import CaptureRequest, capture_transcript

    location: Any = (
        tmp_path / "shared.db" if backend == "sqlite" else request.getfixturevalue("pg_url")
    )
    # machine A captures and takes notes into its own vault and workspace
    a_vault, a_ws = tmp_path / "a" / "vault", tmp_path / "a" / "ws"
    store = open_store(location)
    for transcript in sorted(SAMPLE.rglob("*.jsonl")):
        capture_transcript(store, CaptureRequest(transcript=transcript, vault=a_vault, now=AT))
    start_session(store, StartRequest("fleet-s1", a_ws, "alice", started_at=AT))
    note(store, NoteRequest("fleet-s1", "from machine A", a_ws, at=AT, key="k1"))
    store.close()
    a_files = _files(a_vault) | _files(a_ws)
    assert any(k.endswith(".md") for k in a_files) and any(k.endswith(".yaml") for k in a_files)

    # machine B has nothing local; it renders from the shared store
    b_vault, b_ws = tmp_path / "b" / "vault", tmp_path / "b" / "ws"
    store = open_store(location)
    report = render_views(store, RenderRequest(vault=b_vault, workspace=b_ws))
    assert report.failed == []
    assert len(report.written) == len(a_files)
    assert _files(b_vault) | _files(b_ws) == a_files  # the same pages and YAML, byte for byte
    again = render_views(store, RenderRequest(vault=b_vault, workspace=b_ws))
    assert again.written == [] and again.unchanged == len(a_files)
    missing = render_views(store, RenderRequest(b_vault, b_ws, sessions=("no-such-session",)))
    assert missing.failed == ["no-such-session: no such session in the store"]
    store.close()
