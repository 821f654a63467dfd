"""Hit windows: the part of a message that matched, not its first 120 characters."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from profiles.voice.snippet import first_match, highlight, query_terms, window


def test_query_terms() -> None:
    assert query_terms('fix "login  flow" auth* fix, "方案"') == [
        "fix",
        "login flow",
        "auth",
        "方案",
    ]
    assert query_terms('"unbalanced') == ["unbalanced"]
    assert query_terms("*** ,,,") == []


def test_whole_word_occurrence_wins_over_an_earlier_partial_one() -> None:
    text = "the factory makes facts; a fact is a fact"
    assert first_match(text, ["fact"]) == (text.index("fact is"), text.index("fact is") + 4)
    assert first_match("only factories here", ["fact"]) == (5, 9)
    assert first_match("nothing", ["fact"]) is None


def test_cjk_substring() -> None:
    text = "好的，切到方案B，然后修复登录"
    assert first_match(text, ["方案"]) == (5, 7)


def test_window_keeps_the_start_when_the_match_is_near_it() -> None:
    text = "fact " + "x" * 200
    cut, span = window(text, first_match(text, ["fact"]), 120)
    assert cut == text[:120] + "..." and span == (0, 4)


def test_window_moves_to_a_late_match() -> None:
    text = "a" * 300 + " the needle here " + "b" * 300
    span = first_match(text, ["needle"])
    cut, inner = window(text, span, 120)
    assert cut.startswith("...") and cut.endswith("...")
    assert inner is not None and cut[inner[0] : inner[1]] == "needle"
    assert len(cut) == 120 + 6
    assert cut[inner[0] - 40 : inner[0]] == text[span[0] - 40 : span[0]]  # context before


def test_window_at_the_end_of_the_text() -> None:
    text = "z" * 200 + " end"
    cut, inner = window(text, first_match(text, ["end"]), 120)
    assert cut == "..." + text[-120:] and inner is not None and cut[inner[0] : inner[1]] == "end"


def test_highlight_wraps_only_the_match() -> None:
    assert highlight("a fact b", (2, 6)) == "a \x1b[1;33mfact\x1b[0m b"
    assert highlight("text", None) == "text"


@given(st.text(max_size=400), st.text(min_size=1, max_size=5))
def test_window_always_contains_the_match(text: str, term: str) -> None:
    span = first_match(text, [term])
    cut, inner = window(text, span, 120)
    assert len(cut) <= 126
    if span is not None and inner is not None:
        assert (
            cut[inner[0] : inner[1]].casefold()
            == text[span[0] : inner[1] - inner[0] + span[0]].casefold()
        )


def test_render_highlights_only_on_a_tty_and_never_in_json() -> None:
    from datetime import UTC, datetime

    from profiles.voice.output import render_hits
    from profiles.voice.search import VoiceHit

    text = "y" * 150 + " we keep facts \x1b[31m here"
    hit = VoiceHit(
        timestamp=datetime(2026, 4, 14, 14, 32, tzinfo=UTC),
        constellation="atlas",
        session_id="80166115-a",
        project="atlas",
        text=text,
        classification=None,
        confidence=None,
        voice_page=None,
        node_id="n1",
        score=0.0,
    )
    plain = render_hits([hit], as_json=False, full=False, query="fact")
    assert "\x1b" not in plain and "we keep facts" in plain and plain.count('"...') == 1
    shown = render_hits([hit], as_json=False, full=False, query="fact", tty=True)
    assert shown.count("\x1b[1;33m") == 1 and "\x1b[1;33mfact\x1b[0ms" in shown
    assert "\x1b[31m" not in shown  # the text's own escape is still neutralised
    assert "\x1b[1;33m" not in render_hits([hit], as_json=True, full=False, query="f", tty=True)
