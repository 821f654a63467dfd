"""Token vectors and late interaction (context_cut.token_vectors), with a fake
token embedder (no model needed): one fixed vector a word, synonyms sharing one."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from context_cut.token_table import quantised, read_tokens, table_paths  # noqa: E402
from context_cut.token_vectors import (  # noqa: E402
    late_for,
    late_query,
    maxsim,
    sync_tokens,
    voice_texts,
)
from context_cut.turn_scoring import fuse  # noqa: E402
from context_cut.turn_weights import TurnWeights  # noqa: E402
from context_cut.turns import TurnScope, rank_turns  # noqa: E402
from memgraph.store import Store, open_store  # noqa: E402
from memgraph.store.memory import MemoryStore  # noqa: E402
from profiles.voice.importers import ImportRequest, import_conversations  # noqa: E402

SAME = {"puppy": "dog", "hound": "dog"}  # words the fake model puts at one point
_PIECE = re.compile(r"\w+|[^\w\s]")


class FakeTokens:
    """``embed_tokens``: one unit vector per word (a synonym shares its word's)."""

    name = "fake-tokens"
    dimension = 16

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self.calls: list[str] = []

    def _id(self, piece: str) -> int:
        return self.vocab.setdefault(piece, len(self.vocab) + 1)

    def _vec(self, piece: str) -> Any:
        seed = sum(ord(c) * 31**i for i, c in enumerate(SAME.get(piece, piece))) % 2**32
        v = np.random.default_rng(seed).normal(size=self.dimension)
        return v / np.linalg.norm(v)

    def embed_tokens(self, texts: Sequence[str]) -> list[tuple[Any, Any]]:
        self.calls += list(texts)
        out = []
        for text in texts:
            pieces = _PIECE.findall(text.lower())
            ids = np.array([self._id(p) for p in pieces], dtype=np.int64)
            vecs = np.array([self._vec(p) for p in pieces], dtype=np.float32)
            out.append((ids, vecs.reshape(len(pieces), self.dimension)))
        return out

    def pieces(self, ids: Sequence[int]) -> list[str]:
        back = {i: p for p, i in self.vocab.items()}
        return [back.get(int(i), "") for i in ids]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0] + [0.0] * (self.dimension - 1) for _ in texts]


ROWS = [
    ("Ana", "I adopted a rescue dog last month, she is shy but sweet"),
    ("Ben", "How long have you been married?"),
    ("Ana", "Five years already, time flies!"),
    ("Ben", "My pottery class starts on Tuesday"),
]


def _store(tmp_path: Path, kind: str) -> Store:
    s: Store = open_store(tmp_path / "mg.db") if kind == "sqlite" else MemoryStore()
    for name, rows in (("chat-a", ROWS), ("chat-b", [("Cy", "Our hound loves the beach")])):
        path = tmp_path / f"{name}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for i, (speaker, text) in enumerate(rows, start=1):
                row = {"session": name, "speaker": speaker, "ts": "2023-05-01T10:00:00"}
                fh.write(json.dumps({**row, "text": text, "id": f"D1:{i}"}) + "\n")
        import_conversations(s, ImportRequest(path=path, project=name))
    return s


