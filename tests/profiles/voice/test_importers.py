"""`memgraph import conversations`: ChatGPT, Claude.ai and JSONL exports -> voice messages."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgraph.errors import ReaderError, UsageError
from memgraph.store import Store, open_store
from profiles.voice.importers import ImportRequest, import_conversations, read_export
from profiles.voice.importers.formats import FormatError, detect, parse
from profiles.voice.nodes import message_node_id, session_node_id

FIXTURES = Path(__file__).parent / "fixtures" / "imports"
CHATGPT = FIXTURES / "chatgpt_conversations.json"
CLAUDE = FIXTURES / "claude_conversations.json"
JSONL = FIXTURES / "conversation.jsonl"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(tmp_path / "mg.db")


def messages(store: Store) -> dict[str, Any]:
    return {n.id: n for n in store.iter_nodes(profile="voice", kind="message")}


@pytest.mark.parametrize(
    ("path", "fmt"), [(CHATGPT, "chatgpt"), (CLAUDE, "claude"), (JSONL, "jsonl")]
)
def test_format_detected_from_content(path: Path, fmt: str) -> None:
    assert detect(path.read_bytes()) == fmt


def test_chatgpt_every_speaker_with_operator_time_and_session(store: Store) -> None:
    result = import_conversations(store, ImportRequest(path=CHATGPT))
    assert (result.format, result.project, result.conversations) == ("chatgpt", "chatgpt", 2)
    assert result.messages == result.new == 5 and result.bad_records == 0
    # the hidden system prompt and the tool's quote are not anyone's words: counted
    assert result.skipped == {"role_system": 1, "role_tool": 1}
    got = messages(store)
    sid = "6a1f0c2e-0000-4000-8000-000000000001"
    user = got[message_node_id(sid, "m1")]
    assert user.claim.startswith("My sourdough starter smells")
    assert user.attributes["speaker"] == "user" and user.attributes["operator"] is True
    assert user.attributes["session_id"] == sid and user.attributes["harness"] == "chatgpt"
    assert user.valid_from == datetime.fromtimestamp(1714000010.5, UTC)
    assert user.title.startswith("user: My sourdough")
    bot = got[message_node_id(sid, "m2")]
    assert bot.attributes["speaker"] == "assistant" and bot.attributes["operator"] is False
    # an image part is not text; the words beside it are kept
    assert got[message_node_id(sid, "m4")].claim == "Here is a photo of the jar after feeding."
    with store.reader() as reader:
        session = reader.get_nodes([session_node_id(sid)]).get(session_node_id(sid))
    assert session is not None and session.attributes["message_count"] == 3
    assert session.attributes["conversation_title"] == "Sourdough starter help"
    # turns link to their neighbours in conversation order
    assert user.attributes["prev_turn"] is None
    assert user.attributes["next_turn"] == bot.id
    assert bot.attributes["prev_turn"] == user.id


def test_claude_content_blocks_and_human_operator(store: Store) -> None:
    result = import_conversations(store, ImportRequest(path=CLAUDE))
    assert (result.format, result.messages, result.bad_records) == ("claude", 3, 0)
    sid = "c0a8e1b2-0000-4000-8000-00000000000a"
    got = messages(store)
    answer = got[message_node_id(sid, "c0a8e1b2-0000-4000-8000-0000000000a2")]
    assert answer.claim.startswith("About 30 to 45 minutes")  # empty text, content blocks
    assert answer.attributes["speaker"] == "assistant" and answer.attributes["operator"] is False
    human = got[message_node_id(sid, "c0a8e1b2-0000-4000-8000-0000000000a1")]
    assert human.attributes["operator"] is True
    assert human.valid_from == datetime(2024, 6, 1, 9, 0, 5, tzinfo=UTC)


def test_jsonl_ids_times_operator_and_project_from_file(store: Store) -> None:
    result = import_conversations(store, ImportRequest(path=JSONL))
    assert (result.format, result.project, result.conversations) == ("jsonl", "conversation", 2)
    got = messages(store)
    first = got[message_node_id("book-club-1", "D1:1")]
    assert first.attributes["operator"] is True and first.attributes["speaker"] == "Ines"
    assert first.valid_from == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # naive = UTC
    tomas = got[message_node_id("book-club-1", "D1:2")]
    assert tomas.attributes["operator"] is None  # the export does not say
    (no_id,) = [n for n in got.values() if n.attributes["session_id"] == "book-club-2"]
    assert no_id.valid_from == datetime.fromtimestamp(1684000000, UTC)
    assert str(no_id.attributes["record_uuid"]).startswith("c-")


def test_reimport_writes_nothing(store: Store) -> None:
    for path in (CHATGPT, CLAUDE, JSONL):
        import_conversations(store, ImportRequest(path=path))
    before = store.counts()
    for path in (CHATGPT, CLAUDE, JSONL):
        again = import_conversations(store, ImportRequest(path=path))
        assert again.new == again.updated == again.nodes_written == 0
        assert again.unchanged == again.messages > 0
    assert store.counts() == before


def test_changed_text_keeps_the_stored_verbatim_text(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    row = {"session": "s", "speaker": "A", "ts": "2024-01-01", "id": "1"}
    path.write_text(json.dumps({**row, "text": "first words"}) + "\n", encoding="utf-8")
    import_conversations(store, ImportRequest(path=path))
    path.write_text(json.dumps({**row, "text": "other words"}) + "\n", encoding="utf-8")
    again = import_conversations(store, ImportRequest(path=path))
    assert again.skipped == {"changed_text": 1} and again.new == again.updated == 0
    assert "text differs" in again.problems[0]
    assert [n.claim for n in messages(store).values()] == ["first words"]


def test_speaker_filter_and_operator_override(store: Store) -> None:
    only = import_conversations(
        store, ImportRequest(path=JSONL, speakers=("tomas",), operator="Tomas")
    )
    assert only.messages == 2 and only.filtered == 2
    got = messages(store)
    assert {n.attributes["speaker"] for n in got.values()} == {"Tomas"}
    assert all(n.attributes["operator"] is True for n in got.values())
    # the rest arrives later; the neighbours are re-linked
    rest = import_conversations(store, ImportRequest(path=JSONL, operator="Tomas"))
    assert (rest.new, rest.updated, rest.unchanged) == (2, 1, 1)  # D1:2 got neighbours
    got = messages(store)
    middle = got[message_node_id("book-club-1", "D1:2")]
    assert middle.attributes["prev_turn"] == message_node_id("book-club-1", "D1:1")
    assert middle.attributes["next_turn"] == message_node_id("book-club-1", "D1:3")
    assert got[message_node_id("book-club-1", "D1:1")].attributes["operator"] is False


def test_malformed_records_one_line_each_rest_imported(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    rows = [
        '{"session": "s", "speaker": "A", "ts": "2024-01-01T00:00:00Z", "text": "kept one"}',
        "not json at all",
        "[1, 2]",
        '{"session": "", "speaker": "A", "ts": "2024-01-01", "text": "x"}',
        '{"session": "s", "speaker": 7.5, "ts": "2024-01-01", "text": "x"}',
        '{"session": "s", "speaker": "A", "ts": "yesterday", "text": "x"}',
        '{"session": "s", "speaker": "A", "ts": 1e300, "text": "x"}',
        '{"session": "s", "speaker": "A", "ts": "2024-01-01", "text": ["x"]}',
        '{"session": "s", "speaker": "A", "ts": "2024-01-01", "text": "x", "id": {}}',
        '{"session": "s", "speaker": "A", "ts": "2024-01-01", "text": "x", "operator": "yes"}',
        '{"session": "s", "speaker": "B", "ts": "2024-01-01T00:01:00Z", "text": "   "}',
        '{"session": "s", "speaker": "B", "ts": "2024-01-01T00:02:00Z", "text": "kept two"}',
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = import_conversations(store, ImportRequest(path=path))
    assert result.messages == 2 and result.new == 2
    assert result.bad_records == 9 and len(result.problems) == 9
    assert result.skipped["empty_text"] == 1
    assert [p.split(":")[0] for p in result.problems] == [f"line {n}" for n in range(2, 11)]
    assert all("\n" not in p for p in result.problems)


def test_unusable_inputs_are_one_line_errors(tmp_path: Path, store: Store) -> None:
    (tmp_path / "notes.txt").write_text("hello there\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="not a conversation export"):
        read_export(tmp_path / "notes.txt")
    with pytest.raises(ReaderError, match="not a regular file"):
        read_export(tmp_path)
    with pytest.raises(ReaderError, match="cannot read"):
        read_export(tmp_path / "missing.json")
    (tmp_path / "empty.json").write_text("[]", encoding="utf-8")
    with pytest.raises(ReaderError, match="no conversations"):
        read_export(tmp_path / "empty.json")
    (tmp_path / "broken.json").write_text('[{"mapping": {', encoding="utf-8")
    with pytest.raises(ReaderError, match="not valid JSON"):
        read_export(tmp_path / "broken.json", "chatgpt")
    with pytest.raises(UsageError, match="unknown format"):
        read_export(JSONL, "whatsapp")
    assert store.counts()["nodes"] == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(ReaderError, match="not a regular file"):
        read_export(fifo)


def test_hostile_text_is_stored_verbatim_or_counted(store: Store, tmp_path: Path) -> None:
    hostile = [
        "'; DROP TABLE nodes; --",
        '"quoted" OR title:* NEAR(a b)',
        "\x1b[31mred\x1b[0m and \x00 nul",
        "lone surrogate \\ud800 here",
        "../../etc/passwd",
        "x" * 5000,
    ]
    lines = []
    for i, text in enumerate(hostile):
        row = {"session": "../evil/s", "speaker": "<script>", "ts": "2024-01-01", "text": text}
        row["id"] = f"h{i}"
        lines.append(json.dumps(row))
    lines.append(
        json.dumps({"session": "s", "speaker": "A", "ts": "2024-01-01", "text": "y" * 1_000_001})
    )
    raw = "\n".join(lines).replace("\\\\ud800", "\\ud800")
    path = tmp_path / "hostile.jsonl"
    path.write_text(raw, encoding="utf-8")
    result = import_conversations(store, ImportRequest(path=path))
    assert result.messages == len(hostile)
    assert result.skipped == {"bad_text_too_long": 1}
    texts = {n.claim for n in messages(store).values()}
    assert "'; DROP TABLE nodes; --" in texts and "x" * 5000 in texts
    assert "lone surrogate \ufffd here" in texts
    assert store.counts()["nodes"] == len(hostile) + 1


def test_a_nul_in_a_session_or_speaker_is_a_bad_record_not_another_session(
    store: Store, tmp_path: Path
) -> None:
    """The store's SQL indexes end a text at NUL: session "s\\x00x" was filed under
    session "s" (mixed into it) and counted new on every re-import."""
    rows = [
        {"session": "s", "speaker": "me", "ts": "2024-01-01", "text": "the real s"},
        {"session": "s\x00x", "speaker": "me", "ts": "2024-01-01", "text": "an imposter"},
        {"session": "t", "speaker": "me\x00evil", "ts": "2024-01-01", "text": "who said it"},
    ]
    path = tmp_path / "nul.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    result = import_conversations(store, ImportRequest(path=path))
    assert (result.messages, result.skipped) == (1, {"bad_session": 1, "bad_speaker": 1})
    assert result.problems == [
        "line 2: session must be a non-empty string without NUL",
        "line 3: speaker must be a non-empty string without NUL",
    ]
    assert {n.claim for n in messages(store).values()} == {"the real s"}
    again = import_conversations(store, ImportRequest(path=path))
    assert (again.new, again.unchanged) == (0, 1)


# -- property tests: any input is imported, counted or refused in one line ------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_field = st.one_of(_json, st.text(max_size=30))
_row = st.fixed_dictionaries(
    {},
    optional={
        "session": _field,
        "speaker": _field,
        "ts": st.one_of(_field, st.just("2024-02-03T04:05:06Z"), st.integers(-10, 2**40)),
        "text": _field,
        "id": _field,
        "operator": _field,
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.one_of(_row, _json), max_size=8))
def test_jsonl_any_records_are_kept_or_counted(rows: list[Any]) -> None:
    data = "\n".join(json.dumps(r) for r in rows).encode()
    result = parse(data, "jsonl")
    non_blank = sum(1 for r in rows if json.dumps(r).strip())
    assert result.records == non_blank
    assert len(result.turns) + sum(result.skipped.values()) == result.records
    assert len(result.problems) == result.bad_records
    assert all("\n" not in p for p in result.problems)


_message = st.fixed_dictionaries(
    {},
    optional={
        "id": _field,
        "author": st.one_of(
            _json,
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant", "system", "tool"])}
            ),
        ),
        "create_time": st.one_of(_field, st.floats(0, 2e9)),
        "content": st.one_of(_json, st.fixed_dictionaries({"parts": st.lists(_field, max_size=3)})),
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    convs=st.lists(
        st.one_of(
            _json,
            st.fixed_dictionaries(
                {
                    "mapping": st.dictionaries(
                        st.text(max_size=6),
                        st.fixed_dictionaries({"message": st.one_of(st.none(), _message, _json)}),
                        max_size=5,
                    )
                },
                optional={"id": _field, "create_time": _field, "title": _field},
            ),
            st.fixed_dictionaries(
                {
                    "chat_messages": st.lists(
                        st.one_of(
                            _json,
                            st.fixed_dictionaries(
                                {},
                                optional={
                                    "uuid": _field,
                                    "sender": _field,
                                    "text": _field,
                                    "created_at": _field,
                                    "content": _json,
                                },
                            ),
                        ),
                        max_size=4,
                    )
                },
                optional={"uuid": _field, "created_at": _field},
            ),
        ),
        min_size=1,
        max_size=4,
    ),
    fmt=st.sampled_from(["chatgpt", "claude"]),
)
def test_exports_of_any_shape_parse_or_refuse_in_one_line(convs: list[Any], fmt: str) -> None:
    data = json.dumps(convs).encode()
    try:
        result = parse(data, fmt)
    except FormatError as exc:
        assert "\n" not in str(exc)
        return
    assert len(result.turns) + sum(result.skipped.values()) >= result.records
    for turn in result.turns:
        assert turn.text.strip() and turn.timestamp.tzinfo is not None


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(_row, min_size=1, max_size=6))
def test_import_of_any_jsonl_leaves_a_valid_store(tmp_path: Path, rows: list[Any]) -> None:
    path = tmp_path / "any.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    store = open_store(tmp_path / f"s{abs(hash(path.read_text()))}.db")
    try:
        first = import_conversations(store, ImportRequest(path=path, format="jsonl"))
        again = import_conversations(store, ImportRequest(path=path, format="jsonl"))
        assert again.new == 0 and again.nodes_written == 0
        assert len(messages(store)) == first.new
    finally:
        store.close()


@pytest.mark.parametrize(
    ("fmt", "raw", "said"),
    [
        (
            "chatgpt",
            [
                {
                    "mapping": {
                        "a": {
                            "message": {
                                "author": {"role": "user"},
                                "create_time": "x",
                                "content": {"parts": ["hi"]},
                            }
                        }
                    }
                }
            ],
            'conversation 1 message a: create_time "x" is not a time (epoch seconds)',
        ),
        (
            "claude",
            [
                {
                    "uuid": "u",
                    "chat_messages": [
                        {"sender": "human", "text": "hey", "created_at": {"when": 1}}
                    ],
                }
            ],
            "conversation 1 message 1: created_at (a JSON dict) is not a time (ISO 8601)",
        ),
        (
            "claude",
            [{"uuid": "u", "chat_messages": [{"sender": "human", "text": "hey"}]}],
            "conversation 1 message 1: no created_at on the message or conversation",
        ),
    ],
)
def test_a_time_that_is_not_one_is_named_not_called_missing(
    fmt: str, raw: list[Any], said: str
) -> None:
    result = parse(json.dumps(raw).encode(), fmt)
    assert result.problems == [said] and result.skipped == {"bad_time": 1}


def test_a_repeated_message_id_keeps_the_first_and_is_counted(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "claude.json"
    msg = {"sender": "human", "created_at": "2024-01-01T00:00:00Z"}
    conv = {
        "uuid": "c1",
        "name": "t",
        "chat_messages": [
            {**msg, "uuid": "m1", "text": "first words"},
            {**msg, "uuid": "m1", "text": "first words"},
            {**msg, "uuid": "m1", "text": "other words"},
            {**msg, "uuid": "m2", "text": "second message"},
        ],
    }
    path.write_text(json.dumps([conv]), encoding="utf-8")
    result = import_conversations(store, ImportRequest(path=path))
    assert result.records == 4 and result.messages == 2
    assert result.skipped == {"duplicate": 1, "bad_conflicting_duplicate": 1}
    assert result.as_dict()["skipped"] == result.skipped and result.bad_records == 1
    assert "2 skipped (bad_conflicting_duplicate 1, duplicate 1)" in result.line()
    assert result.problems == [
        "conversation 1 message 3: message id 'm1' was already read at conversation 1 "
        "message 1 with other text or speaker; the first one is kept"
    ]
    kept = messages(store)[message_node_id("c1", "m1")]
    assert kept.claim == "first words"
