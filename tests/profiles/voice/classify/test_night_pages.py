"""The night pass re-renders its pages inside one ``deferred_fsync`` block.

The pages must be the bytes the page-at-a-time writer gave, a person's own text
must still be carried (or their edit left alone), and by the end of the pass every
page written must have been synced, with the folders that got them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.store import open_store
from profiles.voice.classify.night import NightPassRequest, run_night_pass
from profiles.voice.classify.rules import RuleClassifier

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
NIGHT = T0.replace(hour=3)
SESSIONS = {
    f"s{n}": ["run the tests", "why does the query return nothing?", f"always use tabs {n}"]
    for n in range(4)
}


def message_node(session_id: str, uuid: str, text: str, minutes: int) -> Any:
    """A captured message node, as the capture builds it."""
    from profiles.voice.model import OperatorMessage
    from profiles.voice.nodes import NodeContext
    from profiles.voice.nodes import message_node as build

    msg = OperatorMessage(
        session_id=session_id,
        record_uuid=uuid,
        timestamp=T0 + timedelta(minutes=minutes),
        text=text,
        transcript=f"/t/{session_id}.jsonl",
        line=minutes + 1,
        harness="claude-code",
        origin="prompt",
        cwd="/home/ada/src/demo",
    )
    return build(msg, NodeContext(constellation="demo", project="demo", ingested_at=T0))


def _pass(
    root: Path, starting: Callable[[], None] = lambda: None
) -> tuple[dict[str, bytes], list[str]]:
    """Pages rendered before classification (one with a person's notes, one with a
    message edited by hand), then (``starting()`` called) the night pass: (page
    bytes, problems)."""
    from profiles.voice.views import write_session_page

    vault = root / "vault"
    store = open_store(root / "night.db")
    try:
        nodes = [
            message_node(sid, f"{sid}-u{i}", text, i)
            for sid, texts in SESSIONS.items()
            for i, text in enumerate(texts)
        ]
        apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes], proposer="capture"))
        pages = {sid: write_session_page(store, vault, sid) for sid in SESSIONS}
        notes, edited = pages["s1"], pages["s2"]
        assert notes is not None and edited is not None
        notes.write_text(notes.read_text() + "\n## Notes\n\nmine, keep it\n")
        edited.write_text(edited.read_text().replace("always use tabs 2", "always use spaces"))
        request = NightPassRequest(now=NIGHT, tz=NIGHT.tzinfo, vault=vault)
        starting()
        result = run_night_pass(store, request, RuleClassifier())
    finally:
        store.close()
    written = {str(p.relative_to(vault)): p.read_bytes() for p in sorted(vault.rglob("*.md"))}
    return written, result.page_problems


def test_batched_pages_are_the_page_at_a_time_bytes_and_all_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from memgraph import fileio

    with monkeypatch.context() as m:  # the page-at-a-time writer: no block
        m.setattr(fileio, "deferred_fsync", contextlib.nullcontext)
        alone, alone_problems = _pass(tmp_path / "alone")

    synced: set[tuple[int, int]] = set()
    renamed: list[Path] = []
    folder_syncs: list[int] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        st = os.fstat(fd)
        synced.add((st.st_dev, st.st_ino))
        if stat.S_ISDIR(st.st_mode):  # a folder synced: the renames in it so far are durable
            folder_syncs.append(st.st_ino)
            renamed[:] = [p for p in renamed if (os.stat(p.parent).st_ino) != st.st_ino]
        real_fsync(fd)

    def replace(src: str, dst: Path) -> None:
        real_replace(src, dst)
        renamed.append(Path(dst))

    batched_root = tmp_path / "batched"
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    batched, batched_problems = _pass(batched_root, folder_syncs.clear)
    monkeypatch.undo()

    assert batched == alone and batched_problems == alone_problems == []
    [notes] = [t for name, t in batched.items() if name.endswith(".md") and b"mine, keep" in t]
    assert b"## Classifications" in notes  # re-rendered, the person's notes carried
    [conflict] = [name for name in batched if name.endswith(".conflict.md")]
    assert b"always use spaces" in batched[conflict.replace(".conflict.md", ".md")]
    assert "left as is" in capsys.readouterr().err
    pages = [p for p in (batched_root / "vault").rglob("*.md") if p.name != "log.md"]
    assert len(pages) == 5  # four pages and the conflict render
    for page in pages:  # every page file as it now is was synced
        st = os.stat(page)
        assert (st.st_dev, st.st_ino) in synced, page
    assert not [p for p in renamed if p.suffix == ".md"], "a rename whose folder was never synced"
    # the pass wrote four files in one folder (three pages, a conflict render): it
    # synced that folder once, at the end, not once a file
    [folder] = {p.parent for p in pages}
    assert folder_syncs.count(os.stat(folder).st_ino) == 1
