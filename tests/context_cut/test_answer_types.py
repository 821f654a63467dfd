"""Answer types (context_cut.answer_types): a question of a type ranks the turn that says one."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_cut.answer_types import (
    ANSWER_TYPES,
    asked_types,
    says_pastime,
    says_place,
    says_shown,
    says_title,
)
from context_cut.turn_weights import TurnWeights
from context_cut.turns import TurnScope, rank_turns
from memgraph.store import open_store
from profiles.voice.importers import ImportRequest, import_conversations

SPEAKERS = frozenset({"ana", "ben"})

# one case per registry entry: (question, the typed turn, an untyped turn with the same
# query words that is the better lexical hit: shorter)
CASES = {
    "when": ("When did Ana go hiking?", "We went hiking up the hill last weekend", "Hiking!"),
    "place": ("Where did Ana go hiking?", "We went hiking up the hill in Colorado", "Hiking!"),
    "title": (
        "What books about hiking does Ana like?",
        "The books I like about hiking: Wild Trails",
        "Books about hiking I like!",
    ),
    "pastime": (
        "What activities does Ana do?",
        "I love hiking up the hill activities",
        "Activities!",
    ),
    "shown": (
        "What has Ana painted?",
        "Here's the lake I painted last week, so proud",
        "Painted all day!",
    ),
}
FILLER = [
    "The weather is nice today",
    "Pottery is fun",
    "My cat sleeps all day",
    "Coffee first, then work",
]


def test_every_answer_type_has_a_case_and_a_knob() -> None:
    names = [kind.name for kind in ANSWER_TYPES]
    assert sorted(names) == sorted(CASES)  # a rule removed (or added untested) fails here
    knobs = {f.name for f in fields(TurnWeights)}
    assert set(names) <= knobs
    for kind in ANSWER_TYPES:  # each reads its own knob
        assert kind.weight(TurnWeights(**{kind.name: 3.0})) == 3.0  # type: ignore[arg-type]


def test_questions_of_each_type() -> None:
    def kinds(q: str) -> list[str]:
        return [kind.name for kind, _ in asked_types(q, TurnWeights())]

    assert kinds("When did Ana move?") == ["when"]
    assert kinds("Where did Ana move from?") == ["place"]
    assert kinds("Which city has Ben visited?") == ["place"]
    assert kinds("What country is Ana's grandma from?") == ["place"]
    assert kinds("What books has Ana read?") == ["title"]
    assert kinds("Which  classical musicians does Ana like?") == ["title"]
    assert kinds("What instruments does Ben play?") == ["pastime"]
    assert kinds("What LGBTQ+ events has Ben attended?") == ["pastime"]
    assert kinds("What has Ana painted?") == ["shown"]
    assert kinds("What items has Ben bought?") == ["shown"]
    assert kinds("What did Ana paint?") == []  # one painting, not what was done over time
    assert kinds("How many children does Ana have?") == []
    # a multiplier of 1.0 is off: the question is not even matched
    off = TurnWeights(when=1.0, place=1.0, title=1.0, pastime=1.0, shown=1.0)
    assert asked_types("Where did Ana move from?", off) == []


def test_turn_features() -> None:
    assert says_place("We moved here from Sweden", SPEAKERS)
    assert says_place("Took a trip to the Grand Canyon", SPEAKERS)
    assert says_place("In Rome, we ate well", SPEAKERS)
    assert not says_place("Thanks, Ana! I went to the park", SPEAKERS)
    assert not says_place("Hey Mel, I went to Ana's", frozenset({"ana", "melanie"}))
    assert not says_place("Stockholm is lovely", SPEAKERS)  # a sentence start is no name
    assert says_title('I loved "Becoming Nicole"', SPEAKERS)
    assert says_title("I read Charlotte's Web again", SPEAKERS)
    assert says_title("Reading The Lean Startup now", SPEAKERS)
    assert says_title("It was Matt Patterson, so good", SPEAKERS)
    assert not says_title("Thanks Ana, I read it", SPEAKERS)
    assert not says_title("Hey Ana Ben, look", SPEAKERS)  # speakers' names are no title
    assert says_pastime("I love painting", SPEAKERS)
    assert says_pastime("We went camping", SPEAKERS)
    assert says_pastime("I just signed up for a pottery class", SPEAKERS)
    assert not says_pastime("Painting is relaxing", SPEAKERS)
    assert says_shown("Look at this! [shares an image: a bowl]", SPEAKERS)
    assert says_shown("Here's my latest painting", SPEAKERS)
    assert not says_shown("I painted a lake", SPEAKERS)


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_typed_question_prefers_the_turn_of_its_type(name: str, tmp_path: Path) -> None:
    question, typed, plain = CASES[name]
    s = open_store(tmp_path / "mg.db")
    path = tmp_path / "chat.jsonl"
    rows = [plain, *FILLER, typed]
    with path.open("w", encoding="utf-8") as fh:
        for i, text in enumerate(rows, start=1):
            row = {"session": "s1", "speaker": "Ana" if i % 2 else "Ben", "id": f"D1:{i}"}
            fh.write(json.dumps({**row, "ts": "2023-05-01T10:00:00", "text": text}) + "\n")
    import_conversations(s, ImportRequest(path=path, project="chat"))
    alone = {"prev": 0.0, "next": 0.0, "prev2": 0.0, "next2": 0.0}
    alone |= {kind.name: 1.0 for kind in ANSWER_TYPES}

    def order(factor: float) -> list[str]:
        weights = TurnWeights(**{**alone, name: factor})  # type: ignore[arg-type]
        got = rank_turns(s, question, 10, scope=TurnScope(project="chat"), weights=weights)
        texts = [t.node.claim for t in got.turns]
        return [t for t in texts if t in (typed, plain)]

    assert order(1.0) == [plain, typed]  # the shorter turn is the better lexical hit
    assert order(5.0) == [typed, plain]  # but only the other says what was asked
    s.close()


# The ordered "shown" question pattern was one regex ``what.*has.*painted``, which
# backtracks cubically: "what has " x 1,000 took 47 s. It is now a linear ordered search.
_SHOWN_REGEX = re.compile(
    r"\b(?:what|which)\b.*\b(?:has|have)\b.*\b(?:painted|drawn|made|bought|created|built)\b",
    re.I,
)
_WORDS = ["what", "Which", "has", "have", "painted", "made", "whathas", "hasbeen", "x", "?", " "]


@given(st.lists(st.sampled_from(_WORDS), max_size=10), st.sampled_from([" ", "", "-", "\n"]))
def test_the_shown_question_pattern_answers_as_the_regex_it_replaces(
    words: list[str], sep: str
) -> None:
    question = sep.join(words)
    shown = next(kind for kind in ANSWER_TYPES if kind.name == "shown")
    assert shown.asks(question) == (_SHOWN_REGEX.search(question) is not None)


def test_a_hostile_question_does_not_backtrack() -> None:
    # hundreds of thousands of candidate starts: finishes at once when linear, would
    # run for days with the cubic regex (never a timing assertion: a hang fails CI)
    question = "what has " * 50_000
    assert [kind.name for kind, _f in asked_types(question, TurnWeights(shown=2.0))] == []
    for says in (says_place, says_title, says_pastime, says_shown):
        says(question + " in Paris", SPEAKERS)