def test_quantised_rows_are_within_half_a_step() -> None:
    rows = np.random.default_rng(1).normal(size=(5, 16)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    q, scale = quantised(np.vstack([rows, np.zeros((1, 16))]))
    assert q.dtype == np.int8 and scale.shape == (6,)
    back = q[:5] * scale[:5, None]
    assert np.abs(back - rows).max() <= scale.max() / 2 + 1e-7
    assert not q[5].any()  # a zero row stays zero (scale 1, not a division by 0)


def test_sync_writes_reuses_and_reads_back(tmp_path: Path) -> None:
    emb = FakeTokens()
    texts = [("n1", "A rescue dog.", ("p", "c")), ("n2", "Pottery class!", ("p", "c"))]
    report = sync_tokens(texts, emb, tmp_path)
    assert (report.turns, report.embedded, report.rows) == (2, 2, 5)  # punctuation left out
    table, why = read_tokens(tmp_path, emb.name, emb.dimension)
    assert why is None and table is not None
    assert table.ids == ["n1", "n2"] and table.places == [("p", "c"), ("p", "c")]
    assert emb.pieces(table.pieces[:3]) == ["a", "rescue", "dog"]
    emb.calls.clear()
    again = sync_tokens(texts, emb, tmp_path)
    assert (again.embedded, again.reused) == (0, 2) and emb.calls == []
    changed = sync_tokens([texts[0], ("n2", "Pottery", ("p", "c"))], emb, tmp_path)
    assert changed.embedded == 1 and emb.calls == ["Pottery"]  # only the changed text
    emb.calls.clear()  # `memgraph index --rebuild`: "drop and re-embed everything"
    redone = sync_tokens([texts[0], ("n2", "Pottery", ("p", "c"))], emb, tmp_path, rebuild=True)
    assert redone.embedded == 2 and sorted(emb.calls) == ["A rescue dog.", "Pottery"]


def test_an_unreadable_table_is_a_reason_and_is_rebuilt(tmp_path: Path) -> None:
    emb = FakeTokens()
    texts = [("n1", "A rescue dog", ("p", ""))]
    sync_tokens(texts, emb, tmp_path)
    q8 = table_paths(tmp_path, emb.name, emb.dimension)[2]
    q8.write_bytes(q8.read_bytes()[:-3])
    table, why = read_tokens(tmp_path, emb.name, emb.dimension)
    assert table is None and why is not None and "bytes" in why and "\n" not in why
    assert read_tokens(tmp_path, "other-model", emb.dimension)[0] is None
    assert sync_tokens(texts, emb, tmp_path).rebuilt == why
    assert read_tokens(tmp_path, emb.name, emb.dimension)[0] is not None
    elsewhere = tmp_path / "elsewhere.q8"
    os.replace(q8, elsewhere)
    q8.symlink_to(elsewhere)  # a planted link is refused, not followed
    table, why = read_tokens(tmp_path, emb.name, emb.dimension)
    assert table is None and why is not None and "symlink" in why
    assert read_tokens(tmp_path / "none", emb.name, emb.dimension) == (None, None)


def test_maxsim_matches_words_by_vector_and_weighs_rare_ones(tmp_path: Path) -> None:
    emb = FakeTokens()
    texts = [
        ("a", "the dog sleeps", ("p", "")),
        ("b", "the cat sleeps", ("p", "")),
        ("c", "the cat eats", ("p", "")),
    ]
    sync_tokens(texts, emb, tmp_path)
    table, _ = read_tokens(tmp_path, emb.name, emb.dimension)
    assert table is not None
    ids = ["a", "b", "c"]
    (query,) = emb.embed_tokens(["Where is the puppy?"])  # "puppy" is "dog" to the model
    got = maxsim(table, emb, query, ids, 3)
    assert got[0][0] == "a"  # stop words and "?" do not count
    (query,) = emb.embed_tokens(["sleeps cat"])
    # "sleeps" is in two turns, "cat" in two: b has both; a and c one each
    assert maxsim(table, emb, query, ids, 3)[0][0] == "b"
    assert maxsim(table, emb, query, [], 3) == [] and maxsim(table, emb, query, ids, 0) == []


def test_late_for_narrows_by_place_then_asks_the_store(tmp_path: Path) -> None:
    emb = FakeTokens()
    texts = [("a", "dog", ("p1", "c1")), ("b", "dog", ("p2", "c2")), ("c", "dog", ("*", "*"))]
    sync_tokens(texts, emb, tmp_path)

    class Nerve:
        embedder = emb
        tokens_dir = tmp_path

    asked: list[list[str]] = []

    def in_scope(ids: Sequence[str]) -> set[str] | None:
        asked.append(list(ids))
        return None

    query = late_query(Nerve(), "dog", "dog")
    got, why = late_for(Nerve(), query, in_scope, 10, ("p1", None))
    assert why is None and {n for n, _ in got} == {"a", "c"} and asked[-1] == ["a", "c"]
    got, _ = late_for(Nerve(), query, lambda ids: {"c"}, 10, (None, "c2"))
    assert [n for n, _ in got] == ["c"]
    assert late_for(Nerve(), None, in_scope, 10) == ([], None)


def test_fuse_adds_the_late_ranking_min_max_normalised() -> None:
    weights = TurnWeights(late=0.5)
    plain = fuse([("a", 2.0)], [("b", 0.9)], weights)
    both = fuse([("a", 2.0)], [("b", 0.9)], weights, [("c", 0.8), ("a", 0.6), ("d", 0.4)])
    assert both["a"] == pytest.approx(plain["a"] + 0.5 * 0.5)
    assert both["c"] == pytest.approx(0.5) and both["d"] == 0.0 and both["b"] == plain["b"]


@pytest.mark.parametrize("kind", ["sqlite", "memory"])
def test_rank_turns_finds_a_turn_only_late_interaction_reaches(tmp_path: Path, kind: str) -> None:
    s = _store(tmp_path, kind)
    emb = FakeTokens()
    sync_tokens(voice_texts(s), emb, tmp_path / "tokens")

    class Nerve:
        def __init__(self) -> None:
            self.embedder = emb
            self.tokens_dir = tmp_path / "tokens"
            self.notices: list[str] = []
            self.primed: object = None

        def search(self, store: Store, text: str, limit: int, profiles: object = None) -> list:
            return []

    scope = TurnScope(project="chat-a")
    q = "Who has a puppy?"  # no turn says puppy: BM25 finds nothing
    got = rank_turns(s, q, 3, nerve=Nerve(), scope=scope, weights=TurnWeights(related=0))
    assert got.turns and got.turns[0].node.claim == ROWS[0][1]
    assert all(t.node.attributes["project"] == "chat-a" for t in got.turns)  # not the hound
    off = rank_turns(s, q, 3, nerve=Nerve(), scope=scope, weights=TurnWeights(late=0, related=0))
    assert off.turns == []
    table_paths(tmp_path / "tokens", emb.name, emb.dimension)[0].write_text("junk\n")
    broken = rank_turns(s, q, 3, nerve=Nerve(), scope=scope, weights=TurnWeights(related=0))
    assert broken.turns == [] and any("token vectors ignored" in n for n in broken.notices)
