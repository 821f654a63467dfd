"""The PostgreSQL store's query parsing and FTS5-equal counting (pure Python, no server)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.fts import to_fts5_query
from memgraph.store.postgres.fts import (
    count_hits,
    hits,
    parse_query,
    to_tsquery_text,
    token_count,
    tokens,
)

WORDS = ["a", "ab", "fact", "facts", "Fact", "café", "cafe", "中文", "x_y", "1a", "page"]
SEPS = ["", " ", "_", "-", ". ", "\n", "\x00", "/", "é"]
text_st = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPS)), max_size=15).map(
    lambda parts: "".join(w + s for w, s in parts)
)
query_st = st.sampled_from(
    ["fact", "fact*", '"page a"', "a b", "ab*", '"a a"', "cafe", "x", "a*", "中文", "1a"]
)


@settings(max_examples=300, deadline=None)
@given(text_st, query_st)
def test_counting_equals_token_matching(text: str, query: str) -> None:
    phrases = parse_query(query)
    assert count_hits(phrases, text) == [hits(p, tokens(text)) for p in phrases]


@settings(max_examples=200, deadline=None)
@given(text_st)
def test_token_count_is_the_token_list_length(text: str) -> None:
    assert token_count(text) == len(tokens(text))


def test_queries_mean_what_fts5_queries_mean() -> None:
    assert to_tsquery_text('fix "login flow" auth*') == "'fix' & ('login' <-> 'flow') & 'auth':*"
    for hostile in ('"', "NEAR(", "a:b", "*", "-", "AND OR NOT", "'; DROP TABLE nodes;--", "\\"):
        # searchable exactly when FTS5 finds something to search (the contract
        # suite runs these queries against the server: none is refused)
        assert bool(to_tsquery_text(hostile)) == bool(to_fts5_query(hostile))
    assert parse_query("Déjà_vu") == [(("deja", "vu"), False)]
