"""The frontmatter writer without the emitter gives yaml.dump's bytes, and reads back.

``profiles.voice.yamlfast.dump_simple`` must return exactly the text of the
emitter call in ``frontmatter._dump_yaml`` or None (then the emitter runs), for
any mapping; and the mapping it remembers for ``split_frontmatter(ours=True)``
must be what the loaders read from that text.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from profiles.voice import frontmatter
from profiles.voice.frontmatter import _NoAliasDumper, _NoAliasLoader, split_frontmatter
from profiles.voice.yamlfast import dump_simple


def emitted(data: dict[str, Any]) -> str:
    return str(
        yaml.dump(
            data,
            Dumper=_NoAliasDumper,
            sort_keys=False,
            allow_unicode=True,
            width=1 << 30,
            default_flow_style=False,
        )
    )


# words YAML resolves to other types, indicators, breaks and odd characters
_TRICKY = [
    *("yes", "No", "ON", "off", "y", "n", "true", "False", "~", "null", "NULL", "", " "),
    *("1", "-1", "+1", "0x1F", "0o17", "017", "1_000", "1e3", "1.5", ".5", ".inf", ".NaN"),
    *("12:30", "190:20:30", "2026-03-25", "2026-3-5", "2026-03-25T16:26:06.462000Z"),
    *("2026-03-25 16:26:06", "<<", "=", ": ", ":", " #", "#", "- ", "-", "--", "---", "..."),
    *("?", "? ", "'", '"', "''", "&a", "*a", "!t", "%", "@", "`", "|", ">", "[", "]", "{"),
    *("}", ",", "\\", "\t", "\n", "\r", "\x00", "\x7f", "\x85", "\xa0", "\u2028", "\u2029"),
    *("\ufeff", "\ufffe", "\ud7ff", "\ue000", "\U0001f600", "\U0010ffff", "—", "é", "中文"),
    *("a", "Claude", "x y", "/home/u/p", "[[w-1]]", "a: b", "a:b", "a #b", "a#b", "tag-1"),
]
_piece = st.sampled_from(_TRICKY) | st.text(max_size=6)
_string = st.lists(_piece, max_size=5).map("".join)
_scalar = (
    _string
    | st.integers(-(10**12), 10**12)
    | st.booleans()
    | st.none()
    | st.dates()
    | st.floats(allow_nan=False)
    | st.datetimes(timezones=st.just(UTC))
)
_value = _scalar | st.lists(_scalar, max_size=4)
_key = st.sampled_from(["title", "type", "tags", "created", "x y", "yes", "1", "a:b", "-k"]) | (
    _string
)


@settings(max_examples=1500, deadline=None)
@given(st.dictionaries(_key, _value, max_size=6))
@example({"title": "Claude Session 5fbb940a — inputmodule, claude", "message_count": 38})
@example({"valid_from": "2026-03-25T16:26:06.462000Z", "created": date(2026, 3, 25)})
@example({"tags": [], "sources": ["/x/a.jsonl"], "activity_window": ["[[w-1]]"]})
@example({"title": "it's", "status": "yes", "cwd": "~/p"})
def test_dump_simple_is_the_emitters_text_or_none(data: dict[str, Any]) -> None:
    text = dump_simple(data)
    if text is None:
        return
    assert text == emitted(data)
    assert yaml.load(text, Loader=_NoAliasLoader) == data
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        assert yaml.load(text, Loader=fast) == data


def test_a_pages_frontmatter_takes_the_fast_path() -> None:
    page = {
        "title": "Claude Session 5fbb940a — inputmodule, claude, vwestberg",
        "type": "voice",
        "project": "Claude",
        "constellation": "Claude",
        "tags": ["Claude", "decision"],
        "created": date(2026, 3, 25),
        "updated": date(2026, 12, 4),
        "status": "active",
        "session_id": "5fbb940a-c7f3-404d-bf66-a028fcc250ec",
        "valid_from": "2026-03-25T16:26:06.462000Z",
        "message_count": 38,
        "harness": "claude-code",
        "branch": "HEAD",
        "cwd": "/home/vwestberg/Claude/inputmodule-rs",
        "sources": ["/work/a.jsonl"],
    }
    text = dump_simple(page)
    assert text is not None and text == emitted(page)
    assert "valid_from: '2026-03-25T16:26:06.462000Z'\n" in text  # a timestamp: quoted
    assert dump_simple({"when": datetime(2026, 1, 1, tzinfo=UTC)}) is None  # the emitter's


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_key, _value, min_size=1, max_size=5), st.sampled_from(["", "body\n"]))
def test_our_frontmatter_reads_back_as_the_loader_reads_it(data: dict[str, Any], body: str) -> None:
    """``split_frontmatter(ours=True)`` answers from the last dump when the text is it:
    the same mapping the loader gives (and a fresh one each time)."""
    try:
        dumped = frontmatter._dump_yaml(data)
    except frontmatter.PageError:
        return
    text = f"---\n{dumped}---\n{body}"
    got, lines, first = split_frontmatter(text, ours=True)
    want = yaml.load(dumped, Loader=_NoAliasLoader)
    assert got == want and (lines, first) == split_frontmatter(text)[1:]
    if isinstance(got, dict) and got:
        got.clear()  # the caller's to change: the next answer is whole again
        assert split_frontmatter(text, ours=True)[0] == want


@settings(max_examples=3000, deadline=None)
@given(_string, st.sampled_from(["value", "item", "key"]))
def test_each_string_is_written_as_the_emitter_writes_it(s: str, where: str) -> None:
    """One string at a time, as a value, a list item and a key: most take the fast
    path (plain or single-quoted) or are refused, never written otherwise."""
    data: dict[str, Any] = {"title": s} if where == "value" else {"tags": ["a", s]}
    if where == "key":
        data = {s: 1}
    text = dump_simple(data)
    if text is not None:
        assert text == emitted(data)
        assert yaml.load(text, Loader=_NoAliasLoader) == data


# edits a person (or another tool re-serialising YAML) makes to a frontmatter's text
_EDITS = st.sampled_from(
    ["", " ", "  ", "#", " # c", "'", '"', ":", "- ", "&a ", "*a", "\t", "~", "!!str ", "yes"]
)


def _reference(raw: str) -> Any:
    try:
        return yaml.load(raw, Loader=_NoAliasLoader)
    except (yaml.YAMLError, frontmatter.PageError, RecursionError):
        return "error"


@settings(max_examples=1500, deadline=None)
@given(st.dictionaries(_key, _value, min_size=1, max_size=5), _EDITS, st.integers(0, 400))
def test_a_frontmatter_read_from_disk_is_what_the_reference_loader_reads(
    data: dict[str, Any], edit: str, where: int
) -> None:
    """``split_frontmatter`` (not ``ours``) answers a frontmatter in exactly memgraph's
    form through libyaml and ``dump_simple``: the answer must be the pure-Python
    loader's for that text and for any edit of it (which then takes that loader)."""
    try:
        dumped = frontmatter._dump_yaml(data)
    except frontmatter.PageError:
        return
    at = where % (len(dumped) + 1)
    raw = (dumped[:at] + edit + dumped[at:]).rstrip("\n")
    if any(line in ("---", "...") for line in raw.split("\n")):
        return
    frontmatter._PARSED.clear()
    want = _reference(raw)
    try:
        got: Any = split_frontmatter(f"---\n{raw}\n---\nbody\n")[0]
    except frontmatter.PageError:
        got = "error"
    if not isinstance(want, dict):
        want = "error"
    assert got == want and type(got) is type(want)
    if isinstance(got, dict):
        assert [type(v) for v in got.values()] == [type(v) for v in want.values()]


