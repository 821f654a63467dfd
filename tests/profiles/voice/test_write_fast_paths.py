"""The page write path's shortcuts give exactly what the reference code gives.

Each shortcut (ASCII title tokens, the regex walk of ``md_escape``, libyaml for
memgraph's own frontmatter) is checked against a plain reimplementation of the
rule it speeds up, on generated text.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, date, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from profiles.voice import titles
from profiles.voice.frontmatter import _dump_yaml, split_frontmatter
from profiles.voice.pagetext import _LEAD, _ORDERED, PUNCT, _needs, md_escape

_ALPHABET = st.sampled_from(list("ab1 \t\n\\_*<>&#-+=~:.)9xZé̀K日本ß") + sorted(PUNCT))
TEXT = st.text(_ALPHABET, max_size=40) | st.text(max_size=40)


def _tokens_reference(text: str) -> list[str]:
    folded = unicodedata.normalize("NFD", titles._URL.sub(" ", text).lower())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return titles._TOKEN.findall(plain)


def _candidate_reference(word: str) -> bool:
    if len(word) < (3 if word.isascii() else 2) or word in titles.STOPWORDS:
        return False
    return not any(c.isdigit() for c in word)


def _md_escape_reference(text: str) -> str:
    out: list[str] = []
    start = 0
    if text and text[0] in _LEAD:
        out.append(_LEAD[text[0]])
        start = 1
    ordered = _ORDERED.match(text)
    mark = ordered.end() - 1 if ordered else -1
    for i in range(start, len(text)):
        c = text[i]
        if c == "\\":
            nxt = text[i + 1] if i + 1 < len(text) else ""
            out.append("\\\\" if nxt == "" or nxt in PUNCT else "\\")
        elif c in PUNCT and (i == mark or _needs(text, i)):
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


@settings(max_examples=400)
@given(TEXT)
def test_title_tokens_and_candidates_match_the_unicode_rule(text: str) -> None:
    assert titles.tokens(text) == _tokens_reference(text)
    for word in titles.tokens(text):
        assert titles._candidate(word) == _candidate_reference(word)


@settings(max_examples=400)
@given(TEXT)
def test_md_escape_matches_the_character_walk(text: str) -> None:
    assert md_escape(text) == _md_escape_reference(text)


def test_counts_are_shared_by_the_two_title_calls_and_follow_new_texts() -> None:
    a = titles._counts(["hook install settings", "hook again"])
    assert titles._counts(["hook install settings", "hook again"]) is a
    b = titles._counts(["sqlite words entirely"])
    assert b is not a and "sqlite" in b[0] and "hook" not in b[0]


@settings(max_examples=200)
@given(
    st.dictionaries(
        st.sampled_from(["title", "project", "session_id", "cwd", "branch", "x"]),
        st.text(max_size=30) | st.integers() | st.lists(st.text(max_size=10), max_size=3),
        max_size=6,
    )
)
def test_own_frontmatter_parses_alike_with_either_loader(extra: dict[str, object]) -> None:
    data: dict[str, object] = {
        "created": date(2026, 4, 14),
        "valid_from": datetime(2026, 4, 14, 9, tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        **extra,
    }
    try:
        text = "---\n" + _dump_yaml(data) + "---\nbody"
    except Exception:  # a value the dumper refuses (a fence line): not a page
        return
    assert split_frontmatter(text, ours=True) == split_frontmatter(text)


def test_frontmatter_with_an_alias_takes_the_guarded_loader() -> None:
    import pytest

    from profiles.voice.frontmatter import PageError

    text = "---\na: &x [1]\nb: *x\n---\n"
    with pytest.raises(PageError, match="aliases"):
        split_frontmatter(text, ours=True)


_MARKERS = [
    b'"user"',
    b'"tool_result"',
    b"the user said:",
    b"User has answered your questions",
    b'"is_error":',
    b"true",
    b" true",
    b'"is_error":true',
    b'"is_error": true',
    b"queue",
    b'"queue-operation"',
    b'"queued_command"',
    b'"local_command"',
    b'"isSidechain":true',
    b"This is a side question from the user",
    b" ",
    b'"',
]


def _may_hold_human_reference(raw: bytes) -> bool:
    from profiles.voice.readers import claude as c

    if c._USER not in raw:
        return c._QUEUE_OP in raw or c._QUEUED_COMMAND in raw or c._LOCAL_COMMAND in raw
    if c._TOOL_RESULT in raw and not (
        c._SAID in raw or c._ANSWERED in raw or c._IS_ERROR in raw or c._IS_ERROR_SP in raw
    ):
        return False
    if c._SIDECHAIN in raw or c._SIDECHAIN_SP in raw:
        return c._SIDE_QUESTION in raw
    return True


@settings(max_examples=2000)
@given(st.lists(st.sampled_from(_MARKERS) | st.binary(max_size=4), max_size=10))
def test_claude_byte_precheck_matches_the_marker_rule(parts: list[bytes]) -> None:
    from profiles.voice.readers.claude import may_hold_human

    raw = b"".join(parts)
    assert may_hold_human(raw) == _may_hold_human_reference(raw)


_PAGE_LINES = st.sampled_from(
    [
        "---",
        "title: x",
        "tags: [a, b]",
        "created: 2025-01-02",
        "bad: [",
        "",
        "\r",
        "# Title",
        "# Another",
        "## Messages",
        "## Classifications",
        "### 2025-01-02",
        "### 2025-01-03",
        "### not a day",
        "| 1 | 10:00 | hi |",
        "|---|",
        '<!-- mg2 {"uuid": "u1", "ts": "2025-01-02T10:00:00Z"} -->',
        '<!-- mg2 {"uuid": "u1", "ts": "2025-01-02T10:00:00Z"} -->',
        '<!-- mg2 {"uuid": "u2", "version": 2} -->',
        "<!-- mg2 not json -->",
        '<!-- mg {"uuid": "v1"} -->',
        "<!-- mg2 [1] -->",
        ">",
        "> **10:00** — hello",
        "> more",
        ">not quoted",
        "a person's note",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PAGE_LINES | st.text(max_size=12), max_size=30), st.booleans())
def test_owned_digest_of_is_the_blocks_digest(lines: list[str], crlf: bool) -> None:
    """record_written's digest without blocks equals the digest of split_blocks."""
    from profiles.voice.pageblocks import owned_digest, split_blocks
    from profiles.voice.pagedigest import owned_digest_of

    text = ("\r\n" if crlf else "\n").join(lines)
    assert owned_digest_of(text) == owned_digest(split_blocks(text, ours=True))
