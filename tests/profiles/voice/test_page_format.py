"""The page format of issue 20: titles, small frontmatter, short markers, day
headings, one log line per changed page, and pages of the earlier format."""

from __future__ import annotations

import dataclasses
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath

import pytest

from memgraph.store import Store, open_store
from profiles.voice import pageblocks, pagekeep, pages_v1
from profiles.voice.capture import CaptureRequest, capture_messages
from profiles.voice.pages import VoicePage, parse_page, render_page, split_frontmatter
from profiles.voice.search_schema import ImportVaultRequest, import_vault
from profiles.voice.titles import TermWeights, page_title, session_title
from profiles.voice.views import (
    build_page,
    is_qualifying,
    one_log_line_per_page,
    session_nodes,
    write_page_file,
    write_session_page,
)
from profiles.voice.wiki import validate_file, validate_wiki_page

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import PROMPTS, SID, op_msg

NOW = datetime(2026, 5, 1, 12, tzinfo=UTC)
REL = "atlas/voice/2026-04-14-80166115.md"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return open_store(tmp_path / "mg.db")


def capture(store: Store, vault: Path, texts: list[str], **kw: object) -> None:
    msgs = [op_msg(t, i, **kw) for i, t in enumerate(texts)]  # type: ignore[arg-type]
    req = CaptureRequest(transcript=Path("/t/80166115.jsonl"), vault=vault, now=NOW)
    capture_messages(store, msgs, req)


def store_page(store: Store) -> VoicePage:
    session, messages = session_nodes(store, SID)
    return build_page(session, [n for n in messages if is_qualifying(n)])


# -- title --------------------------------------------------------------------


def test_title_names_the_project_session_and_distinguishing_words(
    store: Store, tmp_path: Path
) -> None:
    capture(store, tmp_path / "v", PROMPTS)
    page = parse_page((tmp_path / "v" / REL).read_text())
    assert page.title.startswith("atlas Session 80166115 — ")
    assert len(page.title.split(" — ")[1].split(", ")) == 3


def test_title_weighs_words_against_the_corpus() -> None:
    texts = ["fix the hook jitter", "the hook jitter again", "hook hook"]
    assert page_title(texts, "x") == "hook, jitter, fix"
    # "hook" is in half of the store's nodes, "jitter" in two (these messages)
    df = {"hook": 500, "jitter": 2, "fix": 300, "again": 400}
    weights = TermWeights(nodes=1000, df=df, looked_up=frozenset(df))
    assert page_title(texts, "x", weights).split(", ")[0] == "jitter"
    # words the store was not asked about are not ranked (no unknown-df boost)
    only = TermWeights(nodes=1000, df={"hook": 500}, looked_up=frozenset({"hook"}))
    assert page_title(texts, "x", only) == "hook"


def test_title_drops_fragments_placeholders_and_short_tokens() -> None:
    texts = ["dont do it, I can't. [Image #1] pasted image", "ok go to db", "v2 1234 abc1"]
    assert page_title(texts, "2026-04-14") == "2026-04-14"
    assert session_title("atlas", "80166115-aaaa", "2026-04-14") == (
        "atlas Session 80166115 — 2026-04-14"
    )


def test_title_falls_back_to_the_date(store: Store, tmp_path: Path) -> None:
    capture(store, tmp_path / "v", ["please go", "yes do it", "ok thanks, check"])
    page = parse_page((tmp_path / "v" / REL).read_text())
    assert page.title == "atlas Session 80166115 — 2026-04-14"


# -- frontmatter and markers ------------------------------------------------------


def test_frontmatter_is_small_and_markers_short(store: Store, tmp_path: Path) -> None:
    capture(store, tmp_path / "v", PROMPTS)
    text = (tmp_path / "v" / REL).read_text()
    data, body, _ = split_frontmatter(text)
    assert data["tags"] == ["atlas"]
    assert data["status"] == "active"
    assert (data["cwd"], data["branch"], data["harness"]) == (
        "/nonexistent/work/atlas",
        "main",
        "claude-code",
    )
    assert data["sources"] == ["/t/80166115.jsonl"]
    markers = [line for line in body if line.startswith("<!-- mg2 ")]
    assert len(markers) == 3
    for line in markers:  # uuid, time and line; nothing the frontmatter already says
        assert len(line) < 110, line
        assert not any(k in line for k in ("cwd", "branch", "harness", "transcript", "src"))
    assert validate_file(tmp_path / "v" / REL) == []


def test_a_message_that_differs_carries_its_own_values(store: Store, tmp_path: Path) -> None:
    capture(store, tmp_path / "v", PROMPTS)
    page = store_page(store)
    odd = page.messages[1].model_copy(
        update={"cwd": "/elsewhere", "branch": None, "transcript": "/t/other.jsonl"}
    )
    page = page.model_copy(update={"messages": [page.messages[0], odd, page.messages[2]]})
    text = render_page(page)
    assert '"cwd": "/elsewhere"' in text and '"branch": null' in text
    assert '"transcript": "/t/other.jsonl"' in text
    assert parse_page(text) == page


def test_activity_window_is_a_list_of_window_links(store: Store, tmp_path: Path) -> None:
    capture(store, tmp_path / "v", PROMPTS)
    page = store_page(store).model_copy(update={"activity_window": ["aw-2026-04-14-1432"]})
    data, _, _ = split_frontmatter(render_page(page))
    assert data["activity_window"] == ["[[aw-2026-04-14-1432]]"]
    assert parse_page(render_page(page)) == page


