"""`memgraph classify` (night pass) and `memgraph voice classify --stdin`, rules only."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import anchor_id, node_id
from memgraph.store import open_store

runner = CliRunner()
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
TEXTS = ["run the tests", "why is ci red?", "never push to main on fridays"]


def message(i: int, text: str, day: int = 0) -> MemoryNode:
    when = T0 + timedelta(days=day, minutes=i)
    uuid = f"u{i}"
    return MemoryNode(
        id=node_id("voice", "message", "sess1", uuid),
        domain_id="voice:demo",
        profile="voice",
        kind="message",
        title=text[:80],
        claim=text,
        lifecycle="captured",
        created_at=when,
        updated_at=when,
        valid_from=when,
        anchors=[
            MemoryAnchor(
                id=anchor_id("transcript", "/t/sess1.jsonl", uuid),
                kind=AnchorKind.transcript,
                ref="/t/sess1.jsonl",
                line=i + 1,
                record_uuid=uuid,
            )
        ],
        attributes={"session_id": "sess1", "record_uuid": uuid, "classification": None},
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    s = open_store(path)
    nodes = [message(i, t, day=i) for i, t in enumerate(TEXTS)]
    apply_patch(s, new_patch([UpsertNode(node=n) for n in nodes], proposer="capture"))
    s.close()
    return path


def state(path: Path) -> dict[str, Any]:
    s = open_store(path)
    try:
        return {n.id: n.model_dump() for n in s.iter_nodes()}
    finally:
        s.close()


def test_outside_night_window_does_nothing(db: Path) -> None:
    before = state(db)
    result = runner.invoke(app, ["classify", "--store", str(db), "--at", "2026-03-02T14:05"])
    assert result.exit_code == 0
    assert result.stdout == (
        "outside the night window 02:00-06:00 (local time 14:05); nothing done "
        "(use --now to run anyway)\n"
    )
    assert state(db) == before


def test_inside_window_classifies(db: Path) -> None:
    result = runner.invoke(app, ["classify", "--store", str(db), "--at", "2026-03-02T03:00"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("classified 3 of 3 messages (rules): ")
    labels = sorted(n["attributes"]["classification"] for n in state(db).values())
    assert labels == ["command", "directive", "question"]
    again = runner.invoke(app, ["classify", "--store", str(db), "--now"])
    assert (again.exit_code, again.stdout) == (0, "no messages to classify\n")


def test_configured_window_and_json(db: Path) -> None:
    result = runner.invoke(
        app,
        ["classify", "--store", str(db), "--at", "2026-03-02T23:30", "--json"],
        env={"MEMGRAPH_NIGHT_WINDOW": "23:00-01:00"},
    )
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert (out["status"], out["classified"], out["local_time"]) == ("applied", 3, "23:30")


def test_since_and_force(db: Path) -> None:
    result = runner.invoke(app, ["classify", "--store", str(db), "--now", "--since", "2026-03-02"])
    assert result.exit_code == 0
    assert result.stdout.startswith("classified 2 of 2")
    forced = runner.invoke(app, ["classify", "--store", str(db), "--now", "--force", "--json"])
    out = json.loads(forced.stdout)
    assert (out["selected"], out["classified"]) == (3, 1)


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--since", "last tuesday"], {}, "--since: bad date 'last tuesday'"),
        (["-c", "bert"], {}, "unknown classifier 'bert'"),
        ([], {"MEMGRAPH_NIGHT_WINDOW": "late"}, "night_window 'late' is not HH:MM-HH:MM"),
    ],
)
def test_bad_input_is_one_line_error(
    db: Path, args: list[str], env: dict[str, str], message: str
) -> None:
    before = state(db)
    result = runner.invoke(app, ["classify", "--store", str(db), "--now", *args], env=env)
    assert result.exit_code in (1, 2)
    assert result.stderr == f"Error: {message}" + result.stderr[len(message) + 7 :]
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    assert state(db) == before


def test_voice_classify_stdin_terse_and_json() -> None:
    lines = '{"id": "a", "text": "show me the diff"}\n{"id": "b", "text": "why?"}\n'
    terse = runner.invoke(app, ["voice", "classify", "--stdin"], input=lines)
    assert terse.exit_code == 0
    assert [line.split("\t")[:2] for line in terse.stdout.splitlines()] == [
        ["a", "command"],
        ["b", "question"],
    ]
    as_json = runner.invoke(app, ["voice", "classify", "--stdin", "--json"], input=lines)
    rows = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [set(r) for r in rows] == [{"id", "classification", "confidence", "topics"}] * 2


def test_voice_classify_bad_lines_exit_1_but_answer_good_ones(tmp_path: Path) -> None:
    lines = (
        '{"id": "a", "text": "commit this"}\ngarbage\n{"id": 1}\n{"id": "b", "text": "no, wrong"}\n'
    )
    result = runner.invoke(
        app, ["voice", "classify", "--stdin", "--classifier", "rules", "--json"], input=lines
    )
    assert result.exit_code == 1
    assert [json.loads(x)["id"] for x in result.stdout.splitlines()] == ["a", "b"]
    assert result.stderr == ("warning: 2 malformed input lines skipped (first: line 2: not JSON)\n")
    # nothing was written to the store
    assert not (tmp_path / "mg-home" / "memgraph.db").exists()


def test_voice_classify_needs_stdin() -> None:
    result = runner.invoke(app, ["voice", "classify"])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: voice classify reads JSON lines")


def test_classify_force_replaces_the_old_classification_tag(isolated_env: Path) -> None:
    """A reclassified page's ``tags:`` lose the old label, keep the user's own tag."""
    import sys

    import yaml

    from memgraph.documents import NodeRevision, ReviseNode
    from profiles.voice.views import write_session_page

    sys.path.insert(0, str(Path(__file__).parents[2] / "profiles" / "voice"))
    from _capture_helpers import SID, claude_records, write_transcript

    texts = ["run the tests please", "why is ci red?", "never push to main on fridays"]
    path = write_transcript(isolated_env / "transcripts" / "t.jsonl", claude_records(texts))
    payload = json.dumps({"session_id": SID, "transcript_path": str(path), "cwd": "/nonexistent"})
    assert runner.invoke(app, ["hook", "session-end"], input=payload).exit_code == 0
    # an earlier classifier (say the model) called every message a rationale
    vault = isolated_env / "vault"
    s = open_store(isolated_env / "mg-home" / "memgraph.db")
    try:
        msgs = list(s.iter_nodes(profile="voice", kind="message"))
        attrs = [{**n.attributes, "classification": "rationale"} for n in msgs]
        ops = [
            ReviseNode(node_id=n.id, changes=NodeRevision(attributes=a), reason="model")
            for n, a in zip(msgs, attrs, strict=True)
        ]
        apply_patch(s, new_patch(ops, proposer="test"))
        page = write_session_page(s, vault, SID)
    finally:
        s.close()
    assert page is not None

    def tags() -> list[str]:
        data = yaml.safe_load(page.read_text().split("---\n")[1])
        return list(data["tags"])

    assert tags() == ["atlas", "rationale"]
    page.write_text(page.read_text().replace("- rationale\n", "- rationale\n- mine\n", 1))
    out = runner.invoke(app, ["classify", "--force", "--now"])
    assert out.exit_code == 0, out.output
    assert "classified 3 of 3 messages (rules)" in out.stdout
    assert "1 page re-rendered" in out.stdout
    assert tags() == ["atlas", "command", "directive", "question", "mine"]
    again = runner.invoke(app, ["classify", "--force", "--now"])
    assert again.exit_code == 0 and tags() == ["atlas", "command", "directive", "question", "mine"]