def test_a_page_memgraph_wrote_is_read_without_the_pure_python_loader(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A first pass over 2,000 pages parsed each page's frontmatter from disk with the
    pure-Python loader (~1.6 ms, twice a page); a frontmatter in memgraph's own form
    is read by libyaml and checked by writing it back."""
    page = {
        "title": "atlas session 282",
        "type": "voice",
        "tags": ["atlas", "command"],
        "created": date(2024, 12, 7),
        "session_id": "1becbf2b-011a-4000-8000-202805bed013",
        "valid_from": "2024-12-07T18:54:05.000000Z",
        "message_count": 24,
    }
    text = f"---\n{frontmatter._dump_yaml(page)}---\nbody\n"
    frontmatter._PARSED.clear()
    loaders: list[object] = []
    real = yaml.load

    def counting(stream: str, Loader: Any) -> Any:
        loaders.append(Loader)
        return real(stream, Loader=Loader)

    monkeypatch.setattr(frontmatter.yaml, "load", counting)
    assert split_frontmatter(text)[0] == page
    assert _NoAliasLoader not in loaders
    edited = text.replace("title: atlas", "title:  atlas")  # still YAML, no longer our form
    assert split_frontmatter(edited)[0] == page
    assert loaders[-1] is _NoAliasLoader
