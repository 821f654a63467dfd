"""Fixtures shared by the CLI tests of the MiniLM-backed surfaces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_cut import embedders, repo_nearest
from tests.context_cut.test_repo_nearest import FakeMiniLM
from tests.context_cut.test_repo_vectors import COSINES


@pytest.fixture
def minilm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[FakeMiniLM]:
    """MiniLM configured in the home ``tmp_path/mg``; each embedder built is a new
    counting fake (listed), so a test can count the model loads and calls."""
    monkeypatch.setenv("MEMGRAPH_EMBEDDER", "minilm")
    monkeypatch.setenv("MEMGRAPH_HOME", str(tmp_path / "mg"))
    built: list[FakeMiniLM] = []

    def make(*_a: Any, **_k: Any) -> FakeMiniLM:
        built.append(FakeMiniLM(COSINES))
        return built[-1]

    monkeypatch.setattr(embedders, "make_embedder", make)
    repo_nearest._MEMO.clear()
    return built
