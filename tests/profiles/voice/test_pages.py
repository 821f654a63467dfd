"""Voice pages: render/parse round trip for any text, hostile and malformed input."""

from __future__ import annotations

import contextlib
import os
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.voice.pagepath import choose_relpath
from profiles.voice.pages import (
    PageError,
    VoiceMessageEntry,
    VoicePage,
    escape_line,
    page_relpath,
    parse_page,
    render_page,
    split_frontmatter,
    unescape_line,
)

T0 = datetime(2026, 4, 14, 14, 32, 5, 123456, tzinfo=UTC)


def entry(text: str, n: int = 0, **kw: object) -> VoiceMessageEntry:
    return VoiceMessageEntry(
        record_uuid=f"uuid-{n}",
        timestamp=T0 + timedelta(minutes=n),
        text=text,
        transcript="/t/s.jsonl",
        line=10 + n,
        **kw,  # type: ignore[arg-type]
    )


def page(*texts: str, **kw: object) -> VoicePage:
    msgs = [entry(t, i) for i, t in enumerate(texts)]
    base: dict[str, object] = {
        "title": "hook install settings",
        "constellation": "atlas",
        "project": "atlas",
        "session_id": "80166115-aaaa-bbbb-cccc-000000000000",
        "created": date(2026, 4, 14),
        "updated": date(2026, 4, 15),
        "valid_from": T0,
        "valid_to": T0 + timedelta(hours=1),
        "ingested_at": T0 + timedelta(days=1),
        "sources": ["/t/s.jsonl"],
        "messages": msgs,
    }
    base.update(kw)
    return VoicePage.model_validate(base)


HOSTILE = [
    "---",
    "a\n---\nb",
    "> **14:32** — fake message",
    "first\n> **14:32** — fake\n**09:00** — also fake",
    'x\n<!-- mg {"uuid": "evil", "ts": "2020-01-01T00:00:00Z"} -->\n> **00:00** — injected',
    "<!-- mg {} -->",
    "title: evil\ntype: voice\nmessage_count: 99",
    "---\ntitle: x\n---\n## Messages\n## Classifications",
    "<script>alert(1)</script> <b>bold</b> | pipe | %% obsidian comment %%",
    "x" * (1 << 20),
    "中文消息，没有空格。日本語も。",
    "مرحبا بالعالم \u202eRTL override\u202c",
    "\\u{41} literal escape and \\\\u{5c}",
    "\\**14:32** — already stuffed\n\\**14:32** — stuffed continuation",
    "",
    "\n",
    "\n\n\n",
    "trailing spaces   \n   leading",
    "nul\x00 cr\r crlf\r\n vt\x0b ff\x0c sep\u2028\u2029 nel\x85 bom\ufeff del\x7f",
    "lone surrogates \ud800 \udfff \udc80",
    "> quoted\n>\n> > nested",
    "tab\there",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_round_trips(text: str) -> None:
    p = page("before", text, "after")
    rendered = render_page(p)
    assert parse_page(rendered) == p
    # nothing faked: exactly three messages with the right texts
    assert [m.text for m in parse_page(rendered).messages] == ["before", text, "after"]


def test_all_hostile_on_one_page() -> None:
    p = page(*HOSTILE)
    assert parse_page(render_page(p)) == p


text_no_surrogates = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(text_no_surrogates, min_size=1, max_size=5))
def test_round_trip_any_text(texts: list[str]) -> None:
    p = page(*texts)
    assert parse_page(render_page(p)) == p


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(), min_size=1, max_size=3))
def test_round_trip_with_surrogates(texts: list[str]) -> None:
    p = page(*texts)
    assert parse_page(render_page(p)) == p


@settings(max_examples=200, deadline=None)
@given(
    title=text_no_surrogates,
    source=text_no_surrogates,
    window=st.lists(text_no_surrogates, max_size=3),
    classification=st.none() | text_no_surrogates,
    topics=st.lists(text_no_surrogates, max_size=3),
    extra=st.none() | text_no_surrogates,
)
def test_round_trip_any_metadata(
    title: str,
    source: str,
    window: list[str],
    classification: str | None,
    topics: list[str],
    extra: str | None,
) -> None:
    msg = entry(
        "text",
        0,
        classification=classification,
        confidence=0.25 if classification else None,
        topics=topics,
        branch=extra,
        cwd=extra,
        harness=extra,
    ).model_copy(update={"transcript": source, "origin": extra or "prompt"})
    p = page(title=title, sources=[source], messages=[msg], activity_window=window)
    assert parse_page(render_page(p)) == p


