"""Property tests: hostile queries, dates and texts never crash or leak."""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from _search_helpers import Msg, add, ts

from memgraph.cli.output import emit
from memgraph.errors import UsageError
from memgraph.store import Store, open_store
from profiles.voice.output import LINE_CHARS, format_json, format_line
from profiles.voice.search import VoiceHit, VoiceQuery, parse_when, search_voice


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    s = open_store(tmp_path_factory.mktemp("props") / "memgraph.db")
    add(
        s,
        Msg('AND OR NOT NEAR "quoted" col:umn x* ^start', ts("2026-01-01"), uuid="1"),
        Msg("ordinary words about a schema", ts("2026-01-02"), uuid="2"),
        Msg("日本語のテキスト and émigré café", ts("2026-01-03"), uuid="3"),
    )
    yield s
    s.close()


QUERY_ALPHABET = st.sampled_from(list("abc AND OR NOT NEAR ( ) \" * ^ : - + { } , . ' 日é"))


@settings(max_examples=300, deadline=None)
@given(q=st.one_of(st.text(), st.text(alphabet=QUERY_ALPHABET)))
def test_any_query_never_raises(store: Store, q: str) -> None:
    try:
        hits = search_voice(store, VoiceQuery(query=q))
    except UsageError as exc:
        assert "nothing to search" in str(exc) and not q.strip()
        return
    assert all(isinstance(h, VoiceHit) for h in hits)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_date_parses_or_is_a_usage_error(text: str) -> None:
    for end in (False, True):
        try:
            when = parse_when(text, end_of_day=end)
        except UsageError as exc:
            assert str(exc).startswith("date: bad date")
        else:
            assert when.tzinfo is not None and when.utcoffset() == UTC.utcoffset(None)


def test_dates() -> None:
    assert parse_when("2026-04-14") == datetime(2026, 4, 14, tzinfo=UTC)
    assert parse_when("2026-04-14", end_of_day=True) == datetime(
        2026, 4, 14, 23, 59, 59, 999999, tzinfo=UTC
    )
    assert parse_when("2026-04-14T14:32:00Z") == datetime(2026, 4, 14, 14, 32, tzinfo=UTC)
    assert parse_when("2026-04-14T16:32:00+02:00") == datetime(2026, 4, 14, 14, 32, tzinfo=UTC)
    assert parse_when("2026-04-14 14:32") == datetime(2026, 4, 14, 14, 32, tzinfo=UTC)
    with pytest.raises(UsageError, match="--since"):
        parse_when("9999-12-31T23:59:59-23:59", flag="--since")
    with pytest.raises(UsageError):
        parse_when("2026-02-30")
    with pytest.raises(UsageError):
        parse_when("0999-01-01")


def _hit(text: str, constellation: str = "atlas", session: str = "80166115-x") -> VoiceHit:
    return VoiceHit(
        timestamp=ts("2026-04-14", "14:32"),
        constellation=constellation,
        session_id=session,
        project="p",
        text=text,
        classification=None,
        confidence=None,
        voice_page=None,
        node_id="n-1",
        score=-1.0,
    )


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text(max_size=20))
def test_one_line_form_is_one_safe_line(text: str, constellation: str) -> None:
    line = format_line(_hit(text, constellation))
    assert line.startswith("[2026-04-14 14:32 ")
    assert not any(unicodedata.category(c) == "Cc" for c in line)
    assert "\u2028" not in line and "\u2029" not in line
    body = line.split('] "', 1)[1][:-1]
    assert len(body) <= LINE_CHARS + 3
    if len(text) <= LINE_CHARS:
        assert len(body) == len(text)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_full_form_keeps_newlines_only(text: str) -> None:
    line = format_line(_hit(text), full=True)
    assert line.count("\n") == text.count("\n")
    assert not any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in line)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None)))
def test_json_output_is_exact_even_for_lone_surrogates(text: str) -> None:
    import io

    buf = io.BytesIO()
    wrapper = io.TextIOWrapper(buf, encoding="utf-8")
    real, sys.stdout = sys.stdout, wrapper
    try:
        emit(format_json(_hit(text)) + "\n")
    finally:
        sys.stdout = real
    data = buf.getvalue().decode("utf-8")  # always valid UTF-8
    assert json.loads(data)["text"] == text


def test_cut_counts_characters_not_bytes() -> None:
    line = format_line(_hit("é" * 200))
    assert line.endswith('"' + "é" * LINE_CHARS + '..."')
    assert format_line(_hit("a\nb\r\nc\td")).endswith('"a b  c d"')
