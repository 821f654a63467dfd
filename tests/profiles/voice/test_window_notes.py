"""Window notes: every ``[[aw-...]]`` a voice page links resolves to a note in the vault.

Through the CLI on a real git repository: capture (hook), ``windows``, a late
commit that changes the window, a late commit that renames it, hand edits to
the note, ``forget`` and ``wiki validate``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import SID, claude_records, write_transcript

runner = CliRunner()
PROMPTS = ["run the tests please", "add retry with jitter to the http client", "ship it on monday"]
WID = "aw-2026-04-14-1432"  # claude_records: the first message at 14:32:05 UTC
LINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")


def _git(repo: Path, when: datetime, *args: str) -> None:
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp, LC_ALL="C")
    config = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    config += ["-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]
    subprocess.run(["git", "-C", str(repo), *config, *args], check=True, env=env, timeout=60)


def _commit(repo: Path, minute: int, subject: str) -> None:
    when = datetime(2026, 4, 14, 14, minute, tzinfo=UTC)
    (repo / f"f{minute}.py").write_text(f"# {subject}\n")
    _git(repo, when, "add", ".")
    _git(repo, when, "commit", "-q", "-m", subject)


@pytest.fixture
def world(isolated_env: Path) -> Path:
    """A repo with a commit 4 minutes after the first message; the session captured."""
    repo = isolated_env / "work" / "atlas"
    repo.mkdir(parents=True)
    _git(repo, datetime(2026, 4, 14, tzinfo=UTC), "init", "-q")
    _commit(repo, 36, "http client: backoff with jitter")
    records = claude_records(PROMPTS, cwd=str(repo))
    path = write_transcript(isolated_env / "transcripts" / f"{SID}.jsonl", records)
    payload = json.dumps({"session_id": SID, "transcript_path": str(path), "cwd": str(repo)})
    hook = runner.invoke(app, ["hook", "session-end"], input=payload)
    assert hook.exit_code == 0, hook.output
    return repo


def _windows() -> str:
    out = runner.invoke(app, ["windows"])
    assert out.exit_code == 0, out.output
    return out.stdout


def _vault(env: Path) -> Path:
    return env / "vault"


def _page(env: Path) -> Path:
    (page,) = _vault(env).glob("*/voice/*.md")
    return page


def _dangling(vault: Path) -> list[str]:
    """Every [[link]] of every note and page that names no file of the vault."""
    files = [p for p in vault.rglob("*.md") if not p.name.startswith(".")]
    names = {p.stem for p in files} | {
        p.relative_to(vault).with_suffix("").as_posix() for p in files
    }
    bad = []
    for p in files:
        for target in LINK.findall(p.read_text()):
            if target not in names:
                bad.append(f"{p.name}: [[{target}]]")
    return bad


def test_every_page_link_resolves_to_a_window_note(world: Path, isolated_env: Path) -> None:
    assert _windows().startswith(f"{WID}  ")
    vault = _vault(isolated_env)
    page_text = _page(isolated_env).read_text()
    assert f"- '[[{WID}]]'" in page_text
    assert LINK.findall(page_text) == [WID]
    note = (vault / "windows" / f"{WID}.md").read_text()
    assert _dangling(vault) == []
    # terse: the span, and one line per artifact, linking back to the page
    assert "# aw-2026-04-14-1432 — 1 commit, 3 messages in atlas" in note
    page_link = f"[[atlas/voice/{_page(isolated_env).stem}|80166115]]"
    assert f"- 14:35 message {page_link} — add retry with jitter to the http client" in note
    assert re.search(r"^- 14:36 commit atlas@[0-9a-f]{8} — http client: backoff", note, re.M)
    assert len(re.findall(r"^- \d\d:\d\d ", note, re.M)) == 4 and len(note) < 1200
    # an unchanged rerun writes nothing; the vault validates
    before = note
    again = runner.invoke(app, ["windows"])
    assert "window notes: 0 written, 0 removed" in again.stderr
    assert (vault / "windows" / f"{WID}.md").read_text() == before
    check = runner.invoke(app, ["wiki", "validate", str(vault)])
    assert check.exit_code == 0, check.output
    assert "0 errors, 0 warnings" in check.output


def test_a_changed_window_rerenders_its_note_and_keeps_a_persons_lines(
    world: Path, isolated_env: Path
) -> None:
    _windows()
    path = _vault(isolated_env) / "windows" / f"{WID}.md"
    path.write_text(path.read_text() + "\nmy own line about this window\n")
    _commit(world, 37, "retry: cap the backoff")
    _windows()
    note = path.read_text()
    assert "# aw-2026-04-14-1432 — 2 commits, 3 messages in atlas" in note
    assert "retry: cap the backoff" in note and "my own line about this window" in note
    assert not list(path.parent.glob("*.conflict.md"))
    # an edit inside memgraph's lines: the note is left alone, the render goes beside it
    edited = note.replace("retry: cap the backoff", "retry: my wording")
    path.write_text(edited)
    _commit(world, 38, "retry: tests")
    _windows()
    assert path.read_text() == edited
    (conflict,) = path.parent.glob("*.conflict.md")
    assert "retry: tests" in conflict.read_text() and "my own line" in conflict.read_text()
    probe = runner.invoke(app, ["probe"])
    assert "conflict" in probe.output


def test_a_renamed_window_moves_its_note(world: Path, isolated_env: Path) -> None:
    _windows()
    vault = _vault(isolated_env)
    old = vault / "windows" / f"{WID}.md"
    assert old.is_file()
    _commit(world, 25, "an earlier commit: the window now starts at 14:25")
    out = runner.invoke(app, ["windows"])
    assert out.exit_code == 0 and out.stdout.startswith("aw-2026-04-14-1425  ")
    assert "window notes: 1 written, 1 removed" in out.stderr  # the summary counts notes
    assert not old.exists() and not (vault / "windows" / f".{WID}.md.mg").exists()
    assert (vault / "windows" / "aw-2026-04-14-1425.md").is_file()
    assert LINK.findall(_page(isolated_env).read_text()) == ["aw-2026-04-14-1425"]
    assert _dangling(vault) == []


def test_a_stale_note_a_person_wrote_in_is_kept(world: Path, isolated_env: Path) -> None:
    _windows()
    old = _vault(isolated_env) / "windows" / f"{WID}.md"
    old.write_text(old.read_text() + "\nnotes I keep\n")
    _commit(world, 25, "an earlier commit")
    _windows()
    assert "notes I keep" in old.read_text()


def test_forget_rerenders_the_note(world: Path, isolated_env: Path) -> None:
    _windows()
    vault = _vault(isolated_env)
    path = vault / "windows" / f"{WID}.md"
    path.write_text(path.read_text() + "\nI asked for jitter here\n")
    out = runner.invoke(app, ["forget", "--query", "jitter to the http", "--yes", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["notes_rewritten"] == [WID]
    note = path.read_text()
    assert "add retry with jitter" not in note
    assert "— \\[forgotten]" in note  # escaped: no text on a note makes a link
    assert "I asked for jitter here" in note  # the person's line stays
    whole = runner.invoke(app, ["forget", "--session", SID, "--yes"])
    assert whole.exit_code == 0, whole.output
    assert not list(vault.glob("*/voice/*.md"))
    note = path.read_text()
    assert "session 80166115" in note and "[[atlas/voice" not in note
    assert not any(t in note for t in PROMPTS)
    assert _dangling(vault) == []


def test_wiki_validate_knows_window_notes(world: Path, isolated_env: Path) -> None:
    from profiles.voice.wiki import validate_wiki_page

    _windows()
    note = (_vault(isolated_env) / "windows" / f"{WID}.md").read_text()
    assert validate_wiki_page(note) == []
    broken = note.replace(f"window_id: {WID}\n", "").replace("start: '", "start: 'x")
    assert [p.message for p in validate_wiki_page(broken)] == [
        "window note misses 'window_id'",
        "start must be an ISO-8601 timestamp with a timezone",
    ]


def test_a_note_saved_in_latin1_is_left_byte_for_byte(world: Path, isolated_env: Path) -> None:
    _windows()
    path = _vault(isolated_env) / "windows" / f"{WID}.md"
    edited = path.read_bytes() + "\nmy note: café\n".encode("latin-1")
    path.write_bytes(edited)
    _commit(world, 37, "retry: cap the backoff")
    out = runner.invoke(app, ["windows"])
    assert out.exit_code == 0, out.output
    assert path.read_bytes() == edited
    conflict = path.with_name(f"{WID}.conflict.md")
    assert "retry: cap the backoff" in conflict.read_text(encoding="utf-8")
    assert f"{path} is not UTF-8 text memgraph can read; left as is" in out.stderr


def test_forget_leaves_a_latin1_page_and_note_and_says_so(world: Path, isolated_env: Path) -> None:
    _windows()
    note = _vault(isolated_env) / "windows" / f"{WID}.md"
    page = _page(isolated_env)
    kept = {}
    for path in (note, page):
        kept[path] = path.read_bytes() + "\nmy note: café\n".encode("latin-1")
        path.write_bytes(kept[path])
    out = runner.invoke(app, ["forget", "--session", SID, "--yes", "--json"])
    assert out.exit_code == 1, out.output  # the text may still be in them: not done
    report = json.loads(out.stdout)
    rel_page = page.relative_to(_vault(isolated_env)).as_posix()
    assert report["left_unreadable"] == [rel_page, f"windows/{WID}.md"]
    assert report["pages_removed"] == [] and report["notes_rewritten"] == []
    for path, data in kept.items():
        assert path.read_bytes() == data
        assert (
            f"warning: {path} is not UTF-8 text; left as is and may still hold the "
            "forgotten text: remove it from there by hand\n"
        ) in out.stderr


def test_forget_of_one_message_in_a_latin1_page_is_reported(
    world: Path, isolated_env: Path
) -> None:
    _windows()
    page = _page(isolated_env)
    kept = page.read_bytes() + "\nmy note: café\n".encode("latin-1")
    page.write_bytes(kept)
    out = runner.invoke(app, ["forget", "--query", "jitter to the http", "--yes"])
    assert out.exit_code == 1 and "Traceback" not in out.output, out.output
    assert page.read_bytes() == kept
    assert f"warning: {page} is not UTF-8 text; left as is" in out.stderr
    conflict = page.with_name(page.stem + ".conflict.md")
    assert "jitter" not in conflict.read_text(encoding="utf-8")


def test_a_line_saved_in_a_note_while_it_rerenders_is_kept(
    world: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save landing after memgraph read the note (Obsidian autosave while
    ``windows`` runs) is merged in by a second read, never replaced."""
    from profiles.voice import pagekeep

    _windows()
    path = _vault(isolated_env) / "windows" / f"{WID}.md"
    path.write_text(path.read_text() + "\nmy own line about this window\n")
    real = pagekeep.recorded_digests
    saves = ["typed while windows ran"]

    def read_then_save(p: Path) -> list[str] | None:
        known = real(p)
        if p == path and saves:
            p.write_text(p.read_text() + f"\n{saves.pop()}\n")
        return known

    monkeypatch.setattr(pagekeep, "recorded_digests", read_then_save)
    _commit(world, 37, "retry: cap the backoff")
    _windows()
    assert not saves  # the save landed between the read and the write
    note = path.read_text()
    assert "retry: cap the backoff" in note and "my own line about this window" in note
    assert "typed while windows ran" in note
    assert not list(path.parent.glob("*.conflict.md"))


def test_a_notes_page_links_are_checked_once_per_session(
    world: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each message line links its session's page after a resolve and a stat of it:
    29k messages in 2,000 windows cost `render` ~6 s. One check per session now; the
    note is the same (the link test above pins its text)."""
    from profiles.activity import winnote

    calls: list[str | None] = []
    real = winnote._link

    def counting(vault: Path, relpath: str | None, label: str) -> str | None:
        calls.append(relpath)
        return real(vault, relpath, label)

    renders: list[str] = []
    real_render = winnote.render_note

    def counting_render(*args: object) -> str:
        renders.append("note")
        return real_render(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(winnote, "_link", counting)
    monkeypatch.setattr(winnote, "render_note", counting_render)
    _windows()
    messages = [c for c in calls if c is not None and "/voice/" in c]
    assert renders and len(messages) == len(renders)  # three messages, one check a render
    note = (_vault(isolated_env) / "windows" / f"{WID}.md").read_text()
    assert note.count(f"[[atlas/voice/{_page(isolated_env).stem}|80166115]]") == 3
