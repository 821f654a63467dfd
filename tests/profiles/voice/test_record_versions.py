"""A captured message whose transcript text changes never blocks the transcript
(issue 15, data loss item 2): the new text is a new version, the old one is
superseded with a receipt, both are searchable by --as-of, new messages are
captured, and the event is counted."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from memgraph.store import open_store
from profiles.voice.backfill import BackfillRequest, run_backfill
from profiles.voice.nodes import message_node_id, message_version_id
from profiles.voice.pages import parse_page
from profiles.voice.search import VoiceQuery, search_voice
from profiles.voice.views import nodes_from_page

sys.path.insert(0, str(Path(__file__).parent))
from _capture_helpers import PROMPTS, SID, claude_records, write_transcript

runner = CliRunner()
EDITED = [
    PROMPTS[0],
    "the hook must not break other settings, keep every one of them",
    *PROMPTS[2:],
]
NEW = "and write a migration note for the settings change"


def _texts(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.text for h in hits]


def test_changed_record_becomes_a_version_and_the_rest_is_captured(tmp_path: Path) -> None:
    store = open_store(tmp_path / "mg.db")
    vault, root = tmp_path / "vault", tmp_path / "t"
    path = root / f"{SID}.jsonl"
    write_transcript(path, claude_records(PROMPTS))
    t1 = datetime(2026, 5, 1, tzinfo=UTC)
    first = run_backfill(store, BackfillRequest([root], vault, now=t1))
    assert first.counts() == {"paged": 1} and first.revised == 0

    write_transcript(path, claude_records([*EDITED, NEW]))
    t2 = t1 + timedelta(days=1)
    second = run_backfill(store, BackfillRequest([root], vault, now=t2))
    assert second.counts() == {"paged": 1}, second.outcomes  # not an error, not blocked
    assert second.revised == 1 and second.outcomes[0].revised == 1

    uuid = f"u-{SID[:8]}-1"
    old_id, new_id = message_node_id(SID, uuid), message_version_id(SID, uuid, 2)
    with store.reader() as reader:
        nodes = reader.get_nodes([old_id, new_id])
        receipts = reader.receipts_for(old_id)
    old, new = nodes[old_id], nodes[new_id]
    assert old.claim == PROMPTS[1] and old.lifecycle == "superseded"  # verbatim, kept
    assert old.superseded_by == new_id and new.claim == EDITED[1]
    assert new.attributes["version"] == 2 and new.attributes["revision_of"] == old_id
    assert [(r.before, r.after) for r in receipts][-1] == ("captured", "superseded")

    # the page shows the current text and the new message; it parses back to the nodes
    page_path = next(vault.glob("*/voice/*.md"))
    page = parse_page(page_path.read_text(encoding="utf-8"))
    texts = [m.text for m in page.messages]
    assert EDITED[1] in texts and NEW in texts and PROMPTS[1] not in texts
    rebuilt = {n.id for n in nodes_from_page(page, page_path.relative_to(vault))}  # type: ignore[arg-type]
    assert new_id in rebuilt and old_id not in rebuilt

    # search: the current text now; the old one as of before the change
    assert _texts(search_voice(store, VoiceQuery("break other settings"))) == [EDITED[1]]
    then = t1 + timedelta(hours=1)
    hits = search_voice(store, VoiceQuery("break other settings", as_of=then))
    assert _texts(hits) == [PROMPTS[1]]
    later = search_voice(store, VoiceQuery("break other settings", as_of=t2 + timedelta(hours=1)))
    assert _texts(later) == [EDITED[1]]

    # a rerun changes nothing; a transcript going back to an old text adds nothing
    again = run_backfill(store, BackfillRequest([root], vault, now=t2 + timedelta(days=1)))
    assert again.counts() == {"unchanged": 1} and again.revised == 0
    write_transcript(path, claude_records([*PROMPTS, NEW]))
    back = run_backfill(store, BackfillRequest([root], vault, now=t2 + timedelta(days=2)))
    assert back.counts() == {"paged": 1} and back.revised == 0
    store.close()


def test_backfill_and_hook_report_the_count(isolated_env: Path) -> None:
    root = isolated_env / "t"
    path = write_transcript(root / f"{SID}.jsonl", claude_records(PROMPTS))
    assert runner.invoke(app, ["voice", "--backfill", "--transcripts", str(root)]).exit_code == 0
    write_transcript(path, claude_records([*EDITED, NEW]))
    r = runner.invoke(app, ["voice", "--backfill", "--transcripts", str(root), "--json"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert lines[0]["revised"] == 1 and lines[-1]["summary"]["revised"] == 1
    edited2 = [*EDITED[:2], "now render the voice page for the hook session, twice", PROMPTS[3]]
    write_transcript(path, claude_records([*edited2, NEW]))
    data = {"session_id": SID, "transcript_path": str(path), "cwd": "/nonexistent/work/atlas"}
    h = runner.invoke(app, ["hook", "session-end"], input=json.dumps(data))
    assert h.exit_code == 0 and "1 changed records kept as new versions" in h.stdout
    r = runner.invoke(app, ["voice", "twice", "--json"])
    assert [json.loads(x)["text"] for x in r.stdout.splitlines()] == [edited2[2]]


@pytest.mark.parametrize("backend", ["sqlite", "memory"])
def test_versions_on_every_backend(tmp_path: Path, backend: str) -> None:
    from _capture_helpers import op_msg

    from profiles.voice.capture import CaptureRequest, capture_messages

    store = open_store(tmp_path / "mg.db" if backend == "sqlite" else ":memory:")
    req = CaptureRequest(transcript=Path("/t/x.jsonl"), vault=tmp_path / "v", write_pages=False)
    t1 = datetime(2026, 5, 1, tzinfo=UTC)
    first = [op_msg(t, i) for i, t in enumerate(PROMPTS)]
    capture_messages(store, first, CaptureRequest(**{**req.__dict__, "now": t1}))
    changed = [*first[:1], op_msg(EDITED[1], 1), *first[2:], op_msg(NEW, 9)]
    t2 = t1 + timedelta(days=1)
    result = capture_messages(store, changed, CaptureRequest(**{**req.__dict__, "now": t2}))
    assert result.revised == 1
    assert _texts(search_voice(store, VoiceQuery("break other settings"))) == [EDITED[1]]
    then = search_voice(store, VoiceQuery("break other settings", as_of=t1 + timedelta(hours=1)))
    assert _texts(then) == [PROMPTS[1]]
    assert _texts(search_voice(store, VoiceQuery("migration note"))) == [NEW]
    store.close()
