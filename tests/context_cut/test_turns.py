"""Turn-level recall (context_cut.turns) and conversation turns in context packets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from context_cut.api import RecallRequest, recall, select_context_cut
from context_cut.budget import node_text, packet_tokens
from context_cut.embedders import HashEmbedder
from context_cut.turn_weights import TurnWeights
from context_cut.turns import TurnScope, rank_turns, stem, words
from context_cut.vector_index import VectorIndex
from context_cut.vector_sync import sync_index
from context_cut.vectors import VectorNerve
from memgraph.documents import MemoryContextQuery
from memgraph.errors import UsageError
from memgraph.store import Store, open_store
from memgraph.store.memory import MemoryStore
from memgraph.store.sqlite import SQLiteStore
from profiles.voice.importers import ImportRequest, import_conversations

ROWS = [
    ("Ana", "I adopted a rescue dog last month, she is shy but sweet"),
    ("Ben", "How long have you been married?"),
    ("Ana", "Five years already, time flies!"),
    ("Ben", "My pottery class starts on Tuesday"),
    ("Ana", "What glaze colours will you use?"),
    ("Ben", "Blue and a deep green, like the lake"),
    ("Ana", "Ben, did you see the lake photos?"),
    ("Ben", "Ana, the lake photos are lovely"),
]


def _write(tmp_path: Path, name: str, rows: list[tuple[str, str]], session: str) -> Path:
    path = tmp_path / f"{name}.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i, (speaker, text) in enumerate(rows, start=1):
            row = {"session": session, "speaker": speaker, "ts": f"2023-05-0{1 + i // 4}T10:00:00"}
            fh.write(json.dumps({**row, "text": text, "id": f"D1:{i}"}) + "\n")
    return path


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    s: Store = open_store(tmp_path / "mg.db") if request.param == "sqlite" else MemoryStore()
    import_conversations(s, ImportRequest(path=_write(tmp_path, "chat-a", ROWS, "a1")))
    other = [("Cy", "We have been married for twenty years"), ("Di", "Pottery is fun")]
    import_conversations(s, ImportRequest(path=_write(tmp_path, "chat-b", other, "b1")))
    return s


def _texts(store: Store, text: str, **kw: object) -> list[str]:
    return [t.node.claim for t in rank_turns(store, text, 5, **kw).turns]  # type: ignore[arg-type]


def test_an_answer_inherits_from_the_question_before_it(store: Store) -> None:
    got = _texts(store, "how long married", scope=TurnScope(project="chat-a"))
    # "Five years already" shares no word with the query; its question does
    assert got[:2] == ["How long have you been married?", "Five years already, time flies!"]
    alone = TurnWeights(prev=0.0, next=0.0, prev2=0.0, next2=0.0)
    assert "Five years already, time flies!" not in _texts(
        store, "how long married", scope=TurnScope(project="chat-a"), weights=alone
    )


def test_scope_keeps_other_conversations_out(store: Store) -> None:
    got = _texts(store, "married pottery", scope=TurnScope(project="chat-b"))
    assert set(got) == {"We have been married for twenty years", "Pottery is fun"}
    everywhere = _texts(store, "married pottery")
    assert "We have been married for twenty years" in everywhere
    assert any("pottery class" in t for t in everywhere)


def test_a_named_speaker_ranks_by_who_spoke(store: Store) -> None:
    # both lake turns name the other person; the query asks about Ben
    got = _texts(store, "what did Ben say about the lake photos", scope=TurnScope(project="chat-a"))
    assert got[0] == "Ana, the lake photos are lovely"


def test_stems_match_as_prefixes() -> None:
    assert stem("colours") == "colour" and stem("camping") == "camp" and stem("pets") == "pets"
    assert words(["glazes", "art"]) == [("glazes", False), ("glaz", True), ("art", False)]
    assert words(["glazes"], stems=False) == [("glazes", False)]


def test_recall_modes(store: Store) -> None:
    hits = recall(store, RecallRequest(text="rescue dog", mode="bm25")).hits
    assert hits[0].node.attributes["speaker"] == "Ana" and hits[0].bm25_rank == 1
    with pytest.raises(UsageError, match="needs an embedder"):
        recall(store, RecallRequest(text="rescue dog", mode="vectors"))


def test_vector_and_hybrid_recall_are_scoped(tmp_path: Path, store: Store) -> None:
    if not isinstance(store, SQLiteStore):
        pytest.skip("vectors are exercised on SQLite")
    embedder = HashEmbedder(128)
    index = VectorIndex.open(path=":memory:")
    sync_index(store, index, embedder)
    nerve = VectorNerve(index, embedder, min_similarity=-1.0)
    for mode in ("vectors", "hybrid"):
        request = RecallRequest(text="married for years", project="chat-b", mode=mode)
        hits = recall(store, request, nerve).hits
        assert hits and {h.node.attributes["project"] for h in hits} == {"chat-b"}
    index.close()


def test_packet_turns_carry_date_and_speaker_and_provenance_goes_last(store: Store) -> None:
    query = MemoryContextQuery(text="how long married", budget_tokens=60, domain_id="voice:chat-a")
    packet = select_context_cut(store, query)
    assert packet.tokens_used <= 60 and packet_tokens(packet) == packet.tokens_used
    texts = [node_text(n) for n in packet.nodes]
    assert any("2023-05-01 10:00 Ben: How long have you been married?" in t for t in texts)
    # with room for two turns, the second turn beats the first turn's anchor and receipt
    assert len(packet.nodes) >= 2 and not packet.anchors
    roomy = select_context_cut(store, query.model_copy(update={"budget_tokens": 2000}))
    assert roomy.anchors and roomy.receipts  # provenance when the budget allows


def test_turn_index_quotes_words_and_scopes(tmp_path: Path) -> None:
    from memgraph.store.interfaces import indexes
    from memgraph.store.rows import VoiceScope

    s = open_store(tmp_path / "q.db")
    import_conversations(s, ImportRequest(path=_write(tmp_path, "chat-q", ROWS, "q1")))
    turns = indexes(s).turns
    assert turns is not None
    assert turns.rank_any([('lake" OR "x', False), ("NEAR(", True)], VoiceScope(), 5) == []
    hits = turns.rank_any([("lake", False)], VoiceScope(project="chat-q"), 5)
    assert len(hits) == 3 and all(score > 0 for _, score in hits)
    assert turns.rank_any([("lake", False)], VoiceScope(project="elsewhere"), 5) == []
    ids = [nid for nid, _ in hits]
    assert turns.in_scope([*ids, "n-missing"], VoiceScope(session_id="q1")) == set(ids)
    s.close()


def test_time_questions_and_time_expressions() -> None:
    from context_cut.answer_types import ANSWER_TYPES, says_when

    asks_when = next(kind for kind in ANSWER_TYPES if kind.name == "when").asks
    assert asks_when("When did Ana adopt the dog?")
    assert asks_when("In what year did Ben marry?")
    assert not asks_when("What glaze colours will Ben use?")
    assert says_when("I adopted a rescue dog last month")
    assert says_when("My pottery class starts on Tuesday")
    assert says_when("We moved here in 2019")
    assert not says_when("Blue and a deep green, like the lake")
    assert not says_when("Lastly, the yearbook")  # whole words only


def test_a_when_question_prefers_the_turn_that_says_when(store: Store) -> None:
    scope = TurnScope(project="chat-a")
    alone = {"prev": 0.0, "next": 0.0, "prev2": 0.0, "next2": 0.0}
    q = "when glaze colours pottery"
    glaze, starts = "What glaze colours will you use?", "My pottery class starts on Tuesday"
    # two query words make the glaze turn the better lexical hit...
    assert _texts(store, q, scope=scope, weights=TurnWeights(when=1.0, **alone))[:2] == [
        glaze,
        starts,
    ]
    # ...but only the other one says when
    assert _texts(store, q, scope=scope, weights=TurnWeights(when=5.0, **alone))[:2] == [
        starts,
        glaze,
    ]
    # a question that does not ask when is not affected
    got = _texts(
        store, "glaze colours pottery", scope=scope, weights=TurnWeights(when=5.0, **alone)
    )
    assert got[:2] == [glaze, starts]


def test_months_a_question_names() -> None:
    from context_cut.turns import months_named

    assert months_named("When did Ana go camping in June?") == {6}
    assert months_named("What did Ben paint on October 13, 2023?") == {10}
    assert months_named("What did they do in May and July?") == {5, 7}
    assert months_named("What may Ana do next?") == set()  # "may" the verb is not May
    assert months_named("What did Ana adopt?") == set()


def test_a_question_naming_a_month_prefers_turns_said_in_it(tmp_path: Path) -> None:
    s = open_store(tmp_path / "mg.db")
    path = tmp_path / "chat.jsonl"
    rows = [
        ("2023-05-20", "We went camping by the lake"),
        ("2023-06-24", "We went camping by the river"),
        ("2023-07-02", "Pottery is fun"),
        ("2023-07-09", "The weather is nice"),
    ]
    with path.open("w", encoding="utf-8") as fh:
        for i, (day, text) in enumerate(rows, start=1):
            row = {"session": f"s{i}", "speaker": "Ana", "ts": f"{day}T10:00:00", "id": f"D{i}:1"}
            fh.write(json.dumps({**row, "text": text}) + "\n")
    import_conversations(s, ImportRequest(path=path, project="chat"))
    scope = TurnScope(project="chat")
    lake, river = rows[0][1], rows[1][1]

    def top(q: str, month: float) -> list[str]:
        alone = TurnWeights(month=month, prev=0.0, next=0.0, prev2=0.0, next2=0.0, sess_share=0.0)
        return _texts(s, q, scope=scope, weights=alone)[:2]

    assert top("lake camping in June", 1.0) == [lake, river]  # two words beat one
    assert top("lake camping in June", 5.0) == [river, lake]  # but the river was in June
    assert top("lake camping in May", 5.0) == [lake, river]
    assert top("lake camping", 5.0) == [lake, river]  # no month named: no change


class _Asked:
    """A nerve that records what the dense side was asked (and finds nothing)."""

    def __init__(self) -> None:
        self.notices: list[str] = []
        self.asked: list[str] = []

    def search(
        self, store: Store, text: str, limit: int, profiles: object = None
    ) -> list[tuple[str, float]]:
        self.asked.append(text)
        return []


def test_the_dense_side_is_asked_without_the_speakers_names(store: Store) -> None:
    nerve = _Asked()
    q = "What did Ben say about the lake photos?"
    rank_turns(store, q, 5, nerve=nerve, scope=TurnScope(project="chat-a"))
    assert nerve.asked[-1] == "say lake photos"  # content words; Ben is a speaker here
    rank_turns(store, q, 5, nerve=nerve, scope=TurnScope(project="chat-a"), packet=True)
    assert nerve.asked[-1] == q  # a context packet asks the question as written
    as_asked = TurnWeights(dense_query=0)
    rank_turns(store, q, 5, nerve=nerve, scope=TurnScope(project="chat-a"), weights=as_asked)
    assert nerve.asked[-1] == q
