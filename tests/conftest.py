"""Shared fixtures. Every data dir points at tmp_path: no test touches $HOME."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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
    for var in ("MEMGRAPH_SESSION", "MEMGRAPH_CONFIG", "OLLAMA_HOST", "MEMGRAPH_QDRANT_URL"):
        monkeypatch.delenv(var, raising=False)
    yield tmp_path


@pytest.fixture
def corpus() -> Path:
    """The shared real-transcript corpus (../shared/corpus/real), or skip."""
    if not CORPUS.is_dir():
        pytest.skip(f"real corpus not found at {CORPUS} (it lives beside the repo in shared/)")
    return CORPUS
