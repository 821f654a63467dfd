"""The MCP tools as an agent meets them, against their CLI twins (audit s41, dog41b).

Each test names the before: what the tool did that its CLI twin did not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memgraph.config import load_settings
from memgraph.errors import MemgraphError
from memgraph.mcp_server import MemgraphTools
from memgraph.store import open_store


@pytest.fixture
def tools(tmp_path: Path) -> Iterator[MemgraphTools]:
    (tmp_path / "workspace").mkdir()
    open_store(tmp_path / "mg-home" / "memgraph.db").close()  # an empty store
    served = MemgraphTools(load_settings())
    yield served
    served.close()


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


def test_note_finds_the_session_remember_finds(
    tools: MemgraphTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: with the harness's own session id in the server's environment (a Codex
    thread id, a Claude Code id a SessionStart hook exported), remember and propose
    wrote into that session and note refused: "no session"."""
    monkeypatch.setenv("CODEX_THREAD_ID", "thread-41")
    assert tools.note("a spark")["session_id"] == "thread-41"
    assert tools.remember("a memory")["id"]  # the same resolution: both found it


@pytest.mark.parametrize("cut", ["role", "repo"])
@pytest.mark.parametrize("text", ["", "  \n\t"])
def test_an_empty_context_query_is_refused_as_the_cli_refuses_it(
    tools: MemgraphTools, text: str, cut: str
) -> None:
    """Before: `memgraph context ""` was "Error: the query is empty" (exit 2) and the
    MCP tool answered a packet of whatever ranked first for no words."""
    with pytest.raises(ValueError, match="the query is empty"):
        tools.context(text, cut=cut)


def test_a_budget_below_the_overhead_is_said_in_the_tools_words(tools: MemgraphTools) -> None:
    """Before: "budget 1 tokens is below ...; raise --budget": a count not in its
    number, and a flag the MCP tool does not have (its parameter is `budget`)."""
    with pytest.raises(MemgraphError) as raised:
        tools.context("retry backoff", cut="role", budget=1)
    said = str(raised.value)
    assert said.startswith("a budget of 1 token is below this output format's fixed overhead")
    assert "--budget" not in said and said.endswith("raise the budget")


@pytest.mark.parametrize("query", ["", "   "])
def test_nothing_to_search_names_what_the_tool_takes(tools: MemgraphTools, query: str) -> None:
    """Before: the CLI's line, 'give a query ("keyword"), --recent, --stats or a filter
    such as --session ID': options voice_search does not have."""
    with pytest.raises((MemgraphError, ValueError), match=r"^nothing to search") as raised:
        tools.voice_search(query, all=True)
    assert "--" not in str(raised.value) and "session, since" in str(raised.value)


def test_wake_under_a_persona_with_no_sessions_says_so(tools: MemgraphTools) -> None:
    """Before: `memgraph wake --persona buider` said on stderr "persona buider has no
    sessions yet (personas with sessions: builder)"; the MCP tool gave the bare
    "No notes yet" axiom, and an agent took a typo for an empty memory."""
    tools.note("left in a session of the default persona", session="b1")
    woke = tools.wake("buider")
    assert woke["axiom"]
    assert (
        woke["notice"]
        == "wake: persona buider has no sessions yet (personas with sessions: default)"
    )
    assert "notice" not in tools.wake(None)  # found: nothing to say


READS = {
    "voice_search": {"query": "backoff"},
    "voice_stats": {},
    "wake": {},
    "context": {"text": "backoff", "cut": "role"},
}


@pytest.mark.parametrize("tool", sorted(READS))
def test_a_read_tool_on_a_missing_store_says_so_and_makes_none(tmp_path: Path, tool: str) -> None:
    """Before: with MEMGRAPH_HOME naming a folder that holds no store (a typo in the
    client's config), each read tool made an empty store there and answered from it:
    no hits, "No notes yet", 0 messages, an empty packet. `memgraph voice`, `wake` and
    `context` say "no store at ..." and make nothing."""
    from memgraph.mcp_stdio import LeanServer

    home = tmp_path / "typo" / "home"
    server = LeanServer(load_settings(home=home))
    try:
        reply = server.call_tool(tool, dict(READS[tool]))
    finally:
        server.close()
    assert reply["isError"]
    said = reply["content"][0]["text"]
    assert f"no store at {home / 'memgraph.db'}" in said and "MEMGRAPH_HOME" in said
    assert not (tmp_path / "typo").exists()


def test_remember_makes_the_store_as_note_does(tmp_path: Path) -> None:
    """The writing tools start a store where none is, as their CLI twins do."""
    (tmp_path / "workspace").mkdir()
    tools = MemgraphTools(load_settings(home=tmp_path / "fresh"))
    try:
        assert tools.remember("a first memory", session="s1")["changed"]
        assert tools.voice_stats()["messages"] == 0  # now there is a store to read
    finally:
        tools.close()


def test_a_refusal_names_the_tools_parameters_not_the_cli_flags(tools: MemgraphTools) -> None:
    """The checks are shared with the CLI and say `--type: ...`, `--since ... is after
    --until ...`; over MCP the agent passed `type=`, `since=`: the reply names those."""
    from memgraph.mcp_stdio import LeanServer

    server = LeanServer(load_settings())
    try:
        bad_session = server.call_tool("voice_search", {"query": "x", "session": "../up"})
        swapped = server.call_tool(
            "voice_search", {"query": "x", "since": "2026-04-16", "until": "2026-04-15"}
        )
    finally:
        server.close()
    said = [r["content"][0]["text"] for r in (bad_session, swapped)]
    assert all(r["isError"] for r in (bad_session, swapped))
    assert "session: '../up' is not a session id" in said[0] and "--" not in said[0]
    assert "since 2026-04-16 00:00 UTC is after until 2026-04-15 23:59 UTC" in said[1]
    assert "--since" not in said[1] and "--until" not in said[1]


def test_tools_list_names_the_choices_a_refusal_would_teach() -> None:
    """tools/list carried no word of `remember`'s kinds or `propose`'s states: an agent
    learnt them from a refusal. The descriptions name them, kept equal to the law."""
    import re

    from memgraph.mcp_tools import PROPOSE, REMEMBER
    from profiles import get_profile
    from profiles.memory import PROPOSABLE, REMEMBER_KINDS

    assert f"kind: {'|'.join(REMEMBER_KINDS)};" in REMEMBER
    two_ways = {
        name: sorted(get_profile(name).initial)
        for name in PROPOSABLE
        if len(get_profile(name).initial) > 1
    }
    said = re.search(r"state: only where a profile has two ways in \(([^)]*)\)", PROPOSE)
    assert said is not None
    listed: dict[str, list[str]] = {}
    for part in said.group(1).split("; "):
        names, states = part.split(": ")
        for name in names.split(", "):
            listed[name] = sorted(states.split("|"))
    assert listed == two_ways
