from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.errors import ReaderError
from profiles.session.emit import NoteRow, render_yaml
from profiles.session.notes import parse_session_yaml, render_session_notes
from profiles.session.records import fixed_iso

texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            texts, st.datetimes(datetime(1970, 1, 1), datetime(2100, 1, 1), timezones=st.just(UTC))
        ),
        max_size=5,
    )
)
def test_any_text_round_trips(items: list[tuple[str, datetime]]) -> None:
    rows = [
        NoteRow(fixed_iso(at), text, "cli", f"n-{i:016x}") for i, (text, at) in enumerate(items)
    ]
    doc = parse_session_yaml(render_yaml("s1", "alice", "2026-01-01T00:00:00.000000Z", rows))
    assert [n.text for n in doc.notes] == [t for t, _ in items]
    assert [n.timestamp for n in doc.notes] == [at for _, at in items]
    assert parse_session_yaml(render_session_notes(doc)) == doc


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_input_is_parsed_or_a_reader_error(text: str) -> None:
    try:
        parse_session_yaml(text)
    except ReaderError as exc:
        assert str(exc).startswith("<text>: ")


@pytest.mark.parametrize("cut", [10, 50, 120, 200, 260])
def test_truncated_file_never_parses_to_wrong_data(cut: int) -> None:
    rows = [
        NoteRow("2026-01-01T00:00:00.000000Z", f"note {i} " * 5, "cli", f"n-{i:016x}")
        for i in range(3)
    ]
    full = render_yaml("s1", "alice", "2026-01-01T00:00:00.000000Z", rows)
    try:
        doc = parse_session_yaml(full[:cut])
    except ReaderError:
        return
    # a cut that still parses may only lose whole trailing notes
    assert all(n.text in {r.text for r in rows} or full.find(n.text) >= 0 for n in doc.notes)
