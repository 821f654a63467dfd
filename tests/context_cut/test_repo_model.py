"""The repo cut's fitted model (context_cut/repo_model.py): its signals, the
clause split, the short-text priors, and the sum ``rank_modules`` ranks by."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from context_cut.repo_cut import TEST_WEIGHT, RankOptions, ranked_matches
from context_cut.repo_index import ModuleIndex
from context_cut.repo_model import (
    EVIDENCE,
    RECENT,
    SHORT_TERMS,
    WEIGHTS,
    clause_scores,
    model_scores,
    signals,
)
from context_cut.repo_query import query_weights


def _index() -> ModuleIndex:
    tf = {
        "app/store.py": Counter({"store": 9, "sqlite": 6, "write": 4, "row": 3}),
        "app/cli.py": Counter({"cli": 8, "command": 6, "option": 5, "help": 2}),
        "app/render.py": Counter({"render": 7, "page": 6, "markdown": 5, "vault": 3}),
        "app/big.py": Counter({f"w{i}": 3 for i in range(300)}),
        "tests/test_store.py": Counter({"store": 5, "test": 9}),
    }
    history = ModuleIndex({"app/render.py": Counter({"page": 2, "title": 1})}, set(), [])
    symbols = ModuleIndex({"app/cli.py": Counter({"main": 1, "help": 1})}, set(), [])
    return ModuleIndex(
        tf,
        {"tests/test_store.py"},
        [("app/cli.py", "app/store.py"), ("app/cli.py", "app/render.py")],
        history=history,
        history100=history,
        symbols=symbols,
        newest={"app/render.py": 0, "app/big.py": 3, "app/cli.py": 150},
        touches={"app/render.py": 2, "app/big.py": 1},
    )


def test_each_clause_of_a_many_topic_text_has_its_own_first_module() -> None:
    index = _index()
    text = "store: sqlite row writes; render markdown pages, cli command options"
    got = clause_scores(index, text, query_weights(text))
    assert got["app/store.py"] == 1.0 and got["app/render.py"] == 1.0
    assert got["app/cli.py"] == 1.0  # third clause
    # one clause (or clauses of one word): no clause signal
    assert clause_scores(index, "sqlite row writes", query_weights("sqlite row writes")) == {}
    assert clause_scores(index, "store; render", query_weights("store; render")) == {}


def test_signals_are_normalised_and_the_priors_follow_the_history() -> None:
    index = _index()
    sig = signals(index, "render the vault page title")
    assert set(sig) == set(WEIGHTS)
    for name, values in sig.items():
        assert all(0.0 <= v <= 1.0 for v in values.values()), name
    assert sig["text"]["app/render.py"] == 1.0 and sig["past50"] == {"app/render.py": 1.0}
    assert sig["recency"]["app/render.py"] == 1.0 and sig["recency"]["app/big.py"] < 1.0
    assert "app/cli.py" not in sig["recency"]  # its newest commit is past RECENT
    assert RECENT <= 150
    assert max(sig["size"], key=sig["size"].__getitem__) == "app/big.py"
    # short texts lean on the priors, long ones do not
    assert len(query_weights("render the vault page title")) <= SHORT_TERMS
    assert sig["short_recency"] == sig["recency"]
    long_text = "render markdown vault page title store sqlite row cli command option help"
    assert signals(index, long_text)["short_recency"] == {}
    assert signals(index, "page", history=False)["past50"] == {}
    assert signals(index, "`cli.py`", mentions=False)["named"] == {}


def test_the_score_is_the_weighted_sum_and_tests_weigh_half() -> None:
    index = _index()
    text = "sqlite store writes"
    sig = signals(index, text)
    scores, matched = model_scores(index, text)
    for p in index.tf:
        want = sum(WEIGHTS[n] * v.get(p, 0.0) for n, v in sig.items())
        assert abs(scores.get(p, 0.0) - want) < 1e-12
    assert matched == {p for n in EVIDENCE for p in sig[n]}
    ranked, got = ranked_matches(index, text)
    assert got == matched and ranked[0][0] == "app/store.py"
    by = dict(ranked)
    assert abs(by["tests/test_store.py"] - TEST_WEIGHT * scores["tests/test_store.py"]) < 1e-12
    # without the fallback only modules some word matched are ranked
    only = dict(ranked_matches(index, text, RankOptions(fallback=False))[0])
    assert set(only) <= matched and "app/big.py" in by and "app/big.py" not in only


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=3000))
def test_any_text_gives_bounded_finite_scores(text: str) -> None:
    index = _index()
    scores, matched = model_scores(index, text)
    assert set(scores) <= set(index.tf) and matched <= set(index.tf)
    assert all(0.0 <= s < sum(WEIGHTS.values()) + 1e-9 for s in scores.values())
