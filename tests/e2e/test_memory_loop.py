"""The agent memory loop end to end, every step a real subprocess.

backfill the real corpus -> notes -> remember + propose through the MCP stdio
client -> sleep -> role/persona/coordinator/repo cuts -> sleep again -> review.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from memgraph.store import open_store
from tests.process import memgraph

PROJECT = "evergreen"
AT = "2026-06-01T03:00:00Z"


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMGRAPH_", "CLAUDE"))}
    env.update(
        HOME=str(tmp / "home"),
        MEMGRAPH_HOME=str(tmp / "mg-home"),
        MEMGRAPH_VAULT=str(tmp / "vault"),
        MEMGRAPH_WORKSPACE=str(tmp / PROJECT),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    return env


def mg(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return memgraph(*args, env=env, cwd=cwd, timeout=300)


def _payload(result: Any) -> Any:
    if getattr(result, "structured_content", None) is not None:
        data = result.structured_content
        return data.get("result", data) if isinstance(data, dict) else data
    return json.loads(result.content[0].text)


async def _agent(env: dict[str, str]) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memgraph.cli", "mcp"], env=env
    )
    out: dict[str, Any] = {"remembered": []}
    texts = [
        ("the lava flow simulation needs a smaller timestep near vents", "", ""),
        ("smaller timestep near vents keeps the lava flow simulation stable", "", ""),
        ("why does the ash plume renderer flicker on resize?", "", "does resize reset the buffer?"),
        ("always rerun the eruption fixtures before pushing", "", ""),
        ("coffee machine on floor 2 is broken", "", ""),
    ]
    async with Client(params, read_timeout_seconds=120) as client:
        for text, tension, question in texts:
            args = {"text": text, "session": "agent-s1", "project": PROJECT}
            if question:
                args["question"] = question
            if tension:
                args["tension"] = tension
            out["remembered"].append(_payload(await client.call_tool("remember", args)))
        out["role"] = _payload(
            await client.call_tool(
                "propose",
                {
                    "profile": "role_self",
                    "text": "I check the operator's last correction before changing the renderer",
                    "session": "agent-s1",
                    "project": PROJECT,
                },
            )
        )
        out["intervention"] = _payload(
            await client.call_tool(
                "propose",
                {
                    "profile": "candidate_intervention",
                    "text": "suggest a regression test for the plume flicker",
                    "session": "agent-s1",
                    "project": PROJECT,
                },
            )
        )
        out["pressure"] = _payload(
            await client.call_tool(
                "propose",
                {
                    "profile": "agency_pressure",
                    "text": "the vent timestep change is unreviewed",
                    "session": "agent-s1",
                    "project": PROJECT,
                },
            )
        )
        out["repo"] = _payload(
            await client.call_tool(
                "propose",
                {
                    "profile": "repo_architecture",
                    "text": "the volcano simulation core owns the timestep",
                    "session": "agent-s1",
                    "project": PROJECT,
                    "file": ["sim/core.py"],
                },
            )
        )
        out["bad_role"] = await client.call_tool(
            "propose",
            {
                "profile": "role_self",
                "text": "the renderer lives in render.py",
                "session": "agent-s1",
                "project": PROJECT,
                "file": ["render.py"],
            },
        )
    return out


def _counts(env: dict[str, str]) -> dict[str, int]:
    store = open_store(Path(env["MEMGRAPH_HOME"]) / "memgraph.db")
    try:
        return store.counts()
    finally:
        store.close()


def _packet(env: dict[str, str], cut: str, query: str, budget: int = 3000) -> dict[str, Any]:
    # --json prints whole node documents and the budget is a ceiling on the printed
    # line (context_cut.ceiling), so the JSON surface needs a roomier budget
    done = mg(env, "context", query, "--cut", cut, "--project", PROJECT, "--budget", str(budget),
              "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    packet: dict[str, Any] = json.loads(done.stdout)
    return packet


@pytest.mark.slow
def test_memory_loop_end_to_end(corpus: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    (tmp_path / PROJECT).mkdir()
    done = mg(env, "voice", "--backfill", "--transcripts", str(corpus))
    assert done.returncode == 0, done.stderr
    for text in ("vent timestep halved; watch the plume renderer", "fixtures regenerated"):
        done = mg(env, "note", text, "--session", "agent-s1", cwd=tmp_path / PROJECT)
        assert done.returncode == 0, done.stderr

    agent = anyio.run(_agent, env)
    assert all(r["lifecycle"] == "active" for r in agent["remembered"])
    assert agent["role"]["lifecycle"] == "proposed"
    assert agent["bad_role"].is_error
    assert "role_self memory cannot carry repo truth" in agent["bad_role"].content[0].text
    store = open_store(Path(env["MEMGRAPH_HOME"]) / "memgraph.db")
    try:
        rejected = [r for r in store.receipts() if r.op == "reject_patch"]
        assert len(rejected) == 1 and "repo truth" in rejected[0].reason
        short_ids = {r["id"] for r in agent["remembered"]}
        active_before = {
            n.id for n in store.iter_nodes(profile="short_term") if n.lifecycle == "active"
        }
    finally:
        store.close()
    assert active_before == short_ids

    plan = mg(env, "sleep", "--now", "--at", AT, "--dry-run")
    assert plan.returncode == 0, plan.stderr
    before = _counts(env)
    assert "(dry run)" in plan.stdout and _counts(env) == before

    first = mg(env, "sleep", "--now", "--at", AT, "--json")
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["status"] == "applied" and not report["rejected"]
    stages = {s["name"]: s for s in report["stages"]}
    assert stages["classify"]["receipts"] > 0 and stages["summaries"]["receipts"] > 0

    # every short_term node active before sleep has exactly one terminal receipt
    store = open_store(Path(env["MEMGRAPH_HOME"]) / "memgraph.db")
    try:
        terminal = {"distilled", "incubated", "pruned"}
        for nid in short_ids:
            ends = [r for r in store.receipts(target_id=nid) if r.after in terminal]
            assert len(ends) == 1, (nid, ends)
            assert ends[0].op == "forced_sleep"
        states = {n.id: n.lifecycle for n in store.iter_nodes(profile="short_term")}
        assert {states[i] for i in short_ids} == terminal
    finally:
        store.close()

    cuts = {
        "role": "timestep renderer",
        "persona": "plume",
        "coordinator": "timestep",
        "repo": "volcano simulation timestep",
    }
    for cut, query in cuts.items():
        packet = _packet(env, cut, query)
        assert packet["nodes"] or packet["summaries"], (cut, packet["notices"])
        assert packet["tokens_used"] <= packet["query"]["budget_tokens"]
        for node in packet["nodes"]:
            anchored = node["anchors"] or node["attributes"].get("session_id")
            assert anchored, (cut, node["id"])
    role = _packet(env, "role", cuts["role"])
    assert any(n["profile"] == "voice" for n in role["nodes"])
    prompt = mg(env, "context", "timestep", "--cut", "role", "--project", PROJECT, "--budget",
                "300", "--prompt")  # fmt: skip
    assert prompt.returncode == 0 and prompt.stdout.startswith('<memgraph-context cut="role"')
    assert "(empty:" in prompt.stdout  # accepted role memory: none yet, and it says why

    # sleep again: nothing new, nothing written
    before = _counts(env)
    again = mg(env, "sleep", "--now", "--at", "2026-06-01T03:30:00Z", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["receipts"] == 0
    assert _counts(env) == before

    # proposed role_self is trusted only after review accept
    role_id = agent["role"]["id"]
    before_role = _packet(env, "role", "renderer correction", budget=12000)
    seams = " ".join(before_role["verification_seams"])
    assert role_id in seams and "not reviewed" in seams
    listed = mg(env, "review", "list")
    assert role_id in listed.stdout
    accepted = mg(env, "review", "accept", role_id, "--reason", "matches what I asked")
    assert accepted.returncode == 0 and "proposed -> accepted" in accepted.stdout
    after = _packet(env, "role", "renderer correction", budget=12000)
    assert role_id not in " ".join(after["verification_seams"])
    assert any(n["id"] == role_id and n["lifecycle"] == "accepted" for n in after["nodes"])
    store = open_store(Path(env["MEMGRAPH_HOME"]) / "memgraph.db")
    try:
        reviews = store.receipts(target_id=role_id)
        assert [r.op for r in reviews][-2:] == ["review_node", "transition_node"]
    finally:
        store.close()
