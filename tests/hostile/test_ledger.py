"""Silent drops and one bad record: the ingest ledger accounts for every line.

A transcript directory holding clean transcripts plus every bad file and bad
record class of issue 15 is backfilled; the run exits 0, prints one ledger line
with per-reason counts, the counts add up to the lines read, and every message
a clean run keeps is in the store.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _hostile import SAMPLE, Tree, assert_no_traceback, env_for, run, store_messages

CLAUDE = sorted((SAMPLE / "claude" / "projects").rglob("*.jsonl"))
CODEX = sorted((SAMPLE / "codex" / "sessions").rglob("*.jsonl"))


def _user(
    text: str, sid: str, uuid: str, ts: str = "2026-04-14T15:00:00.000Z"
) -> dict[str, object]:
    return {
        "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": uuid,
        "timestamp": ts,
        "sessionId": sid,
        "cwd": "/home/ada/src/atlas",
    }


def _lines(*records: object) -> bytes:
    return b"".join(
        (r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records
    )


def _bad_files(root: Path) -> dict[str, int]:
    """Write the bad files; returns the dropped reasons the ledger must show."""
    sid = "bad00000-0000-4000-8000-000000000001"
    good = [_user(f"keep this prompt number {i} about the cache", sid, f"u-{i}") for i in range(3)]
    # 1. a first record whose "type" is a list, then a dict: cost only themselves
    (root / "type-list.jsonl").write_bytes(
        _lines({"type": ["user"], "sessionId": sid}, {"type": {"a": 1}}, *good)
    )
    # 2. a lone-surrogate sessionId (a JSON escape): that id is ignored, text kept
    lone = json.dumps(_user("surrogate session prompt here", "x", "u-s")).replace(
        '"sessionId": "x"', '"sessionId": "ab\\ud800cd"'
    )
    (root / "surrogate-sid.jsonl").write_bytes(_lines(lone.encode(), *good))
    # 3. raw NUL, invalid JSON, wrong shape, a pre-1000 timestamp, not an object
    user_nul = json.dumps(_user("nul line", sid, "u-n")).encode().replace(b"nul line", b"nul\x00")
    (root / "damaged.jsonl").write_bytes(
        _lines(
            *good,
            user_nul,
            b'{"type": "user", "message": {"role": "user", "content": "trunc',
            {"type": "user", "message": {"role": "user", "content": 7}, "uuid": "u-w"},
            _user("an ancient prompt", sid, "u-old", ts="0999-01-01T00:00:00Z"),
            b'["user", "not an object"]',
        )
    )
    # 4. a symlink loop named *.jsonl, a FIFO named *.jsonl, a dangling link
    os.symlink("loop.jsonl", root / "loop.jsonl")
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "fifo.jsonl")
    os.symlink(root / "gone" / "x.jsonl", root / "dangling.jsonl")
    return {"raw_nul": 1, "invalid_json": 1, "wrong_shape": 1, "bad_timestamp": 1,
            "not_an_object": 1}  # fmt: skip


def _clean_tree(root: Path) -> None:
    for f in [*CLAUDE, *CODEX]:
        dest = root / f.parent.name / f.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(f, dest)


def test_backfill_of_hostile_files_loses_nothing_and_counts_everything(
    sandbox: dict[str, Path],
) -> None:
    clean_root = sandbox["root"] / "clean"
    hostile_root = sandbox["root"] / "hostile"
    for r in (clean_root, hostile_root):
        (r / "transcripts").mkdir(parents=True)
        _clean_tree(r / "transcripts")
    # the same good messages, clean, for the reference run
    sid = "bad00000-0000-4000-8000-000000000001"
    (clean_root / "transcripts" / "good.jsonl").write_bytes(
        _lines(*[_user(f"keep this prompt number {i} about the cache", sid, f"u-{i}")
                 for i in range(3)])
    )  # fmt: skip
    expected = _bad_files(hostile_root / "transcripts")
    outside = Tree(sandbox["outside"])

    clean = run("voice", "--backfill", "--min-messages", "1", env=env_for(clean_root)
                | {"MEMGRAPH_TRANSCRIPTS": str(clean_root / "transcripts")})  # fmt: skip
    assert clean.code == 0, clean.err
    r = run("voice", "--backfill", "--min-messages", "1", env=env_for(hostile_root)
            | {"MEMGRAPH_TRANSCRIPTS": str(hostile_root / "transcripts")})  # fmt: skip
    assert_no_traceback(r)
    assert r.code == 0, r.out + r.err
    ledger_lines = [line for line in r.out.splitlines() if line.startswith("ledger:")]
    assert len(ledger_lines) == 1, r.out
    for reason, n in expected.items():
        assert f"{reason} {n}" in ledger_lines[0], ledger_lines[0]
    assert "symlink_loop 1" in ledger_lines[0]
    if hasattr(os, "mkfifo"):
        assert "not_regular_file 1" in ledger_lines[0]

    # nothing a clean run keeps is lost
    kept = store_messages(clean_root / "mg-home" / "memgraph.db")
    got = store_messages(hostile_root / "mg-home" / "memgraph.db")
    assert kept <= got, sorted(kept - got)[:5]
    assert any(text == "surrogate session prompt here" for _, text in got)
    assert outside.unchanged(), outside.diff()

    # --json carries the same counts, and they add up
    j = run("voice", "--backfill", "--json", env=env_for(hostile_root)
            | {"MEMGRAPH_TRANSCRIPTS": str(hostile_root / "transcripts")})  # fmt: skip
    assert j.code == 0, j.err
    # a rerun reads nothing new; the stored ledger is what voice --stats reports
    stats = run("voice", "--stats", "--json", env=env_for(hostile_root))
    assert stats.code == 0, stats.err
    led = json.loads(stats.out)["ledger"]
    assert led["lines"] == led["captured"] + led["filtered"] + led["dropped"]
    for reason, n in expected.items():
        assert led["dropped_by_reason"][reason] == n
    assert led["dropped_by_reason"]["file:symlink_loop"] == 1


def test_every_ledger_entry_balances(sandbox: dict[str, Path]) -> None:
    from profiles.voice.ledger import entry_from_stats
    from profiles.voice.prefilter import PrefilterOptions
    from profiles.voice.readers import ReadOptions, iter_transcripts, read_transcript

    root = sandbox["root"] / "t"
    root.mkdir()
    _clean_tree(root)
    _bad_files(root)
    skipped: list[tuple[Path, str, str]] = []
    for fast in (True, False):
        for path in iter_transcripts(root, skipped):
            read = read_transcript(
                path, ReadOptions(prefilter=PrefilterOptions(drop_trivial=False), fast_skip=fast)
            )
            entry = entry_from_stats(str(path), read.stats)
            assert entry.balanced, entry.to_json()
    reasons = {reason for _, reason, _ in skipped}
    assert "symlink_loop" in reasons and "unreadable_file" in reasons


def test_an_unreadable_subdirectory_is_counted(
    sandbox: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from profiles.voice.readers import iter_transcripts

    root = sandbox["root"] / "t"
    (root / "locked").mkdir(parents=True)
    (root / "ok.jsonl").write_bytes(_lines(_user("hello there friend", "s", "u1")))
    real_scandir = os.scandir

    def scandir(path: object = ".") -> object:
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    skipped: list[tuple[Path, str, str]] = []
    found = list(iter_transcripts(root, skipped))
    assert [p.name for p in found] == ["ok.jsonl"]
    assert [(p.name, why) for p, why, _ in skipped] == [("locked", "unreadable_dir")]


def test_the_hook_prints_a_ledger_line_when_lines_were_dropped(sandbox: dict[str, Path]) -> None:
    root = sandbox["root"]
    t = root / "s.jsonl"
    sid = "hook0000-0000-4000-8000-000000000001"
    t.write_bytes(
        _lines(
            *[_user(f"prompt {i} for the hook", sid, f"h-{i}") for i in range(3)],
            b'{"type": "user", "message": {"role": "user", "content": "cut',
        )
    )
    payload = json.dumps({"transcript_path": str(t), "session_id": sid}).encode()
    r = run("hook", "session-end", stdin=payload, env=env_for(root))
    assert r.code == 0, r.err
    lines = r.out.strip().splitlines()
    assert lines[0].startswith("captured 3 messages")
    assert lines[1].startswith("ledger:") and "invalid_json 1" in lines[1]
