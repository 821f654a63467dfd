"""`memgraph context`, `memgraph recall`, `memgraph index` through typer's CliRunner."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_cut.vector_projection import qdrant_collection
from context_cut.word_vectors import words_dir_for
from memgraph.cli.app import app
from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import node_id
from memgraph.store import open_store
from tests.memgraph.test_store_identity import known

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def _node(profile: str, kind: str, title: str, state: str, **attrs: object) -> MemoryNode:
    anchors = []
    if profile == "voice":
        anchors = [MemoryAnchor(id=f"a-{title[:5]}", kind=AnchorKind.transcript, ref="/t.jsonl")]
    return MemoryNode(
        id=node_id(profile, kind, title),
        domain_id="d1",
        profile=ProfileName(profile),
        kind=kind,
        title=title,
        claim=title,
        lifecycle=state,
        anchors=anchors,
        created_at=T0,
        updated_at=T0,
        valid_from=T0,
        attributes=attrs,
    )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "mg.db"
    store = open_store(path)
    nodes = [
        _node("repo_architecture", "component", "Gateway verifies tokens", "observed"),
        _node("repo_dataflow", "flow", "Tokens flow from gateway to cache", "observed"),
        _node(
            "voice",
            "message",
            "we should cache the tokens for longer",
            "captured",
            session_id="s1",
            project="alpha",
        ),
    ]
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
    store.close()
    return path


runner = CliRunner()


def test_context_terse_json_markdown(db: Path) -> None:
    out = runner.invoke(app, ["context", "gateway tokens", "--store", str(db), "--budget", "400"])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert any(line.startswith("node") and "Gateway verifies tokens" in line for line in lines)
    assert lines[-1].startswith("-- repo cut:") and "/400 tokens" in lines[-1]
    assert "BM25 only" in out.stderr and len(out.stderr.strip().splitlines()) == 1

    js = runner.invoke(app, ["context", "gateway", "--store", str(db), "--json"])
    assert js.exit_code == 0
    (line,) = js.stdout.splitlines()
    packet = json.loads(line)
    assert packet["query"]["cut"] == "repo" and packet["tokens_used"] <= 2000
    assert packet["nodes"][0]["title"] == "Gateway verifies tokens"

    md = runner.invoke(app, ["context", "gateway", "--store", str(db), "--markdown"])
    assert md.exit_code == 0 and md.stdout.startswith("# Context: gateway")
    assert "## Nodes" in md.stdout


def test_what_the_ceiling_cuts_is_said(db: Path) -> None:
    """A --json packet trimmed to its budget said nothing: 0 nodes read as "no hits"."""
    js = runner.invoke(app, ["context", "gateway tokens", "--store", str(db), "--json"])
    whole = json.loads(js.stdout)
    assert len(whole["nodes"]) == 3
    tight = runner.invoke(
        app, ["context", "gateway tokens", "--store", str(db), "--json", "--budget", "500"]
    )
    assert tight.exit_code == 0, tight.output
    packet = json.loads(tight.stdout)
    cut = len(whole["nodes"]) - len(packet["nodes"])
    assert cut > 0 and any(
        n.startswith("ceiling: ") and f"{cut} node" in n and "fit 500 tokens" in n
        for n in packet["notices"]
    )
    assert "ceiling" not in tight.stderr  # --json says it in the packet, once
    md = runner.invoke(
        app, ["context", "gateway tokens", "--store", str(db), "--markdown", "--budget", "60"]
    )
    assert md.exit_code == 0, md.output
    assert "ceiling: " in md.stderr and "fit 60 tokens" in md.stderr


def test_context_bad_input_is_one_line_error(db: Path) -> None:
    out = runner.invoke(app, ["context", "x", "--store", str(db), "--cut", "everything"])
    assert out.exit_code == 2 and out.stderr.startswith("Error: unknown cut")
    out = runner.invoke(app, ["context", "x", "--store", str(db), "--budget", "0"])
    assert out.exit_code == 2 and "Error:" in out.stderr
    out = runner.invoke(app, ["context", "x", "--store", str(db), "--json", "--markdown"])
    assert out.exit_code == 2
    # the MCP context tool's ceiling, on the CLI too (an extra zero is a typo, not a wish)
    out = runner.invoke(app, ["context", "x", "--store", str(db), "--budget", "2000000"])
    assert out.exit_code == 2
    assert out.stderr == "Error: --budget must be between 1 and 200000 tokens\n"
    out = runner.invoke(app, ["context", "x", "--store", str(db), "--embedder", "word2vec"])
    assert out.exit_code == 2 and "unknown embedder" in out.stderr
    assert "Traceback" not in out.output


def test_context_with_unreachable_ollama_says_bm25_only(db: Path) -> None:
    out = runner.invoke(
        app,
        ["context", "gateway", "--store", str(db), "--embedder", "ollama"],
        env={"MEMGRAPH_OLLAMA_HOST": "http://127.0.0.1:9", "MEMGRAPH_OLLAMA_TIMEOUT": "2"},
    )
    assert out.exit_code == 0, out.output
    notice = out.stderr.strip().splitlines()
    assert len(notice) == 1 and "BM25 only" in notice[0] and "127.0.0.1:9" in notice[0]
    assert "Gateway verifies tokens" in out.stdout


def test_index_then_recall_hybrid(db: Path, tmp_path: Path) -> None:
    qdir = tmp_path / "q"
    args = ["--store", str(db), "--embedder", "hash", "--qdrant-path", str(qdir)]
    first = runner.invoke(app, ["index", *args, "--json"])
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["embedded"] == 3 and report["manifests"] == 3
    # the word vectors of the voice messages' words, in the store's folder of the home
    assert report["words"]["words"] == 3 and report["words"]["embedded"] == 3  # cache tokens longer
    assert sorted(
        p.suffix for p in words_dir_for(tmp_path / "mg-home", known(str(db))).iterdir()
    ) == [
        ".f32",
        ".words",
    ]
    again = runner.invoke(app, ["index", *args])
    assert again.exit_code == 0 and "embedded 0" in again.stdout and "unchanged 3" in again.stdout
    assert "word vectors: 3 words (0 embedded, 3 kept)" in again.stdout

    rec = runner.invoke(app, ["recall", "caching tokens longer", *args])
    assert rec.exit_code == 0, rec.output
    assert rec.stderr == ""
    (line,) = rec.stdout.splitlines()
    assert "s1" in line and "alpha" in line and "cache the tokens" in line
    js = runner.invoke(app, ["recall", "cache tokens", *args, "--json"])
    row = json.loads(js.stdout.splitlines()[0])
    assert row["project"] == "alpha" and row["bm25_rank"] == 1 and row["vector_rank"] is not None


def test_a_word_table_in_a_bad_state_is_one_line_on_each_command(db: Path, tmp_path: Path) -> None:
    args = ["--store", str(db), "--embedder", "hash", "--qdrant-path", str(tmp_path / "q")]
    assert runner.invoke(app, ["index", *args]).exit_code == 0
    words = next(words_dir_for(tmp_path / "mg-home", known(str(db))).glob("*.words"))
    words.unlink()
    os.mkfifo(words)  # recall neither waits on it nor fails: it says so and goes on
    rec = runner.invoke(app, ["recall", "caching tokens longer", *args])
    assert rec.exit_code == 0 and "cache the tokens" in rec.stdout
    (notice,) = rec.stderr.splitlines()
    assert notice.startswith("word vectors ignored:") and "memgraph index" in notice
    words.unlink()
    words.mkdir()  # index cannot put the list there: one Error line, exit 1
    bad = runner.invoke(app, ["index", *args])
    assert bad.exit_code == 1 and "Traceback" not in bad.output
    (err,) = bad.stderr.splitlines()
    assert err.startswith("Error: cannot write the word vectors at") and words.name in err
    words.rmdir()
    assert runner.invoke(app, ["index", *args]).exit_code == 0 and words.is_file()


def test_index_without_embedder_is_a_usage_error(db: Path) -> None:
    out = runner.invoke(app, ["index", "--store", str(db)])
    assert out.exit_code == 2 and "no embedder configured" in out.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["x", "--limit", "0"], "Error: --limit must be between 1 and 1000, not 0"),
        (["x", "-n", "1001"], "Error: --limit must be between 1 and 1000, not 1001"),
        (["x", "--mode", "zz"], "Error: unknown --mode 'zz': use hybrid, bm25 or vectors"),
        ([""], "Error: the query is empty"),
    ],
)
def test_recall_bad_arguments_say_so_in_the_cli_words(db: Path, args: list[str], said: str) -> None:
    """Not pydantic's ("bad recall request: limit: Input should be greater than 0")."""
    out = runner.invoke(app, ["recall", *args, "--store", str(db)])
    assert out.exit_code == 2 and out.stderr.splitlines() == [said]


