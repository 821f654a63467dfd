"""``replace_if_unchanged``: a file saved after the writer read it is never replaced."""

from __future__ import annotations

import os
import stat
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memgraph import fileio
from memgraph.beneath import FileEscape
from memgraph.errors import StoreError
from memgraph.fileio import (
    RACE_TRIES,
    Written,
    deferred_fsync,
    race_attempts,
    replace_if_unchanged,
    replace_text_if_unchanged,
    rewrite_if_unchanged,
)


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_equal_is_replaced_atomically_with_no_temp_left(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(b"old\n")
    before = os.stat(path).st_ino
    assert replace_if_unchanged(path, b"new\n", b"old\n")
    assert path.read_bytes() == b"new\n"
    assert os.stat(path).st_ino != before  # a rename, not a write into the old file
    assert _temps(tmp_path) == []


def test_a_save_after_the_read_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(b"read\n")
    path.write_bytes(b"read\nthe person's line\n")  # saved while memgraph rendered
    assert not replace_if_unchanged(path, b"render\n", b"read\n")
    assert path.read_bytes() == b"read\nthe person's line\n"
    assert _temps(tmp_path) == []


def test_a_save_that_only_appends_is_not_taken_for_equal(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(b"read\n+")
    assert not replace_if_unchanged(path, b"render\n", b"read\n")
    assert path.read_bytes() == b"read\n+"


def test_a_save_landing_after_the_temp_file_was_written_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save lands after the slow part (temp written and synced), right before
    the compare: still not replaced."""
    path = tmp_path / "page.md"
    path.write_bytes(b"read\n")
    real_fsync = os.fsync

    def fsync_then_save(fd: int) -> None:
        real_fsync(fd)
        if _temps(tmp_path):  # the temp file's sync, not the directory's
            path.write_bytes(b"saved meanwhile\n")

    monkeypatch.setattr(fileio.os, "fsync", fsync_then_save)
    assert not replace_if_unchanged(path, b"render\n", b"read\n")
    assert path.read_bytes() == b"saved meanwhile\n"
    assert _temps(tmp_path) == []


def test_expected_absent_but_the_file_appeared(tmp_path: Path) -> None:
    path = tmp_path / "new.md"
    assert replace_text_if_unchanged(path, "first\n", None)
    assert path.read_text() == "first\n"
    other = tmp_path / "other.md"
    other.write_text("a person made it first\n")
    assert not replace_text_if_unchanged(other, "render\n", None)
    assert other.read_text() == "a person made it first\n"
    assert _temps(tmp_path) == []


def test_expected_text_but_the_file_was_removed(tmp_path: Path) -> None:
    path = tmp_path / "gone.md"
    assert not replace_text_if_unchanged(path, "render\n", "read\n")
    assert not path.exists()
    assert _temps(tmp_path) == []


def test_a_file_that_became_a_symlink_is_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"read\n")
    path = tmp_path / "page.md"
    path.symlink_to(secret)  # the same bytes, through a link: never equal
    assert not replace_if_unchanged(path, b"render\n", b"read\n")
    assert path.is_symlink()
    assert secret.read_bytes() == b"read\n"
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "nowhere")
    assert not replace_if_unchanged(dangling, b"render\n", None)  # not absent
    assert dangling.is_symlink() and not (tmp_path / "nowhere").exists()
    assert _temps(tmp_path) == []


def test_a_file_that_became_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    os.mkfifo(path)  # a blocking open for reading would wait for a writer forever
    assert not replace_if_unchanged(path, b"render\n", b"read\n")
    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    assert _temps(tmp_path) == []


def test_an_interrupt_at_the_compare_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(b"read\n")

    def interrupted(p: Path, expected: bytes | None) -> bool:
        raise KeyboardInterrupt

    monkeypatch.setattr(fileio, "_holds", interrupted)
    with pytest.raises(KeyboardInterrupt):
        replace_if_unchanged(path, b"render\n", b"read\n")
    assert path.read_bytes() == b"read\n"
    assert _temps(tmp_path) == []


def test_a_lost_race_owes_no_deferred_fsync(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(b"saved\n")
    with deferred_fsync():
        assert not replace_if_unchanged(path, b"render\n", b"read\n")
        owed = fileio._DEFERRED.get()
        assert owed == []
        assert replace_if_unchanged(path, b"render\n", b"saved\n")
        assert fileio._DEFERRED.get() == [tmp_path]  # its folder's sync, at the end
    assert path.read_bytes() == b"render\n"


def test_deferred_fsync_syncs_each_file_before_its_rename_and_each_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside ``deferred_fsync`` only the folders' syncs wait: a file's data reaches
    the disk before its name points at it (a rename committed first leaves an empty
    or partial file after a crash), so a crash leaves each file old or new, whole."""
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: str, dst: Path) -> None:
        events.append(("rename", str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    pages = [tmp_path / "a" / f"{i}.md" for i in range(3)] + [tmp_path / "b" / "x.md"]
    with deferred_fsync():
        with deferred_fsync():  # a block inside another joins it
            for page in pages:
                fileio.atomic_write_text(page, f"{page.name}\n")
            assert replace_if_unchanged(pages[0], b"again\n", b"0.md\n")
        assert not [e for e in events if e[1] in (str(tmp_path / "a"), str(tmp_path / "b"))]
    renames = [i for i, e in enumerate(events) if e[0] == "rename"]
    assert len(renames) == 5
    for i in renames:  # the file synced right before it was renamed: its temp file
        kind, synced = events[i - 1]
        assert kind == "fsync" and Path(synced).name.startswith(f".{Path(events[i][1]).name}.")
    folders = [e[1] for e in events[renames[-1] + 1 :]]
    assert folders == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert [p.read_text() for p in pages] == ["again\n", "1.md\n", "2.md\n", "x.md\n"]


def test_race_attempts_gives_up_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    tries = []
    with pytest.raises(StoreError) as info:
        for attempt in race_attempts(path):
            tries.append(attempt)
    assert tries == [0, 1, 2]
    assert str(info.value) == (
        f"{path} kept changing while memgraph wrote it; nothing overwritten, rerun"
    )
    for _ in race_attempts(path):
        break  # a write that went through: no error


def test_hook_install_keeps_a_settings_save_made_after_its_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from profiles.wakeup import install as hooks_install

    path = tmp_path / "settings.json"
    path.write_text('{"a": 1}\n')
    real_load = hooks_install._load

    def load_then_save(p: Path) -> object:
        got = real_load(p)
        p.write_text('{"a": 1, "theme": "dark"}\n')  # Claude Code saves meanwhile
        return got

    monkeypatch.setattr(hooks_install, "_load", load_then_save)
    with pytest.raises(StoreError, match="changed while memgraph read it"):
        hooks_install.install(path, "memgraph")
    assert path.read_text() == '{"a": 1, "theme": "dark"}\n'


# -- rewrite_if_unchanged: the read-plan-write loop of every view writer -------------

MINE = "memgraph's line\n"


def _carry(seen: list[str | None], saves: list[bytes], path: Path) -> fileio.Plan:
    """A plan that keeps what it read and adds memgraph's line; each call records what
    it read, then lands the next of ``saves`` (a person's save between read and write)."""

    def plan(current: str | None) -> str:
        seen.append(current)
        if saves:
            path.write_bytes(saves.pop(0))
        return (current or "") + MINE

    return plan


def test_rewrite_writes_the_plan_and_says_what_it_replaced(tmp_path: Path) -> None:
    path = tmp_path / "view.md"
    path.write_bytes(b"a person's text\n")
    seen: list[str | None] = []
    done = rewrite_if_unchanged(path, _carry(seen, [], path))
    assert done == Written("a person's text\n", "a person's text\n" + MINE)
    assert path.read_bytes().decode() == "a person's text\n" + MINE
    assert seen == ["a person's text\n"] and _temps(tmp_path) == []


def test_rewrite_plans_again_from_a_save_landing_after_its_read(tmp_path: Path) -> None:
    path = tmp_path / "view.md"
    path.write_bytes(b"read\n")
    seen: list[str | None] = []
    done = rewrite_if_unchanged(path, _carry(seen, [b"read\nsaved meanwhile\n"], path))
    assert seen == ["read\n", "read\nsaved meanwhile\n"]  # planned again over the save
    assert done == Written("read\nsaved meanwhile\n", "read\nsaved meanwhile\n" + MINE)
    assert path.read_bytes().decode() == "read\nsaved meanwhile\n" + MINE
    assert _temps(tmp_path) == []


def test_rewrite_gives_up_after_three_lost_races_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "view.md"
    path.write_bytes(b"read\n")
    seen: list[str | None] = []
    saves = [f"save {n}\n".encode() for n in range(4)]
    with pytest.raises(StoreError) as info:
        rewrite_if_unchanged(path, _carry(seen, saves, path))
    assert str(info.value) == (
        f"{path} kept changing while memgraph wrote it; nothing overwritten, rerun"
    )
    assert seen == ["read\n", "save 0\n", "save 1\n"]  # three attempts, no more
    assert path.read_bytes() == b"save 2\n"  # the person's last save, not replaced
    assert saves == [b"save 3\n"] and _temps(tmp_path) == []


@pytest.mark.parametrize("plan_says", ["leave", "same text"])
def test_rewrite_with_nothing_to_do_writes_nothing(tmp_path: Path, plan_says: str) -> None:
    path = tmp_path / "view.md"
    path.write_bytes(b"as it is\n")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # an mtime no write keeps
    before = os.stat(path)
    seen: list[str | None] = []

    def plan(current: str | None) -> str | None:
        seen.append(current)
        return None if plan_says == "leave" else current

    assert rewrite_if_unchanged(path, plan) is None
    after = os.stat(path)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert path.read_bytes() == b"as it is\n" and seen == ["as it is\n"]
    assert _temps(tmp_path) == []


def test_rewrite_of_an_absent_file(tmp_path: Path) -> None:
    path = tmp_path / "new" / "view.md"
    assert rewrite_if_unchanged(path, lambda current: None) is None  # left absent
    assert not path.exists()
    seen: list[str | None] = []
    assert rewrite_if_unchanged(path, _carry(seen, [], path)) == Written(None, MINE)
    assert seen == [None] and path.read_bytes().decode() == MINE


def test_rewrite_of_a_file_appearing_after_its_read_plans_over_it(tmp_path: Path) -> None:
    path = tmp_path / "view.md"
    seen: list[str | None] = []
    done = rewrite_if_unchanged(path, _carry(seen, [b"a person made it first\n"], path))
    assert seen == [None, "a person made it first\n"]
    assert done == Written("a person made it first\n", "a person made it first\n" + MINE)


def test_rewrite_refuses_a_symlink_and_a_fifo_before_planning(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"not a view\n")
    link = tmp_path / "link.md"
    link.symlink_to(secret)
    fifo = tmp_path / "fifo.md"
    os.mkfifo(fifo)  # a blocking open would wait for a writer forever
    for path in (link, fifo):
        seen: list[str | None] = []
        with pytest.raises(FileEscape):
            rewrite_if_unchanged(path, _carry(seen, [], path))
        assert seen == []  # nothing planned from what is behind it
    assert link.is_symlink() and secret.read_bytes() == b"not a view\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and _temps(tmp_path) == []


def test_rewrite_refuses_a_path_outside_its_root(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    outside = tmp_path / "elsewhere" / "view.md"
    with pytest.raises(FileEscape):
        rewrite_if_unchanged(outside, lambda current: MINE, root=root)
    assert not outside.parent.exists()


def test_rewrite_that_becomes_a_symlink_after_its_read_is_not_followed(
    tmp_path: Path,
) -> None:
    """A link planted between the read and the rename: the lost race is read again,
    and that read refuses the link."""
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"read\n")
    path = tmp_path / "view.md"
    path.write_bytes(b"read\n")

    def plan(current: str | None) -> str:
        path.unlink()
        path.symlink_to(secret)  # the same bytes, through a link
        return "render\n"

    with pytest.raises(FileEscape):
        rewrite_if_unchanged(path, plan)
    assert path.is_symlink() and secret.read_bytes() == b"read\n"
    assert _temps(tmp_path) == []


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    first=st.none() | st.text(max_size=30),
    saves=st.lists(st.text(max_size=30), max_size=RACE_TRIES + 1),
)
def test_rewrite_plans_from_every_save_and_never_replaces_one_it_did_not_read(
    tmp_path_factory: pytest.TempPathFactory, first: str | None, saves: list[str]
) -> None:
    """Any run of saves, one landing inside each attempt: below ``RACE_TRIES`` the file
    ends as the plan of the last save (so every save is carried); from there on, the
    one-line error and the person's last save left as it is."""
    chain = [first, *saves]
    # a "save" of the very bytes read is no change: the write goes through then
    assume(all(a != b for a, b in pairwise(chain)))
    folder = tmp_path_factory.mktemp("view")
    path = folder / "view.md"
    if first is not None:
        path.write_bytes(first.encode())
    seen: list[str | None] = []
    plan = _carry(seen, [s.encode() for s in saves], path)
    if len(saves) < RACE_TRIES:
        done = rewrite_if_unchanged(path, plan)
        assert seen == chain
        assert done == Written(chain[-1], (chain[-1] or "") + MINE)
        assert path.read_bytes().decode() == (chain[-1] or "") + MINE
    else:
        with pytest.raises(StoreError, match="kept changing while memgraph wrote it"):
            rewrite_if_unchanged(path, plan)
        assert seen == chain[:RACE_TRIES]
        assert path.read_bytes().decode() == saves[RACE_TRIES - 1]
    assert _temps(folder) == []
