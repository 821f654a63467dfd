"""The MCP tools as an agent meets them, against their CLI twins (audit s41, dog41b).

Each test names the before: what the tool did that its CLI twin did not."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgraph.config import load_settings
from memgraph.mcp_server import MemgraphTools


@pytest.fixture
def tools(tmp_path: Path) -> MemgraphTools:
    (tmp_path / "workspace").mkdir()
    return MemgraphTools(load_settings())


def test_a_note_over_mcp_is_what_wake_reads_under_the_servers_persona(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: a server started with MEMGRAPH_PERSONA=builder put the session a note
    started under persona 'default', and wake (which reads builder) said "No notes yet":
    the continuity token an agent had just left was lost to it."""
    monkeypatch.setenv("MEMGRAPH_PERSONA", "builder")
    (tmp_path / "workspace").mkdir()
    tools = MemgraphTools(load_settings())
    try:
        left = tools.note("the token to carry", session="p1")
        assert left["persona"] == "builder"
        woke = tools.wake()
        assert woke["persona"] == "builder"
        assert woke["text"] == "the token to carry"
        assert not woke["axiom"]
    finally:
        tools.close()


def test_a_note_in_an_existing_session_keeps_its_persona(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "workspace").mkdir()
    first = MemgraphTools(load_settings())
    try:
        first.note("started under the default persona", session="p2")
    finally:
        first.close()
    monkeypatch.setenv("MEMGRAPH_PERSONA", "builder")
    tools = MemgraphTools(load_settings())
    try:  # as `memgraph note` does: the configured persona only names a new session
        assert tools.note("a second note", session="p2")["persona"] == "default"
    finally:
        tools.close()