def test_a_session_crossing_midnight_gets_day_headings(store: Store, tmp_path: Path) -> None:
    late = [op_msg(t, i) for i, t in enumerate(PROMPTS[:3])]
    start = datetime(2026, 4, 14, 23, 58, tzinfo=UTC)
    late = [dataclasses.replace(m, timestamp=start + 2 * i * MIN) for i, m in enumerate(late)]
    capture_messages(
        store, late, CaptureRequest(transcript=Path("/t/80166115.jsonl"), vault=tmp_path / "v")
    )
    path = tmp_path / "v" / REL
    text = path.read_text()
    assert "\n### 2026-04-14\n" in text and "\n### 2026-04-15\n" in text
    assert text.index("### 2026-04-15") < text.index("> **00:00**")
    assert parse_page(text).message_count == 3
    assert not pageblocks.user_segments(pageblocks.split_blocks(text))  # headings are memgraph's
    before = path.read_bytes()
    write_session_page(store, tmp_path / "v", SID)
    assert path.read_bytes() == before
    assert validate_file(path) == []


MIN = timedelta(minutes=1)


# -- log.md ---------------------------------------------------------------------------


def test_one_log_line_per_changed_page_in_a_block(store: Store, tmp_path: Path) -> None:
    vault = tmp_path / "v"
    capture(store, vault, PROMPTS)
    log = vault / "log.md"
    assert len(log.read_text().splitlines()) == 1
    page = store_page(store)
    rel = PurePosixPath(REL)
    with one_log_line_per_page():
        assert write_page_file(vault, rel, page.model_copy(update={"status": "stable"}))
        assert write_page_file(vault, rel, page.model_copy(update={"title": "another"}))
        assert len(log.read_text().splitlines()) == 1  # nothing logged yet
    lines = log.read_text().splitlines()
    assert len(lines) == 2 and lines[-1].endswith("| another")
    with one_log_line_per_page():  # changed and changed back: nothing to log
        write_page_file(vault, rel, page)
        write_page_file(vault, rel, page.model_copy(update={"title": "another"}))
    assert len(log.read_text().splitlines()) == 2


# -- pages of the earlier format ----------------------------------------------------


def _old_page(store: Store, vault: Path) -> tuple[Path, str]:
    """The session's page as memgraph wrote it before issue 20 (no sidecar)."""
    capture(store, vault, PROMPTS)
    path = vault / REL
    old = pages_v1.render_page(store_page(store))
    assert "<!-- mg {" in old and '"cwd": ' in old and "status: captured" in old
    path.write_text(old)
    pagekeep.sidecar(path).unlink()
    return path, old


def test_old_format_page_parses_validates_and_imports(store: Store, tmp_path: Path) -> None:
    vault = tmp_path / "v"
    path, old = _old_page(store, vault)
    assert parse_page(old).messages == store_page(store).messages
    assert validate_file(path) == []
    fresh = open_store(tmp_path / "fresh.db")
    report = import_vault(fresh, ImportVaultRequest(vault=vault))
    assert (report.pages, report.messages, report.failed) == (1, 3, [])
    _, rebuilt = session_nodes(fresh, SID)
    assert [n.claim for n in rebuilt] == PROMPTS[:3]
    _, captured = session_nodes(store, SID)
    assert [n.id for n in rebuilt] == [n.id for n in captured if is_qualifying(n)]


@pytest.mark.parametrize("sidecar", [False, True])
def test_old_format_page_is_rerendered_keeping_user_text(
    store: Store, tmp_path: Path, sidecar: bool
) -> None:
    vault = tmp_path / "v"
    path, old = _old_page(store, vault)
    if sidecar:  # what the previous version recorded when it wrote the page
        pagekeep.record_written(path, old)
    path.write_text(old + "\n## Notes\n\nmy own thoughts, $$kept$$\n")
    write_session_page(store, vault, SID)
    new = path.read_text()
    assert "<!-- mg2 {" in new and "<!-- mg {" not in new
    assert new.rstrip().endswith("my own thoughts, $$kept$$")
    assert not pagekeep.list_conflicts(vault)
    assert parse_page(new).messages == store_page(store).messages


# -- wiki validate --------------------------------------------------------------------


def _design_format(page: VoicePage) -> str:
    """A page as the design shows it: no hidden markers."""
    lines = [ln for ln in render_page(page).split("\n") if not ln.startswith("<!-- mg2 ")]
    return "\n".join(lines)


def test_design_format_page_is_a_warning_not_an_error(store: Store, tmp_path: Path) -> None:
    capture(store, tmp_path / "v", PROMPTS)
    problems = validate_wiki_page(_design_format(store_page(store)), "p.md")
    assert [p.level for p in problems] == ["warning"]
    assert "markers" in problems[0].message and problems[0].line is not None
    cut = _design_format(store_page(store)).replace("message_count: 3", "message_count: 4")
    assert {p.level for p in validate_wiki_page(cut, "p.md")} == {"warning"}
    # a page WITH markers that does not parse is still an error, with its line
    broken = render_page(store_page(store)).replace('"line": 2', '"line": "two"')
    (problem,) = validate_wiki_page(broken, "p.md")
    assert problem.level == "error" and problem.line is not None
