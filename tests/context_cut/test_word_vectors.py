"""Word vectors (context_cut.word_vectors): the table, its files, related words,
and the second lexical round of the turn ranking that searches them."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_cut.embedders import HashEmbedder
from context_cut.turn_weights import TurnWeights
from context_cut.turns import TurnScope, rank_turns
from context_cut.vector_index import VectorIndex
from context_cut.vector_sync import sync_index
from context_cut.vectors import VectorNerve
from context_cut.word_table import _LOADED, is_word, load_table, read_table, table_paths
from context_cut.word_vectors import (
    message_texts,
    nerve_table,
    related_words,
    sync_words,
    vocabulary,
)
from memgraph.store import Store, open_store
from profiles.voice.importers import ImportRequest, import_conversations

# words placed on purpose: "instruments" is near violin and guitar, "pets" near
# "hamster"; every other text falls on a hashed direction of its own
_NEAR = {
    "instruments": (1.0, 0.0, 0.0),
    "instrument": (0.98, 0.2, 0.0),
    "violin": (0.8, 0.6, 0.0),
    "guitar": (0.75, 0.0, 0.66),
    "cello": (0.7, 0.7, 0.14),
    "hamster": (0.0, 0.1, 0.99),
    "pets": (0.0, 0.0, 1.0),
}


DIM = 64


class Placed:
    """An embedder with chosen directions for a few words (dimension 64)."""

    def __init__(self) -> None:
        self.hash = HashEmbedder(61)
        self.calls: list[list[str]] = []

    @property
    def name(self) -> str:
        return "placed-v1"

    @property
    def dimension(self) -> int:
        return DIM

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        out = []
        for text in texts:
            if text in _NEAR:
                out.append([*_NEAR[text], *[0.0] * (DIM - 3)])
            else:  # away from the placed words: only the other slots
                out.append([0.0, 0.0, 0.0, *self.hash.embed([text])[0]])
        return out


TEXTS = [
    "I practise the violin every night",
    "My guitar needs new strings",
    "Our hamster escaped again!",
    "Cello lessons start on Monday, cello is hard",
]


def test_vocabulary_is_folded_letters_only_without_stopwords() -> None:
    got = vocabulary(["Café déjà vu, the 2023 cafe's x1 ok", "Über über"])
    assert got.words == ["cafe", "deja", "uber"]  # folded, deduplicated, sorted; "the" a stopword
    assert got.df == [1, 1, 1] and got.texts == 2  # texts a word is in, not times said
    assert vocabulary(["aaa bbb ccc", "bbb ccc", "ccc"], limit=2).words == ["bbb", "ccc"]
    assert not is_word("a1b2") and not is_word("the") and is_word("violin")


def test_sync_writes_two_files_and_reads_them_back(tmp_path: Path) -> None:
    emb = Placed()
    report = sync_words(TEXTS, emb, tmp_path)
    assert report.words == len(vocabulary(TEXTS).words) and report.embedded == report.words
    words_path, f32_path = table_paths(tmp_path, emb.name, emb.dimension)
    head, *rest = words_path.read_text(encoding="utf-8").splitlines()
    assert head == f"memgraph-word-vectors 2 placed_v1 64 {report.words} 4"
    assert rest[:2] == ["cello\t1", "escaped\t1"] and len(rest) == report.words
    assert f32_path.stat().st_size == report.words * DIM * 4
    table, why = read_table(tmp_path, emb.name, emb.dimension)
    assert why is None and table is not None
    assert np.allclose(np.linalg.norm(table.matrix, axis=1), 1.0, atol=1e-5)
    # nothing new: nothing embedded, the files left alone
    mtime = f32_path.stat().st_mtime_ns
    again = sync_words(TEXTS, emb, tmp_path)
    assert again.embedded == 0 and again.reused == report.words
    assert f32_path.stat().st_mtime_ns == mtime
    # a new text: only its new words are embedded; vectors of the others are kept
    emb.calls.clear()
    more = sync_words([*TEXTS, "The piano arrived"], emb, tmp_path)
    assert more.embedded == 2 and sorted(emb.calls[0]) == ["arrived", "piano"]
    # `memgraph index --rebuild` ("drop and re-embed everything") re-embeds every word
    redone = sync_words([*TEXTS, "The piano arrived"], emb, tmp_path, rebuild=True)
    assert redone.embedded == redone.words == more.words and redone.reused == 0
    grown, _ = read_table(tmp_path, emb.name, emb.dimension)
    assert grown is not None
    assert np.array_equal(grown.matrix[grown.index["violin"]], table.matrix[table.index["violin"]])


def _truncate(f32: Path, words: Path) -> None:
    f32.write_bytes(f32.read_bytes()[:-4])


def _bad_header(f32: Path, words: Path) -> None:
    words.write_text("hello\nviolin\n", encoding="utf-8")


def _not_utf8(f32: Path, words: Path) -> None:
    words.write_bytes(b"\xff\xfe\x00garbage")


def _count_off(f32: Path, words: Path) -> None:
    lines = words.read_text(encoding="utf-8").splitlines()
    words.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")


def _duplicate(f32: Path, words: Path) -> None:
    lines = words.read_text(encoding="utf-8").splitlines()
    words.write_text("\n".join([lines[0], *lines[1:-1], lines[1]]) + "\n", encoding="utf-8")


def _bad_count(f32: Path, words: Path) -> None:
    lines = words.read_text(encoding="utf-8").splitlines()
    words.write_text("\n".join([lines[0], "violin\tmany", *lines[2:]]) + "\n", encoding="utf-8")


def _nan(f32: Path, words: Path) -> None:
    data = bytearray(f32.read_bytes())
    data[:4] = np.array([math.nan], dtype="<f4").tobytes()
    f32.write_bytes(bytes(data))


def _other_model(f32: Path, words: Path) -> None:
    text = words.read_text(encoding="utf-8").replace("placed_v1 64", "placed_v1 65", 1)
    words.write_text(text, encoding="utf-8")


def _no_matrix(f32: Path, words: Path) -> None:
    f32.unlink()


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_truncate, "bytes"),
        (_bad_header, "bad header"),
        (_not_utf8, "not UTF-8"),
        (_count_off, "header says"),
        (_duplicate, "duplicate"),
        (_bad_count, "malformed"),
        (_nan, "non-finite"),
        (_other_model, "another model"),
        (_no_matrix, "f32"),
    ],
)
def test_a_damaged_table_is_ignored_with_a_reason_then_rebuilt(
    tmp_path: Path, damage: object, reason: str
) -> None:
    emb = Placed()
    sync_words(TEXTS, emb, tmp_path)
    words_path, f32_path = table_paths(tmp_path, emb.name, emb.dimension)
    assert callable(damage)
    damage(f32_path, words_path)
    table, why = load_table(tmp_path, emb.name, emb.dimension)
    assert table is None and why is not None and reason in why and "\n" not in why
    report = sync_words(TEXTS, emb, tmp_path)
    assert report.rebuilt is not None and "rebuilt" in report.line()
    table, why = read_table(tmp_path, emb.name, emb.dimension)
    assert why is None and table is not None and table.words == vocabulary(TEXTS).words


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(words=st.binary(max_size=200), matrix=st.binary(max_size=200))
def test_any_bytes_read_as_a_table_or_a_reason(tmp_path: Path, words: bytes, matrix: bytes) -> None:
    words_path, f32_path = table_paths(tmp_path, "placed-v1", DIM)
    words_path.write_bytes(words)
    f32_path.write_bytes(matrix)
    table, why = read_table(tmp_path, "placed-v1", DIM)
    assert (table is None) != (why is None)


def test_no_table_yet_is_no_reason(tmp_path: Path) -> None:
    assert read_table(tmp_path, "placed-v1", DIM) == (None, None)


def test_related_words_are_close_not_forms_not_skipped(tmp_path: Path) -> None:
    emb = Placed()
    sync_words([*TEXTS, "an instrument"], emb, tmp_path)
    table, _ = read_table(tmp_path, emb.name, emb.dimension)
    assert table is not None
    # "instruments" is not stored: embedded once, then remembered
    emb.calls.clear()
    got = related_words(table, emb, ["instruments"], threshold=0.5, per_term=5)
    assert [r.word for r in got] == ["violin", "guitar", "cello"]  # not "instrument": a form
    assert got[0].source == "instruments" and got[0].similarity == pytest.approx(0.8)
    related_words(table, emb, ["instruments"], threshold=0.5, per_term=5)
    assert emb.calls == [["instruments"]]
    assert [
        r.word for r in related_words(table, emb, ["instruments"], threshold=0.79, per_term=5)
    ] == ["violin"]
    assert len(related_words(table, emb, ["instruments"], threshold=0.5, per_term=2)) == 2
    skipped = related_words(table, emb, ["instruments"], threshold=0.5, per_term=5, skip={"guitar"})
    assert [r.word for r in skipped] == ["violin", "cello"]
    # a common word (in more than a share of the texts) is neither found nor expanded
    table.df[table.index["guitar"]] = 3  # of 5 texts
    common = related_words(table, emb, ["instruments"], threshold=0.5, per_term=5, common=0.5)
    assert [r.word for r in common] == ["violin", "cello"]
    table.df[table.index["violin"]] = 3
    assert related_words(table, emb, ["violin"], threshold=0.1, per_term=5, common=0.5) == []
    # without an embedder, a term the table lacks is left out
    fresh, _ = read_table(tmp_path, emb.name, emb.dimension)
    assert (
        fresh is not None
        and related_words(fresh, None, ["instruments"], threshold=0.5, per_term=5) == []
    )


def _conversation(tmp_path: Path) -> Path:
    rows = [
        ("Ana", "I practise the violin every night"),
        ("Ben", "That sounds lovely"),
        ("Ana", "Our hamster escaped again!"),
        ("Ben", "Which instruments do you play in the band?"),
        ("Ana", "Only the drums there"),
        ("Ben", "Nice, I love drums"),
    ]
    path = tmp_path / "chat.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i, (speaker, text) in enumerate(rows, start=1):
            row = {"session": "a1", "speaker": speaker, "ts": "2023-05-01T10:00:00"}
            fh.write(json.dumps({**row, "text": text, "id": f"D1:{i}"}) + "\n")
    return path


@pytest.fixture
def chat(tmp_path: Path) -> Store:
    store = open_store(tmp_path / "mg.db")
    import_conversations(store, ImportRequest(path=_conversation(tmp_path), project="chat"))
    return store


def _nerve(store: Store, tmp_path: Path) -> VectorNerve:
    emb = Placed()
    index = VectorIndex.open(path=":memory:")
    sync_index(store, index, emb)
    sync_words(message_texts(store), emb, tmp_path / "words")
    return VectorNerve(index, emb, min_similarity=-1.0, words_dir=tmp_path / "words")


def test_a_question_word_lifts_the_turn_that_names_a_related_word(
    chat: Store, tmp_path: Path
) -> None:
    nerve = _nerve(chat, tmp_path)
    q = "What instruments does Ana play?"
    scope = TurnScope(project="chat")
    violin = "I practise the violin every night"

    def place(weights: TurnWeights) -> tuple[int, list[str], list[tuple[str, float]]]:
        got = rank_turns(chat, q, 6, nerve=nerve, scope=scope, weights=weights)
        claims = [t.node.claim for t in got.turns]
        return claims.index(violin), got.related, [(t.node.id, t.score) for t in got.turns]

    # the related round alone: "what instruments" is also an answer type ("I love drums")
    off, none, _ = place(TurnWeights(related=0.0, pastime=1.0))
    on, related, first = place(TurnWeights(related=1.0, pastime=1.0))
    own, _, _ = place(TurnWeights(related=1.0, related_scale=False, pastime=1.0))
    assert none == [] and "violin" in related and "ana" not in related
    assert on < off and own < off
    # deterministic: the same ranking again, and from a fresh read of the files
    assert place(TurnWeights(related=1.0, pastime=1.0))[2] == first
    _LOADED.clear()
    assert place(TurnWeights(related=1.0, pastime=1.0))[2] == first
    nerve.index.close()


def test_a_packet_searches_the_related_words_by_default(chat: Store, tmp_path: Path) -> None:
    # a context packet ranks with packet=True and the default weights: the related
    # round runs there too, and lifts the violin turn as in recall
    nerve = _nerve(chat, tmp_path)
    q = "What instruments does Ana play?"
    scope = TurnScope(project="chat")
    got = rank_turns(chat, q, 6, nerve=nerve, scope=scope, packet=True)
    off = rank_turns(
        chat, q, 6, nerve=nerve, scope=scope, packet=True, weights=TurnWeights(related=0.0)
    )
    assert "violin" in got.related and off.related == []
    violin = "I practise the violin every night"
    score = {t.node.claim: t.score for t in got.turns}
    assert score[violin] > {t.node.claim: t.score for t in off.turns}[violin]
    nerve.index.close()


def test_a_damaged_table_leaves_the_ranking_as_without_it(chat: Store, tmp_path: Path) -> None:
    nerve = _nerve(chat, tmp_path)
    assert nerve.words_dir is not None
    _, f32_path = table_paths(nerve.words_dir, "placed-v1", DIM)
    f32_path.write_bytes(b"\x00" * 10)
    q = "What instruments does Ana play?"
    scope = TurnScope(project="chat")
    got = rank_turns(chat, q, 3, nerve=nerve, scope=scope, weights=TurnWeights(related=1.0))
    off = rank_turns(chat, q, 3, nerve=nerve, scope=scope, weights=TurnWeights(related=0.0))
    assert got.related == [] and [t.node.id for t in got.turns] == [t.node.id for t in off.turns]
    (notice,) = [n for n in got.notices if "word vectors" in n]
    assert "bytes" in notice and "memgraph index" in notice
    nerve.index.close()


def test_a_nerve_without_a_word_directory_has_no_table() -> None:
    assert nerve_table(object()) == (None, None, None)
