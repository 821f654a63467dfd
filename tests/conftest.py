"""Shared fixtures. Every data dir points at tmp_path: no test touches $HOME."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "real"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """MEMGRAPH_* dirs, HOME and XDG dirs all live under tmp_path."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("MEMGRAPH_HOME", str(tmp_path / "mg-home"))
    monkeypatch.setenv("MEMGRAPH_VAULT", str(tmp_path / "vault"))
    monkeypatch.setenv("MEMGRAPH_WORKSPACE", str(tmp_path / "workspace"))
    monkeypatch.setenv("MEMGRAPH_TRANSCRIPTS", str(tmp_path / "transcripts"))
    for var in (
        "MEMGRAPH_SESSION",
        "MEMGRAPH_CONFIG",
        "MEMGRAPH_STORE",
        "OLLAMA_HOST",
        "MEMGRAPH_QDRANT_URL",
        "MEMGRAPH_REDACT",
        "MEMGRAPH_EXCLUDE_PROJECTS",
        "MEMGRAPH_EXCLUDE_PATHS",
        "NO_COLOR",
    ):
        monkeypatch.delenv(var, raising=False)
    # Listings print local time with the zone (memgraph.dates.show): tests pin the
    # zone to UTC so expected output does not depend on the machine's.
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield tmp_path


@pytest.fixture
def corpus() -> Path:
    """The shared real-transcript corpus (../shared/corpus/real), or skip."""
    if not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS} (it lives beside the repo in shared/)")
    return CORPUS


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A real PostgreSQL server for the session (initdb + pg_ctl in a temp dir).

    Without the binaries (or psycopg) a developer gets a skip with the reason;
    in CI (``CI=true``) a missing server is a failure, never a silent skip.
    """
    reason = None
    try:
        import psycopg  # noqa: F401

        from memgraph.store.postgres.server import LocalServer, find_bindir
    except ImportError as exc:
        reason = f"psycopg is not installed ({exc}); pip install -e '.[postgres]'"
    else:
        if find_bindir(os.environ.get("MEMGRAPH_PG_BIN")) is None:
            reason = (
                "PostgreSQL binaries not found (/usr/lib/postgresql/15/bin or pg_ctl on PATH;"
                " set MEMGRAPH_PG_BIN); apt-get install postgresql"
            )
    if reason is not None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but no PostgreSQL server for the PostgreSQL tests: {reason}")
        pytest.skip(reason)
    bindir = os.environ.get("MEMGRAPH_PG_BIN")
    server = LocalServer.start(Path(bindir) if bindir else None, settings={"fsync": "off"})
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server: Any) -> str:
    """The URL of a fresh, empty database on the session's PostgreSQL server."""
    return str(pg_server.create_database())
