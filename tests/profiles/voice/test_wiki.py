"""Wiki page validator: the six page types, voice's extended frontmatter, hostile input."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.errors import ReaderError
from profiles.voice.pages import VoiceMessageEntry, VoicePage, render_page
from profiles.voice.wiki import PAGE_TYPES, iter_pages, validate_file, validate_wiki_page

T = datetime(2026, 4, 14, 14, 32, tzinfo=UTC)


def wiki(kind: str, extra: str = "", body: str = "# Title\n\nSome text with [[a link]].\n") -> str:
    return (
        f"---\ntitle: Payments service\ntype: {kind}\ncreated: 2026-01-02\nupdated: 2026-03-04\n"
        f"status: active\ntags: [payments]\n{extra}---\n\n{body}"
    )


def voice_page_text(**kw: object) -> str:
    base: dict[str, object] = dict(
        title="hook install settings",
        constellation="atlas",
        project="atlas",
        session_id="80166115-aaaa",
        created=date(2026, 4, 14),
        updated=date(2026, 4, 14),
        valid_from=T,
        valid_to=T,
        ingested_at=T,
        sources=["/t/x.jsonl"],
        messages=[VoiceMessageEntry(record_uuid="u", timestamp=T, text="[[unbalanced")],
    )
    base.update(kw)
    return render_page(VoicePage.model_validate(base))


@pytest.mark.parametrize("kind", [k for k in PAGE_TYPES if k != "voice"])
def test_every_wiki_type_is_accepted_without_warnings(kind: str) -> None:
    assert validate_wiki_page(wiki(kind)) == []


def test_rendered_voice_page_is_valid_without_warnings() -> None:
    assert validate_wiki_page(voice_page_text()) == []
    assert validate_wiki_page(voice_page_text(activity_window=["aw-1"])) == []


@pytest.mark.parametrize(
    ("text", "level", "needle"),
    [
        (wiki("rumour"), "error", "is not one of"),
        (wiki("service").replace("title: Payments service\n", ""), "error", "missing"),
        (wiki("service").replace("created: 2026-01-02", "created: soon"), "error", "date"),
        (wiki("service").replace("updated: 2026-03-04", "updated: 2025-01-01"), "error", "before"),
        (wiki("service", "tags2: x\n"), "warning", "unknown frontmatter keys: tags2"),
        (wiki("service").replace("status: active", "status: wip"), "warning", "status"),
        (wiki("service", body=""), "warning", "no body"),
        (wiki("service", body="[[open\n"), "warning", "wikilink"),
        (wiki("service", "session_id: x\n"), "warning", "voice-only"),
        (wiki("service").replace("tags: [payments]", "tags: 3"), "error", "list of strings"),
        ("no frontmatter\n", "error", "frontmatter"),
        ("---\na: [\n---\n", "error", "not valid YAML"),
        (wiki("voice"), "error", "voice page misses"),
        (voice_page_text().replace("message_count: 1", "message_count: 2"), "error", "truncated"),
        (voice_page_text().replace("status: active", "status: nope"), "warning", "status"),
        (
            voice_page_text().replace("valid_from: '2026", "valid_from: 'x2026"),
            "error",
            "ISO-8601",
        ),
    ],
)
def test_problems(text: str, level: str, needle: str) -> None:
    problems = validate_wiki_page(text)
    assert any(p.level == level and needle in p.message for p in problems), problems
    assert all("\n" not in p.message for p in problems)


@settings(max_examples=200)
@given(st.text())
def test_arbitrary_text_never_crashes(text: str) -> None:
    for problem in validate_wiki_page(text):
        assert problem.level in ("error", "warning")


@settings(max_examples=100)
@given(st.dictionaries(st.text(max_size=10), st.text(max_size=20), max_size=5))
def test_arbitrary_frontmatter_values(extra: dict[str, str]) -> None:
    import yaml

    front = yaml.safe_dump(
        {
            "title": "t",
            "type": "process",
            "created": date(2026, 1, 1),
            "updated": date(2026, 1, 1),
            **extra,
        }
    )
    validate_wiki_page(f"---\n{front}---\nbody\n")


def test_files_and_directories(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "ok.md").write_text(wiki("decision"))
    (tmp_path / "a" / "bad.md").write_bytes(b"---\n\xff\xfe\n---\n")
    (tmp_path / "log.md").write_text("## [2026] voice | x\n")
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "x.md").write_text("junk")
    pages = list(iter_pages([tmp_path]))
    assert [p.name for p in pages] == ["bad.md", "ok.md"]
    assert validate_file(tmp_path / "a" / "ok.md") == []
    assert "not UTF-8" in validate_file(tmp_path / "a" / "bad.md")[0].message
    with pytest.raises(ReaderError):
        list(iter_pages([tmp_path / "missing.md"]))
