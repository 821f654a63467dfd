"""A person's save landing while memgraph renders a voice page is never lost.

Obsidian autosaves every ~2 s; capture runs from a SessionEnd hook while the person
may be typing in that very page. Each test lands a save right after memgraph read
and planned the page, before its write: the save is carried over (own text), or
left as is with the new render beside it (an edit inside memgraph's text), never
silently replaced.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.voice import pagekeep
from profiles.voice.pagekeep import KeepResult
from profiles.voice.pagepath import VaultError
from profiles.voice.pages import parse_page
from profiles.voice.views import write_page_file

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import voice_page

REL = PurePosixPath("atlas/voice/2026-04-14-80166115.md")
MESSAGES = ["keep them short", "add the hook to the readme"]


def _saves_during_plan(
    monkeypatch: pytest.MonkeyPatch, saves: list[Callable[[Path], None]]
) -> list[int]:
    """Each plan call runs the next save right after planning (so it lands between
    the read and the write); returns the list the plan calls are counted in."""
    real = pagekeep.plan
    calls: list[int] = []

    def plan_then_save(path: Path, existing: str | None, rendered: str, page: object) -> KeepResult:
        keep = real(path, existing, rendered, page)  # type: ignore[arg-type]
        calls.append(1)
        if saves:
            saves.pop(0)(path)
        return keep

    monkeypatch.setattr(pagekeep, "plan", plan_then_save)
    return calls


def _written(vault: Path) -> Path:
    """The page of ``MESSAGES``, written into ``vault`` by memgraph."""
    assert write_page_file(vault, REL, voice_page(*MESSAGES))
    return vault / REL


def _append(line: str) -> Callable[[Path], None]:
    def save(path: Path) -> None:
        path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")

    return save


def test_own_text_saved_during_a_render_is_carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    page = _written(vault)
    _append("## Notes")(page)
    calls = _saves_during_plan(monkeypatch, [_append("typed while the hook ran")])
    assert write_page_file(vault, REL, voice_page(*MESSAGES, "one more"))
    after = page.read_text(encoding="utf-8")
    assert "typed while the hook ran" in after and "## Notes" in after
    assert parse_page(after).messages[-1].text == "one more"
    assert len(calls) == 2  # planned again over the save
    assert not pagekeep.conflict_path(page).exists()


def test_an_edit_inside_memgraphs_text_saved_during_a_render_is_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "vault"
    page = _written(vault)

    def fix_a_typo(path: Path) -> None:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("keep them short", "keep them shorter"), encoding="utf-8")

    _saves_during_plan(monkeypatch, [fix_a_typo])
    assert not write_page_file(vault, REL, voice_page(*MESSAGES, "one more"))
    assert "keep them shorter" in page.read_text(encoding="utf-8")  # left as the person saved
    conflict = pagekeep.conflict_path(page).read_text(encoding="utf-8")
    assert "one more" in conflict and "keep them shorter" not in conflict
    assert "was edited inside memgraph's text" in capsys.readouterr().err


def test_a_file_a_person_created_during_the_first_render_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    page = vault / REL

    def create(path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("my own page, same name\n", encoding="utf-8")

    _saves_during_plan(monkeypatch, [create])
    assert not write_page_file(vault, REL, voice_page(*MESSAGES))
    assert page.read_text(encoding="utf-8") == "my own page, same name\n"
    assert "keep them short" in pagekeep.conflict_path(page).read_text(encoding="utf-8")


def test_a_page_that_keeps_changing_is_not_written_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    page = _written(vault)
    _saves_during_plan(monkeypatch, [_append(f"save {n}") for n in range(3)])
    with pytest.raises(VaultError, match="kept changing while memgraph wrote it; nothing ove"):
        write_page_file(vault, REL, voice_page(*MESSAGES, "one more"))
    after = page.read_text(encoding="utf-8")
    assert "save 2" in after and "one more" not in after
    assert not [p for p in page.parent.iterdir() if p.name.endswith(".tmp")]


def _saved(line: str, saved: list[str]) -> Callable[[Path], None]:
    def save(path: Path) -> None:
        _append(line)(path)
        saved.append(line)

    return save


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(
        st.tuples(st.booleans(), st.integers(0, 2)), min_size=1, max_size=6
    )  # (a new message in this render?, saves landing during it)
)
def test_the_persons_last_save_is_never_lost(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    steps: list[tuple[bool, int]],
) -> None:
    """Renders with 0-2 saves landing inside each (and one before it; a render with
    nothing new to write plans once, so it meets only one): every line the person
    saved is on the page afterwards, never lost to a render."""
    vault = tmp_path_factory.mktemp("vault")
    texts = list(MESSAGES)
    assert write_page_file(vault, REL, voice_page(*texts))
    page = vault / REL
    saved: list[str] = []
    for n, (grow, during) in enumerate(steps, 1):
        saved.append(f"note {n} before")
        _append(saved[-1])(page)
        lines = [f"note {n} during {i}" for i in range(during)]
        with monkeypatch.context() as m:
            _saves_during_plan(m, [_saved(line, saved) for line in lines])
            if grow:
                texts.append(f"message {n}")
            write_page_file(vault, REL, voice_page(*texts))
        after = page.read_text(encoding="utf-8")
        assert all(line in after.split("\n") for line in saved)
        assert not pagekeep.conflict_path(page).exists()
    assert parse_page(page.read_text(encoding="utf-8")).messages[-1].text == texts[-1]


def test_a_page_created_during_the_lean_hooks_write_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lean capture writes a new session's page only where no file is; one a
    person saved there right after its check goes to the store path, which keeps it."""
    import json

    from _capture_helpers import PROMPTS, SID, claude_records, write_transcript

    from memgraph.store import open_store
    from profiles.voice import hooks, leanpage

    db, vault = tmp_path / "mg.db", tmp_path / "vault"
    open_store(db).close()
    transcript = write_transcript(tmp_path / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    real_read = leanpage.read_text_nofollow
    lean: list[object] = []

    def read_then_save(path: Path) -> str | None:
        text = real_read(path)
        if text is None and not lean:  # the lean path's check: nothing there yet
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("my own page, same name\n", encoding="utf-8")
            lean.append(path)
        return text

    monkeypatch.setattr(leanpage, "read_text_nofollow", read_then_save)
    payload = json.dumps({"transcript_path": str(transcript), "session_id": SID})
    hooks.session_end(payload, db, vault)
    assert lean  # the lean path ran; the save landed between its check and its write
    [page] = [p for p in vault.glob("*/voice/*.md") if not p.name.endswith(".conflict.md")]
    assert page.read_text(encoding="utf-8") == "my own page, same name\n"
    assert "keep them" in pagekeep.conflict_path(page).read_text(encoding="utf-8")
