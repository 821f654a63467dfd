"""The MCP server keeps its store open across calls and survives the store being
replaced underneath it (a backup copied back, the file deleted and created again)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from memgraph.config import load_settings  # noqa: E402
from memgraph.mcp_server import MemgraphTools, store_identity  # noqa: E402
from memgraph.store import open_store  # noqa: E402
from memgraph.store.backup import backup_store  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[3] / "memgraph" / "sample"


def _backfill(db: Path, vault: Path, *roots: Path) -> None:
    from profiles.voice.backfill import BackfillRequest, run_backfill

    store = open_store(db)
    try:
        run_backfill(store, BackfillRequest(roots=list(roots), vault=vault))
    finally:
        store.close()


def _stores(tmp: Path) -> tuple[dict[str, str], Path, Path]:
    """The live store (both samples) and a backup of a smaller one (codex only)."""
    home = tmp / "mg-home"
    db = home / "memgraph.db"
    _backfill(db, tmp / "vault", SAMPLE / "claude" / "projects", SAMPLE / "codex" / "sessions")
    small = tmp / "small.db"
    _backfill(small, tmp / "vault2", SAMPLE / "codex" / "sessions")
    backup = tmp / "backup.db"
    backup_store(small, backup)
    env = {
        "MEMGRAPH_HOME": str(home),
        "MEMGRAPH_VAULT": str(tmp / "vault"),
        "MEMGRAPH_WORKSPACE": str(tmp / "workspace"),
        "MEMGRAPH_SESSION": "mcp-session-1",
        "HOME": str(tmp / "home"),
    }
    return env, db, backup


def _restore(backup: Path, db: Path) -> None:
    """What restoring a backup by hand does: the copy moved over the store, and the
    old store's WAL side files removed (they belong to the replaced file)."""
    tmp = db.with_suffix(".restoring")
    tmp.write_bytes(backup.read_bytes())
    os.replace(tmp, db)
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)


def _recreate(db: Path) -> None:
    """The store deleted, then a new, empty one made and moved to the same path."""
    for side in ("", "-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    fresh = db.with_name("fresh.db")
    open_store(fresh).close()
    os.replace(fresh, db)


def test_tools_keep_the_store_open_and_reopen_a_replaced_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env, db, backup = _stores(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    tools = MemgraphTools(load_settings())
    try:
        full = tools.voice_stats()["messages"]
        first = tools._open[False][2]
        assert tools.voice_search("backoff")
        assert tools._open[False][2] is first  # the same open store served both calls
        assert tools.voice_stats()["messages"] == full

        _restore(backup, db)
        small = tools.voice_stats()["messages"]
        assert 0 < small < full
        assert tools._open[False][2] is not first
        assert tools._open[False][1] == store_identity(str(db))

        _recreate(db)
        assert tools.voice_stats()["messages"] == 0
        assert tools.voice_search("backoff") == []

        # a write tool beside the read store; afterwards reads still see the file
        tools.note("written through mcp", session="s-after")
        assert tools.voice_stats()["messages"] == 0
    finally:
        tools.close()
    assert tools._open == {}


async def _session(env: dict[str, str], db: Path, backup: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memgraph.cli", "mcp"],
        env={**env, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    out: dict[str, Any] = {}

    async def stats() -> int:
        result = await client.call_tool("voice_stats", {})
        assert not result.is_error, result
        data = result.structured_content
        return int((data.get("result", data) if isinstance(data, dict) else data)["messages"])

    async with Client(params, read_timeout_seconds=60) as client:
        out["before"] = await stats()
        out["before_again"] = await stats()
        _restore(backup, db)
        out["restored"] = await stats()
        _recreate(db)
        out["recreated"] = await stats()
        search = await client.call_tool("voice_search", {"query": "backoff"})
        out["search_error"] = search.is_error
    return out


@pytest.mark.slow
def test_a_real_mcp_session_survives_the_store_being_replaced(tmp_path: Path) -> None:
    env, db, backup = _stores(tmp_path)
    out = anyio.run(_session, env, db, backup)
    assert out["before"] == out["before_again"] > out["restored"] > 0
    assert out["recreated"] == 0
    assert out["search_error"] is False


def test_a_write_after_the_store_was_deleted_closes_the_read_handle_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read slot still holds the deleted file when a write tool creates the new
    store. Its checkpointer thread once connected late and made a 0-byte file at the
    path (the new store was then refused); stale handles are closed first too."""
    env, db, _ = _stores(tmp_path)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    tools = MemgraphTools(load_settings())
    try:
        for round_ in range(6):  # the race was intermittent: several rounds
            assert tools.voice_stats()["messages"] >= 0  # the read slot is open
            assert False in tools._open
            db.unlink()  # the file only, as `rm memgraph.db` does
            tools.note(f"a note after the store was deleted {round_}", session="s-del")
            assert False not in tools._open or tools._open[False][1] == store_identity(str(db))
            assert tools.voice_stats()["messages"] == 0
    finally:
        tools.close()
