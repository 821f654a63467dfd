"""The MCP ``context`` reply spends its budget on the packet's items, and a role cut
reads the workspace's project as the CLI does. Before: the reply was the whole packet
document (indent=2 JSON, ~30x an item's text), so a role packet of 5 messages came back
with 0 nodes at budget 1,000 and 2 at 2,000, with no word of what was cut; and the tool
passed no project, so role/persona cuts were always empty over MCP."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from context_cut.ceiling import output_tokens
from memgraph.config import load_settings
from memgraph.mcp_server import MemgraphTools
from memgraph.store import open_store

TASK = "retry backoff and integration tests"


@pytest.fixture
def tools(tmp_path: Path, seed_store: Callable[[Path], dict[str, str]]) -> MemgraphTools:
    from profiles.voice.classify.night import NightPassRequest, make_proposer, run_night_pass

    env = seed_store(tmp_path)
    store = open_store(Path(env["MEMGRAPH_HOME"]) / "memgraph.db")
    try:  # the role cut reads classified messages (decisions, corrections, ...)
        request = NightPassRequest(
            classifier="rules", ignore_window=True, vault=Path(env["MEMGRAPH_VAULT"])
        )
        run_night_pass(store, request, make_proposer("rules"))
    finally:
        store.close()
    workspace = tmp_path / "src" / "atlas"  # a workspace whose project is the sample's
    workspace.mkdir(parents=True)
    return MemgraphTools(
        load_settings(home=Path(env["MEMGRAPH_HOME"]), workspace=workspace, embedder="none")
    )


def _reply_tokens(data: dict[str, object]) -> int:
    return output_tokens(json.dumps(data, indent=2, ensure_ascii=False))


@pytest.mark.parametrize("budget", [600, 1000, 2000])
def test_a_role_packet_over_mcp_holds_what_the_cli_lines_hold(
    tools: MemgraphTools, budget: int
) -> None:
    data = tools.context(TASK, cut="role", budget=budget)
    assert data["project"] == "atlas"  # the workspace's project
    nodes = data["nodes"]
    assert isinstance(nodes, list) and len(nodes) >= 3
    assert any("recorded fixtures" in n for n in nodes)  # the integration-test correction
    assert _reply_tokens(data) <= budget


def test_a_named_project_wins_over_the_workspace(tools: MemgraphTools) -> None:
    assert "nodes" not in tools.context(TASK, cut="role", budget=1000, project="nowhere")
    assert tools.context(TASK, cut="role", budget=1000, project="atlas")["nodes"]


def test_the_whole_document_says_what_the_ceiling_cut(tools: MemgraphTools) -> None:
    whole = tools.context(TASK, cut="role", budget=1000, as_json=True)
    compact = tools.context(TASK, cut="role", budget=1000)
    assert len(whole["nodes"]) < len(compact["nodes"])
    said = [n for n in whole["notices"] if n.startswith("ceiling: ")]
    assert said and "cut to fit 1000 tokens" in said[0]
    assert _reply_tokens(whole) <= 1000
