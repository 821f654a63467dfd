"""Hangs: every path argument that is not a regular file is refused up front."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _hostile import Tree, assert_one_error_line, env_for, run

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")


def _fifo(root: Path, name: str) -> Path:
    p = root / name
    os.mkfifo(p)
    return p


# name -> builds the special file under root (or names a device)
SPECIALS: dict[str, Callable[[Path, str], Path]] = {
    "fifo": _fifo,
    "dev-zero": lambda root, name: Path("/dev/zero"),
    "dev-urandom": lambda root, name: Path("/dev/urandom"),
    "directory": lambda root, name: (root / name).mkdir() or root / name,
}


@pytest.mark.parametrize("kind", sorted(SPECIALS))
@pytest.mark.parametrize(
    "command",
    ["hook", "extract", "validate", "snapshot-import", "hook-install", "backfill-root-file"],
)
def test_non_regular_path_arguments_are_refused(
    sandbox: dict[str, Path], kind: str, command: str
) -> None:
    root = sandbox["root"]
    if not Path("/dev/zero").exists() and kind.startswith("dev"):
        pytest.skip("no /dev/zero")
    target = SPECIALS[kind](root, "thing.jsonl" if command != "snapshot-import" else "s.json")
    env = env_for(root)
    outside = Tree(sandbox["outside"])
    if command == "hook":
        payload = json.dumps({"transcript_path": str(target), "session_id": "s1"}).encode()
        r = run("hook", "session-end", stdin=payload, env=env)
    elif command == "extract":
        r = run("voice", "extract", str(target), env=env)
    elif command == "validate":
        r = run("validate", str(target), env=env)
        # validate lists problems on stdout, one line, exit 1
        assert r.code == 1 and not r.timed_out and "Traceback" not in r.err
        assert len(r.out.strip().splitlines()) == 1
        assert "not a store or snapshot file" in r.out or "directory" in r.out
        return
    elif command == "snapshot-import":
        r = run("snapshot", "import", str(target), env=env)
    elif command == "hook-install":
        r = run("hook", "install", "--settings", str(target), env=env)
    else:
        # a special file given as a transcript root: skipped with a word, run goes on
        r = run("voice", "--backfill", "--transcripts", str(target), env=env)
        assert r.code == 0 and not r.timed_out and "Traceback" not in r.err, r.err
        assert "skipped" in r.err or "not read" in r.out or kind == "directory"
        assert outside.unchanged(), outside.diff()
        return
    line = assert_one_error_line(r)
    assert "regular file" in line or "directory" in line, line
    assert outside.unchanged(), outside.diff()
    # a refused input creates no store
    assert not (root / "mg-home" / "memgraph.db").exists()


def test_wiki_validate_refuses_a_fifo_page_and_checks_the_rest(sandbox: dict[str, Path]) -> None:
    root = sandbox["root"]
    wiki = root / "wiki"
    wiki.mkdir()
    os.mkfifo(wiki / "pipe.md")
    (wiki / "good.md").write_text(
        "---\ntitle: Good\ntype: overview\ncreated: 2026-04-14\nupdated: 2026-04-15\n---\nbody\n"
    )
    (wiki / "mixed.md").write_text(
        "---\ntitle: Mixed\ntype: overview\ncreated: 2026-04-14\n"
        "updated: 2026-04-14T14:40:00Z\n---\nbody\n"
    )
    r = run("wiki", "validate", str(wiki), env=env_for(root))
    assert not r.timed_out and "Traceback" not in r.err, r.err
    assert r.code == 1
    assert "pipe.md: error: cannot read: it is a FIFO" in r.out
    assert "mixed.md: error: updated must be a date" in r.out
    assert "3 pages, 2 errors" in r.err


@pytest.mark.parametrize(
    ("path", "expect"),
    [("a\u0000b.jsonl", "NUL"), ("a\ud800b.jsonl", "surrogate"), ("", "no transcript_path")],
)
def test_hook_transcript_path_that_no_file_can_have(
    sandbox: dict[str, Path], path: str, expect: str
) -> None:
    payload = json.dumps({"transcript_path": path, "session_id": "s1"}).encode()
    r = run("hook", "session-end", stdin=payload, env=env_for(sandbox["root"]))
    assert_one_error_line(r, contains=expect)


def test_settings_symlink_edits_the_target_keeps_mode_and_a_backup(
    sandbox: dict[str, Path],
) -> None:
    root = sandbox["root"]
    dotfiles = root / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "settings.json"
    real.write_text('{"model": "opus"}\n')
    real.chmod(0o644)
    link = root / "settings.json"
    link.symlink_to(real)
    r = run("hook", "install", "--settings", str(link), env=env_for(root))
    assert r.code == 0, r.err
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert (real.stat().st_mode & 0o777) == 0o644
    data = json.loads(real.read_text())
    assert data["model"] == "opus" and "SessionEnd" in data["hooks"]
    backup = dotfiles / "settings.json.bak"
    assert backup.read_text() == '{"model": "opus"}\n'


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (("voice", "caf\udce9"), "the input holds bytes that are not valid UTF-8"),
        (("remember", "caf\udce9 memory", "--session", "s1"), "the memory's text holds NUL"),
        (("propose", "role_self", "caf\udce9", "--session", "s1"), "the memory's text holds NUL"),
    ],
)
def test_text_arguments_in_another_encoding_are_named(
    sandbox: dict[str, Path], args: tuple[str, ...], expect: str
) -> None:
    """An argument whose bytes are not UTF-8 (the OS hands them over as lone
    surrogates) was "input out of range or not encodable: UnicodeEncodeError ..." for
    a search and "p-...: a document cannot be stored as UTF-8 JSON (Error serializing
    ...)" for a memory; now a line that says what is wrong with the input."""
    env = env_for(sandbox["root"])
    seeded = run("note", "seed", "--session", "s1", env=env)  # a store to search
    assert seeded.code == 0, seeded.err
    assert_one_error_line(run(*args, env=env), contains=expect)