def test_index_status_profiles_and_partitions(db: Path, tmp_path: Path) -> None:
    qdir = tmp_path / "q"
    args = ["--store", str(db), "--embedder", "hash", "--qdrant-path", str(qdir)]
    status = runner.invoke(app, ["index", "--status", *args])
    assert status.exit_code == 0, status.output
    assert "voice: 1 document, 0 current, 0 stale, 1 missing" in status.stdout
    assert "modeling: 2 documents, 0 current, 0 stale, 2 missing" in status.stdout
    scoped = runner.invoke(app, ["index", "--profiles", "voice", *args, "--json"])
    assert scoped.exit_code == 0, scoped.output
    report = json.loads(scoped.stdout)
    voice = qdrant_collection("hash-v1-256", 256, store=known(str(db)))  # the store's own
    assert report["collections"] == [voice] and voice.startswith("mg_voice_hash_v1_256_256__")
    assert (qdir / f"{voice}.json").is_file()  # the embedded default: Qdrant Edge
    again = runner.invoke(app, ["index", "--status", *args, "--json"])
    assert json.loads(again.stdout)["partitions"]["voice"]["current"] == 1
    bad = runner.invoke(app, ["index", "--profiles", "voice,nonsense", *args])
    assert bad.exit_code == 2 and "unknown profile nonsense" in bad.stderr


