"""CLI paths that need the loopback Ollama (the fixture lives in this directory)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from memgraph.store import open_store

runner = CliRunner()


@pytest.fixture
def cli_store(message_db: Path) -> Path:
    return message_db


def nodes(path: Path) -> dict[str, Any]:
    s = open_store(path)
    try:
        return {n.id: n.model_dump() for n in s.iter_nodes()}
    finally:
        s.close()


def env(fake: Any) -> dict[str, str]:
    return {
        "OLLAMA_HOST": fake.host,
        "MEMGRAPH_OLLAMA_TIMEOUT": "0.5",
        "MEMGRAPH_OLLAMA_RETRIES": "1",
    }


def test_classify_with_ollama(cli_store: Path, ollama_server: Any) -> None:
    result = runner.invoke(
        app,
        ["classify", "--now", "-c", "ollama", "--store", str(cli_store)],
        env=env(ollama_server),
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("classified 5 of 5 messages (ollama:gemma4:e2b)")
    assert all(n["lifecycle"] == "classified" for n in nodes(cli_store).values())


@pytest.mark.parametrize("kind", ["malformed", "down"])
def test_classify_ollama_failure_is_one_line_and_changes_nothing(
    cli_store: Path, ollama_server: Any, kind: str
) -> None:
    ollama_server.default = (
        ollama_server.content("nope") if kind == "malformed" else ollama_server.status(500)
    )
    before = nodes(cli_store)
    result = runner.invoke(
        app,
        ["classify", "--now", "-c", "ollama", "--store", str(cli_store)],
        env=env(ollama_server),
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ollama") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output
    assert nodes(cli_store) == before


def test_classify_ollama_invalid_labels_rejected(cli_store: Path, ollama_server: Any) -> None:
    bad = {"items": [{"id": "x", "classification": "rant", "confidence": 2, "topics": []}]}
    ollama_server.default = ollama_server.good(lambda items: bad)
    before = nodes(cli_store)
    result = runner.invoke(
        app,
        ["classify", "--now", "-c", "ollama", "--store", str(cli_store)],
        env=env(ollama_server),
    )
    assert result.exit_code == 1
    assert "proposal rejected, nothing changed" in result.stderr
    assert nodes(cli_store) == before


def test_voice_classify_stdin_ollama(ollama_server: Any) -> None:
    lines = '{"id": "a", "text": "commit this"}\n{"id": "b", "text": "why?"}\n'
    result = runner.invoke(
        app,
        ["voice", "classify", "--stdin", "--classifier", "ollama", "--json"],
        input=lines,
        env=env(ollama_server),
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["id"], r["classification"], r["confidence"]) for r in rows] == [
        ("a", "command", 0.9),
        ("b", "question", 0.9),
    ]
    assert len(ollama_server.requests) == 1


def test_voice_classify_stdin_ollama_down(ollama_server: Any) -> None:
    ollama_server.default = ollama_server.slow(3.0)
    result = runner.invoke(
        app,
        ["voice", "classify", "--stdin", "-c", "ollama"],
        input='{"id": "a", "text": "x"}\n',
        env=env(ollama_server),
    )
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ollama at http://127.0.0.1:")
    assert "did not answer within 0.5s" in result.stderr