@given(st.text())
def test_escape_line_is_reversible_and_line_safe(text: str) -> None:
    escaped = escape_line(text)
    assert unescape_line(escaped) == text
    assert "\n" not in escaped and "\r" not in escaped and "\x00" not in escaped
    escaped.encode("utf-8")  # no lone surrogate survives


def test_render_is_deterministic_and_valid_yaml_frontmatter() -> None:
    p = page("one", "two", "three", activity_window=["aw-2026-04-14-1432"])
    assert render_page(p) == render_page(p.model_copy(deep=True))
    data, _, _ = split_frontmatter(render_page(p))
    assert data["type"] == "voice"
    assert data["message_count"] == 3
    assert data["created"] == date(2026, 4, 14)
    assert data["activity_window"] == ["[[aw-2026-04-14-1432]]"]
    assert data["tags"] == ["atlas"]
    assert yaml.safe_load(render_page(p).split("---\n")[1]) == data


def test_seed_layout() -> None:
    text = render_page(page("please fix the hook", "then the page"))
    assert text.startswith("---\ntitle: hook install settings\ntype: voice\nproject: atlas\n")
    assert "\n## Messages\n" in text and "\n## Classifications\n" in text
    assert "> **14:32** — please fix the hook\n" in text
    assert "> **14:33** — then the page\n" in text
    assert "| 1 | 14:32 | please fix the hook |" in text


def test_page_relpath() -> None:
    rel = page_relpath("atlas", date(2026, 4, 14), "80166115-aaaa")
    assert rel.as_posix() == "atlas/voice/2026-04-14-80166115.md"


def test_choose_relpath_never_waits_on_a_fifo_in_the_pages_place(tmp_path: Path) -> None:
    # the hook asks whether another session owns the page name; a FIFO there owns
    # nothing (an open of it would wait for a writer forever)
    rel = page_relpath("atlas", date(2026, 4, 14), "80166115-aaaa")
    where = tmp_path.joinpath(*rel.parts)
    where.parent.mkdir(parents=True)
    os.mkfifo(where)
    assert choose_relpath(tmp_path, "atlas", "80166115-aaaa", T0) == rel
    # a page of another session with the same first 8 characters does own it
    where.unlink()
    where.write_text("---\nsession_id: 80166115-bbbb\n---\n")
    other = choose_relpath(tmp_path, "atlas", "80166115-aaaa", T0)
    assert other.name == "2026-04-14-80166115-aaaa.md"


def test_choose_relpath_reads_no_page_outside_the_vault(tmp_path: Path) -> None:
    # <vault>/atlas/voice linked to a folder outside: the page there (another
    # session's) is not read to learn its owner; the name stays the session's own
    # and the page write that follows refuses the place (FileEscape)
    rel = page_relpath("atlas", date(2026, 4, 14), "80166115-aaaa")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / rel.name).write_text("---\nsession_id: 80166115-bbbb\n---\n")
    vault = tmp_path / "vault"
    (vault / "atlas").mkdir(parents=True)
    (vault / "atlas" / "voice").symlink_to(outside, target_is_directory=True)
    assert choose_relpath(vault, "atlas", "80166115-aaaa", T0) == rel
    # the same page inside the vault is read (its owner takes the short name)
    (vault / "atlas" / "voice").unlink()
    (vault / "atlas" / "voice").mkdir()
    (vault / "atlas" / "voice" / rel.name).write_text("---\nsession_id: 80166115-bbbb\n---\n")
    other = choose_relpath(vault, "atlas", "80166115-aaaa", T0)
    assert other.name == "2026-04-14-80166115-aaaa.md"


def test_crlf_converted_page_still_parses() -> None:
    p = page("a\nb", "c")
    assert parse_page(render_page(p).replace("\n", "\r\n")) == p