def test_index_refuses_a_collection_of_another_width(db: Path, tmp_path: Path) -> None:
    from context_cut.vector_index import VectorIndex

    qdir = tmp_path / "q"
    voice = qdrant_collection("hash-v1-256", 256, store=known(str(db)))
    index = VectorIndex.open(path=qdir, engine="edge")
    index.ensure_collection(voice, 8)
    index.close()
    out = runner.invoke(
        app, ["index", "--store", str(db), "--embedder", "hash", "--qdrant-path", str(qdir)]
    )
    assert out.exit_code == 1
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"Error: collection {voice} holds 8-dim vectors")
    assert "--rebuild" in line


def test_recall_says_when_nothing_matched_and_names_known_projects(db: Path) -> None:
    """recall printed nothing at all for no hits, and nothing for a mistyped --project."""
    none = runner.invoke(app, ["recall", "zzzqqq", "--store", str(db)])
    assert none.exit_code == 0 and none.stdout == ""
    assert "no hits for 'zzzqqq'" in none.stderr
    typo = runner.invoke(app, ["recall", "tokens", "--store", str(db), "--project", "alpah"])
    assert typo.exit_code == 2
    assert "Error: --project: no project 'alpah' in the voice index; known:" in typo.stderr
    found = runner.invoke(app, ["recall", "tokens", "--store", str(db), "--project", "ALPHA"])
    assert found.exit_code == 0 and "cache the tokens" in found.stdout
