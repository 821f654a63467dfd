"""Hand edits to voice pages survive every re-render (issue 15, data loss item 1).

Each edit (a line under a message, a ``## Notes`` section, a new heading, a typo
fixed in a message) is followed by each re-render trigger (hook session-end,
backfill of a grown transcript, classify, windows): the user's text is in the page
afterwards, or the page is untouched and the new render waits in
``<page>.conflict.md``, reported on stderr and by ``memgraph probe``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from memgraph.cli.app import app
from profiles.voice.pageblocks import merge, split_blocks
from profiles.voice.pagekeep import list_conflicts
from profiles.voice.pages import (
    parse_page,
    render_page,
    split_frontmatter,
)

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import (
    PROMPTS,
    SID,
    claude_records,
    page_entry,
    voice_page,
    write_transcript,
)

runner = CliRunner()
PAGE = Path("atlas") / "voice" / "2026-04-14-80166115.md"
GROWN = [*PROMPTS, "also document the hook in the readme please"]


def _hook(env: Path, prompts: list[str]) -> str:
    path = write_transcript(env / "t" / f"{SID}.jsonl", claude_records(prompts))
    data = {"session_id": SID, "transcript_path": str(path), "cwd": "/nonexistent/work/atlas"}
    result = runner.invoke(app, ["hook", "session-end"], input=json.dumps(data))
    assert result.exit_code == 0, result.output
    return result.stderr


def _backfill_grown(env: Path) -> str:
    write_transcript(env / "t" / f"{SID}.jsonl", claude_records(GROWN))
    result = runner.invoke(app, ["voice", "--backfill", "--transcripts", str(env / "t")])
    assert result.exit_code == 0, result.output
    return result.stderr


def _hook_grown(env: Path) -> str:
    return _hook(env, GROWN)


def _classify(env: Path) -> str:
    result = runner.invoke(app, ["classify", "--now", "--force"])
    assert result.exit_code == 0, result.output
    return result.stderr


def _windows(env: Path) -> str:
    result = runner.invoke(app, ["windows", "--no-discover"])
    assert result.exit_code == 0, result.output
    return result.stderr


TRIGGERS: dict[str, Callable[[Path], str]] = {
    "hook": _hook_grown,
    "backfill-grown": _backfill_grown,
    "classify": _classify,
    "windows": _windows,
}


def _own_section(text: str) -> str:
    return text + "\n## Notes\n\nmy own thoughts about this session\n- with a list\n"


def _line_under_message(text: str) -> str:
    lines = text.split("\n")
    i = next(i for i, line in enumerate(lines) if line.startswith("> **") and "keep them" in line)
    lines.insert(i + 1, "my comment: this one matters")
    return "\n".join(lines)


def _new_heading(text: str) -> str:
    lines = text.split("\n")
    i = lines.index("## Messages")
    lines[i + 1 : i + 1] = ["", "### Context I added", "", "we were migrating hooks that week"]
    return "\n".join(lines)


USER_EDITS: dict[str, tuple[Callable[[str], str], str]] = {
    "own-section": (_own_section, "my own thoughts about this session"),
    "line-under-message": (_line_under_message, "my comment: this one matters"),
    "new-heading": (_new_heading, "we were migrating hooks that week"),
}


@pytest.mark.parametrize("trigger", sorted(TRIGGERS))
@pytest.mark.parametrize("edit", sorted(USER_EDITS))
def test_user_text_survives_rerender(isolated_env: Path, trigger: str, edit: str) -> None:
    _hook(isolated_env, PROMPTS)
    page = isolated_env / "vault" / PAGE
    change, marker = USER_EDITS[edit]
    page.write_text(change(page.read_text(encoding="utf-8")), encoding="utf-8")
    before = page.read_text(encoding="utf-8")
    err = TRIGGERS[trigger](isolated_env)
    after = page.read_text(encoding="utf-8")
    assert marker in after and "conflict" not in err
    assert not list_conflicts(isolated_env / "vault")
    parsed = parse_page(after)  # still a valid page
    if trigger in ("hook", "backfill-grown"):
        assert parsed.messages[-1].text == GROWN[-1] and after != before
    if trigger == "classify":
        assert all(m.classification for m in parsed.messages)
    # a second run changes nothing more: carrying the user's text is a fixed point
    TRIGGERS[trigger](isolated_env)
    assert page.read_text(encoding="utf-8") == after and after.count(marker) == 1


@pytest.mark.parametrize("trigger", sorted(TRIGGERS))
def test_typo_fixed_in_a_message_is_a_conflict(isolated_env: Path, trigger: str) -> None:
    _hook(isolated_env, PROMPTS)
    page = isolated_env / "vault" / PAGE
    edited = page.read_text(encoding="utf-8").replace("keep them", "keep them all")
    edited = _own_section(edited)
    page.write_text(edited, encoding="utf-8")
    err = TRIGGERS[trigger](isolated_env)
    assert page.read_text(encoding="utf-8") == edited  # the user's file is left alone
    conflict = page.with_name("2026-04-14-80166115.conflict.md")
    assert list_conflicts(isolated_env / "vault") == [conflict]
    assert [line for line in err.splitlines() if "conflict" in line] == [
        f"memgraph: {page} was edited inside memgraph's text; left as is, new render in "
        "2026-04-14-80166115.conflict.md"
    ]
    new = conflict.read_text(encoding="utf-8")
    assert "my own thoughts about this session" in new  # their own text is carried too
    assert "keep them all" not in new  # the render shows what was said
    # copying the new render over the page resolves it: the next run writes again
    page.write_text(new, encoding="utf-8")
    _hook(isolated_env, [*GROWN, "one more after the fix"])
    assert "one more after the fix" in page.read_text(encoding="utf-8")
    assert not conflict.exists()


def _render(env: Path) -> str:
    result = runner.invoke(app, ["render", SID, "--no-notes"])
    assert result.exit_code == 0, result.output
    return result.stderr


@pytest.mark.parametrize("trigger", sorted([*TRIGGERS, "render"]))
def test_a_page_saved_in_latin1_is_left_byte_for_byte(isolated_env: Path, trigger: str) -> None:
    """An editor that saves the page in Latin-1: memgraph cannot read the page, so it
    leaves it alone and puts the new render beside it (it used to overwrite it)."""
    _hook(isolated_env, PROMPTS)
    page = isolated_env / "vault" / PAGE
    edited = page.read_bytes() + "\nmy note: café\n".encode("latin-1")
    page.write_bytes(edited)
    err = _render(isolated_env) if trigger == "render" else TRIGGERS[trigger](isolated_env)
    assert page.read_bytes() == edited
    conflict = page.with_name("2026-04-14-80166115.conflict.md")
    assert list_conflicts(isolated_env / "vault") == [conflict]
    assert f"{page} is not UTF-8 text memgraph can read" in err
    assert parse_page(conflict.read_text(encoding="utf-8")).session_id == SID


def test_frontmatter_keys_a_person_adds_survive(isolated_env: Path) -> None:
    """Obsidian properties (tags, aliases) are the user's; the property editor's
    re-serialisation of memgraph's own keys (quotes dropped, lists re-indented) is
    the same values, not an edit."""
    _hook(isolated_env, PROMPTS)
    page = isolated_env / "vault" / PAGE
    text = page.read_text(encoding="utf-8")
    head, rest = text.split("\n---\n", 1)
    head = head.replace("valid_from: '", "valid_from: ").replace("Z'\nvalid_to", "Z\nvalid_to")
    head = head.replace("sources:\n- ", "sources:\n  - ")
    assert "valid_from: 2026" in head and "sources:\n  - " in head  # really re-serialised
    page.write_text(f"{head}\ntags:\n  - voice\n  - hooks\naliases: [hook work]\n---\n{rest}")
    err = _hook_grown(isolated_env)
    after = page.read_text(encoding="utf-8")
    assert "conflict" not in err and not list_conflicts(isolated_env / "vault")
    meta, _, _ = split_frontmatter(after)
    # memgraph's tags (the project) stay, the person's are kept after them
    assert meta["tags"][-2:] == ["voice", "hooks"] and meta["aliases"] == ["hook work"]
    assert parse_page(after).messages[-1].text == GROWN[-1]


def test_probe_lists_conflicts(isolated_env: Path) -> None:
    _hook(isolated_env, PROMPTS)
    page = isolated_env / "vault" / PAGE
    page.write_text(page.read_text(encoding="utf-8").replace("# ", "# my title ", 1))
    _hook_grown(isolated_env)
    result = runner.invoke(app, ["probe", "--json", "--transcripts", str(isolated_env / "t")])
    data = json.loads(result.stdout)
    assert data["conflicts"] == [str(page.with_name("2026-04-14-80166115.conflict.md"))]
    text = runner.invoke(app, ["probe", "--transcripts", str(isolated_env / "t")]).stdout
    assert "conflicts=1" in text and "conflict.md" in text


def test_page_without_record_is_trusted_only_when_pristine(isolated_env: Path) -> None:
    """A page written before the record existed (no sidecar): user text outside the
    blocks is carried; an edited message is a conflict."""
    _hook(isolated_env, PROMPTS)
    page = isolated_env / "vault" / PAGE
    sidecar = page.with_name(f".{page.name}.mg")
    assert sidecar.is_file()
    sidecar.unlink()
    page.write_text(_own_section(page.read_text(encoding="utf-8")), encoding="utf-8")
    _hook_grown(isolated_env)
    assert "my own thoughts" in page.read_text(encoding="utf-8")
    sidecar.unlink()
    page.write_text(page.read_text(encoding="utf-8").replace("keep them", "keep it"))
    _hook(isolated_env, [*GROWN, "later"])
    assert page.with_name("2026-04-14-80166115.conflict.md").is_file()


def test_a_page_without_record_is_read_back_once_per_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trust check and memgraph's tags both need the page read back (a pydantic
    parse of every message): ``plan`` reads it once for both; the answer is the same."""
    from profiles.voice import pagekeep
    from profiles.voice import pages as pages_module

    page = voice_page(*(f"message {i}" for i in range(3)))
    path = tmp_path / "page.md"
    existing = _own_section(render_page(page))
    path.write_text(existing, encoding="utf-8")
    grown = voice_page(*(f"message {i}" for i in range(4)))
    rendered = render_page(grown)
    reads: list[str] = []
    real = pages_module.parse_page

    def counting(text: str, source: str = "page") -> object:
        reads.append(text)
        return real(text, source)

    monkeypatch.setattr(pages_module, "parse_page", counting)
    keep = pagekeep.plan(path, existing, rendered, grown)
    assert reads == [existing]
    assert keep.conflict_text is None and keep.page_text is not None
    assert "my own thoughts" in keep.page_text
    assert keep.page_text == merge(
        rendered, split_blocks(existing), pagekeep.memgraph_tags(existing)
    )