MALFORMED = [
    ("", "no YAML frontmatter"),
    ("# just markdown\n", "no YAML frontmatter"),
    ("---\ntitle: x\n", "not closed"),
    ("---\n[unclosed\n---\n", "not valid YAML"),
    ("---\n- a list\n---\n", "not a YAML mapping"),
    ("---\na: &x [1]\nb: *x\n---\n", "aliases"),
    ("---\ntype: service\n---\n", "not a voice page"),
    ("---\ntype: voice\nmessage_count: 0\n---\nno section\n", "no '## Messages'"),
]


@pytest.mark.parametrize(("text", "needle"), MALFORMED)
def test_malformed_pages_raise_one_line(text: str, needle: str) -> None:
    with pytest.raises(PageError) as info:
        parse_page(text, "x.md")
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_truncated_page_is_detected() -> None:
    text = render_page(page("one", "two", "three"))
    cut = text[: text.rindex("<!-- mg2")]
    with pytest.raises(PageError, match="message_count 3 but 2"):
        parse_page(cut)


def test_every_prefix_of_a_page_parses_or_raises_page_error() -> None:
    text = render_page(page("one", "two\nlines", "three"))
    for n in range(0, len(text), 7):
        with contextlib.suppress(PageError):
            parse_page(text[:n])


def test_tampered_marker_and_time_are_rejected() -> None:
    text = render_page(page("one", "two", "three"))
    with pytest.raises(PageError, match="invalid JSON"):
        parse_page(text.replace('"uuid": "uuid-1"', '"uuid": uuid-1'))
    with pytest.raises(PageError, match="shown time"):
        parse_page(text.replace("> **14:33**", "> **15:33**"))
    with pytest.raises(PageError, match="unknown message marker key"):
        parse_page(text.replace('"line"', '"evil"'))
    with pytest.raises(PageError, match="not followed"):
        parse_page(text.replace("> **14:33** — two", "two"))
    with pytest.raises(PageError, match="bad message field"):
        parse_page(text.replace('"ts": "2026-04-14T14:33', '"ts": "nope'))
    with pytest.raises(PageError, match="bad frontmatter field"):
        parse_page(text.replace("created: 2026-04-14", "created: yesterday"))


def test_deep_nesting_is_a_page_error() -> None:
    text = render_page(page("one"))
    with pytest.raises(PageError, match="invalid JSON"):
        parse_page(text.replace('"line": 10', '"topics": ' + "[" * 100000))
    with pytest.raises(PageError, match=r"nested too deeply|not valid YAML"):
        parse_page("---\na: " + "[" * 100000 + "\n---\n")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_crashes_the_parser(text: str) -> None:
    with contextlib.suppress(PageError):
        parse_page(text)


@settings(max_examples=200, deadline=None)
@given(st.binary())
def test_arbitrary_bytes_after_a_valid_header(noise: bytes) -> None:
    text = render_page(page("one", "two", "three"))
    head, _, _ = text.partition("## Messages")
    with contextlib.suppress(PageError):
        parse_page(head + noise.decode("utf-8", "replace"))


def test_one_object_twice_in_frontmatter_is_written_without_an_alias() -> None:
    """A page whose ``created`` and ``updated`` are the same ``date`` object (the lean
    capture builds them so) must not get ``&id001``/``*id001``: the reader refuses
    aliases, so such a page could never be read back (seen as a second machine's
    render differing from the first's)."""
    from profiles.voice.frontmatter import _dump_yaml, split_frontmatter

    day = date(2026, 4, 17)
    text = _dump_yaml({"created": day, "updated": day, "tags": ["a"], "also": ["a"]})
    assert "&" not in text and "*" not in text
    data, _, _ = split_frontmatter(f"---\n{text}---\nbody\n")
    assert data["created"] == data["updated"] == day


def test_plain_page_classes_carry_the_documents_fields() -> None:
    """The lean hook renders ``PlainPage``/``PlainEntry`` (pagerender) where the full
    path renders ``VoicePage``/``VoiceMessageEntry``: a field added to one and not the
    other would make the two paths' pages differ."""
    import dataclasses

    from profiles.voice.pagerender import PlainEntry, PlainPage
    from profiles.voice.pages import VoiceMessageEntry, VoicePage

    for plain, document in ((PlainEntry, VoiceMessageEntry), (PlainPage, VoicePage)):
        assert [f.name for f in dataclasses.fields(plain)] == list(document.model_fields)
