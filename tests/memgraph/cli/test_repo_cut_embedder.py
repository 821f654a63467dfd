"""``memgraph context --cut repo --repo PATH`` takes the configured embedder for the
nearest-past-commit signal only when it is MiniLM (``context_cut/repo_nearest.py``);
nothing configured, another model or a missing extra: the cut ranks as without it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_cut import embedders
from memgraph.cli.ranked import ContextArgs, _repo_embedder
from memgraph.errors import MissingExtra
from tests.context_cut.test_repo_nearest import FakeMiniLM


def _args(tmp_path: Path, embedder: str | None) -> ContextArgs:
    return ContextArgs(
        text="speed up the importer", repo=tmp_path, home=tmp_path, embedder=embedder
    )


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("MEMGRAPH_EMBEDDER", "MEMGRAPH_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(tmp_path / "absent.toml"))


def test_nothing_configured_builds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a: Any, **_k: Any) -> None:
        raise AssertionError("no embedder should be built")

    monkeypatch.setattr(embedders, "make_embedder", boom)
    assert _repo_embedder(_args(tmp_path, None)) == (None, None)
    assert _repo_embedder(_args(tmp_path, "none")) == (None, None)
    assert _repo_embedder(_args(tmp_path, "hash")) == (None, None)  # not MiniLM: never built


def test_minilm_is_used_and_a_missing_extra_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeMiniLM({})
    monkeypatch.setattr(embedders, "make_embedder", lambda *_a, **_k: fake)
    # the embedder, and the home the scan keeps subject vectors under (a folder per
    # store in it: context_cut/repo_vectors.py, memgraph/home_dirs.py)
    assert _repo_embedder(_args(tmp_path, "minilm")) == (fake, tmp_path)

    def missing(*_a: Any, **_k: Any) -> None:
        raise MissingExtra("local-embeddings", "tokenizers")

    monkeypatch.setattr(embedders, "make_embedder", missing)
    assert _repo_embedder(_args(tmp_path, "minilm")) == (None, None)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "past-commit vectors" in err