def test_merge_is_a_fixed_point() -> None:
    page = voice_page(*(f"message {i}" for i in range(3)))
    rendered = render_page(page)
    edited = _new_heading(_own_section(rendered))
    once = merge(rendered, split_blocks(edited))
    assert merge(rendered, split_blocks(once)) == once
    assert parse_page(once) == page


# -- properties ---------------------------------------------------------------


# a line a person writes outside memgraph's blocks: not a quote, marker, table row,
# fence or the page's own headings (those would be edits inside memgraph's text)
user_line = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1
).filter(
    lambda s: (
        s.strip() != ""
        and not s.startswith((">", "<!-- mg ", "|", "# "))
        and s not in ("---", "## Messages", "## Classifications")
    )
)


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",))), min_size=1, max_size=4
    ),
    inserts=st.lists(st.tuples(st.integers(0, 10_000), user_line), max_size=4),
    grow=st.booleans(),
)
def test_user_lines_survive_any_rerender(
    texts: list[str], inserts: list[tuple[int, str]], grow: bool
) -> None:
    """Lines inserted between memgraph's blocks survive a re-render (also one with
    a new message), the result still parses to the store's page, and merging
    again changes nothing."""
    old = voice_page(*texts)
    rendered = render_page(old)
    lines = rendered.split("\n")
    # only between blocks: positions right before a blank line (never inside a
    # message, the frontmatter or the table)
    spots = [i for i, line in enumerate(lines) if line == "" and i > 0]
    edited = list(lines)
    for pos, text in sorted(inserts, key=lambda t: -t[0]):
        at = spots[pos % len(spots)]
        edited[at:at] = ["", text]
    edited_text = "\n".join(edited)
    new = (
        old.model_copy(update={"messages": [*old.messages, page_entry("one more", 99)]})
        if grow
        else old
    )
    merged = merge(render_page(new), split_blocks(edited_text))
    for _, text in inserts:
        assert text in merged.split("\n")
    assert parse_page(merged) == new
    assert merge(render_page(new), split_blocks(merged)) == merged


@settings(max_examples=200, deadline=None)
@given(existing=st.text())
def test_any_file_content_is_kept_or_merged_never_a_crash(existing: str) -> None:
    """Whatever is in the page file, planning a write never raises: either the
    file is trusted (a render of its own parse) and merged, or a conflict render
    is proposed and the file is left alone."""
    import tempfile

    from profiles.voice.pagekeep import plan

    page = voice_page("first message", "second message")
    rendered = render_page(page)
    with tempfile.TemporaryDirectory() as tmp:
        keep = plan(Path(tmp) / "p.md", existing, rendered, page)
    if keep.page_text is None:
        assert keep.conflict_text is not None
        assert parse_page(keep.conflict_text) == page
    else:
        assert parse_page(keep.page_text) == page
