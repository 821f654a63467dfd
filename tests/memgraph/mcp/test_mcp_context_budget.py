"""The context tool's budget is a ceiling on its reply, with ``repo`` too (the repo
cut's reply was sent unmeasured: budget 1 came back as ~400 tokens, 2000 as ~9,700)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from context_cut.ceiling import output_tokens
from memgraph.config import load_settings
from memgraph.mcp_stdio import LeanServer
from memgraph.store import open_store
from profiles.repo_scan.scan import ScanRequest, scan_repo

PACKAGE = Path(__file__).resolve().parents[3] / "context_cut"


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("repo-budget")
    repo = tmp / "proj"
    shutil.copytree(PACKAGE, repo / "context_cut", ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp / "mg-home"
    store = open_store(home / "memgraph.db")
    try:
        scan_repo(store, ScanRequest(path=repo))
    finally:
        store.close()
    return home, repo


@pytest.fixture
def server(scanned: tuple[Path, Path]) -> Iterator[LeanServer]:
    lean = LeanServer(load_settings(home=scanned[0], embedder="none"))
    yield lean
    lean.close()


def _context(server: LeanServer, budget: int, repo: Path) -> dict[str, object]:
    args = {"text": "budget ceiling trimming packet", "budget": budget, "repo": str(repo)}
    return server.call_tool("context", args)


@pytest.mark.parametrize("budget", [300, 500, 2000, 5000])
def test_repo_context_reply_fits_its_budget(
    server: LeanServer, scanned: tuple[Path, Path], budget: int
) -> None:
    out = _context(server, budget, scanned[1])
    assert out["isError"] is False
    text = "".join(block["text"] for block in out["content"])  # type: ignore[attr-defined]
    assert output_tokens(text) <= budget
    if budget >= 2000:
        assert json.loads(text)["nodes"]  # still a packet with something in it


def test_repo_context_below_its_overhead_says_so(
    server: LeanServer, scanned: tuple[Path, Path]
) -> None:
    out = _context(server, 1, scanned[1])
    assert out["isError"] is True
    assert "below this output format's fixed" in out["content"][0]["text"]  # type: ignore[index]


@pytest.mark.parametrize("repo", ["", "  "])
def test_an_empty_repo_is_an_error_not_the_servers_folder(server: LeanServer, repo: str) -> None:
    out = server.call_tool("context", {"text": "budget ceiling", "budget": 500, "repo": repo})
    assert out["isError"] is True
    assert "repo is empty" in out["content"][0]["text"]  # type: ignore[index]


def test_the_repo_cut_over_mcp_considers_what_the_cli_does(
    server: LeanServer, scanned: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same cut over MCP: the tool took the library's default of 10 candidate modules
    while the CLI's --limit is 50, so with budget to spare MCP stopped at 10."""
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    out = _context(server, 30000, scanned[1])
    reply = json.loads("".join(block["text"] for block in out["content"]))  # type: ignore[attr-defined]
    over_mcp = len(reply.get("nodes", [])) + len(reply.get("summaries", []))
    monkeypatch.setenv("MEMGRAPH_HOME", str(scanned[0]))
    args = ["context", "budget ceiling trimming packet", "--cut", "repo", "--repo", str(scanned[1])]
    done = CliRunner().invoke(app, [*args, "--budget", "30000", "--json"])
    assert done.exit_code == 0, done.output
    packet = json.loads(done.stdout)
    assert over_mcp == len(packet["nodes"]) + len(packet["summaries"]) > 10


def test_a_small_budget_cuts_the_notices_last_and_says_how_many(tmp_path: Path) -> None:
    """A role packet of an empty memory is mostly notices ("empty: ..."); over MCP they
    are in the reply, so `budget: 100` was refused as below the format's overhead where
    the CLI (notices on stderr) answered. Now the notices go last, counted; only below
    the empty reply itself is it still an error."""
    open_store(tmp_path / "mg-home" / "memgraph.db").close()
    lean = LeanServer(load_settings(home=tmp_path / "mg-home", embedder="none"))

    def reply(budget: int) -> dict[str, Any]:
        args = {"text": "retry jitter", "cut": "role", "budget": budget}
        return lean.call_tool("context", args)

    try:
        roomy, small, tiny, below = reply(2000), reply(100), reply(60), reply(20)
    finally:
        lean.close()
    assert not (roomy["isError"] or small["isError"] or tiny["isError"]), small
    full = json.loads(roomy["content"][0]["text"])["notices"]
    text = small["content"][0]["text"]
    assert output_tokens(text) <= 100 < output_tokens(roomy["content"][0]["text"])
    *kept, last = json.loads(text)["notices"]
    assert kept and kept == full[: len(kept)]
    assert last == f"{len(full) - len(kept)} notices left out"
    assert output_tokens(tiny["content"][0]["text"]) <= 60  # no room even to say so
    assert below["isError"] and "below this output format" in below["content"][0]["text"]
