"""Fixtures for the MCP tests: a store seeded with the bundled sample and one note."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from memgraph.store import open_store

SAMPLE = Path(__file__).resolve().parents[3] / "memgraph" / "sample"


def seed(tmp: Path) -> dict[str, str]:
    """A store with the bundled sample captured and one note, and the env to reach it."""
    from profiles.session.api import NoteRequest, note
    from profiles.voice.backfill import BackfillRequest, run_backfill

    env = {
        "MEMGRAPH_HOME": str(tmp / "mg-home"),
        "MEMGRAPH_VAULT": str(tmp / "vault"),
        "MEMGRAPH_WORKSPACE": str(tmp / "workspace"),
        "MEMGRAPH_SESSION": "mcp-session-1",
        "HOME": str(tmp / "home"),
    }
    store = open_store(Path(env["MEMGRAPH_HOME"]) / "memgraph.db")
    try:
        run_backfill(
            store,
            BackfillRequest(
                roots=[SAMPLE / "claude" / "projects", SAMPLE / "codex" / "sessions"],
                vault=Path(env["MEMGRAPH_VAULT"]),
            ),
        )
        note(
            store,
            NoteRequest(
                session_id="seed-session",
                text="remember: the etag rule decides cache staleness",
                workspace=Path(env["MEMGRAPH_WORKSPACE"]),
            ),
        )
    finally:
        store.close()
    return env


@pytest.fixture(scope="session")
def seed_store() -> Callable[[Path], dict[str, str]]:
    """``seed(tmp)``: seed a store under ``tmp``; returns the env that reaches it."""
    return seed
