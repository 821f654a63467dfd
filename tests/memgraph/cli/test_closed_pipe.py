"""A reader that leaves (``memgraph review list | head -3``) ends the output quietly.

Before: `memgraph --help` printed a traceback, the typer commands printed
``Error: Broken pipe: memgraph cannot use it as it is; fix or move it`` (advice about a
file that is not there) and exited 1, depending on whether the write or the final flush
met the closed pipe. Each command here runs twice through the real console script
(fast paths included): once into a pipe that is read, to show it prints something (so
the second run has a write to fail), and once into a pipe whose reading end is already
closed, which makes the first write fail every time, not only when ``head`` wins a race.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
from _search_helpers import Msg, add, ts

from memgraph.cli.output import reader_left
from memgraph.store import open_store

MEMGRAPH = shutil.which("memgraph", path=str(Path(sys.executable).parent)) or "memgraph"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    store = open_store(Path(os.environ["MEMGRAPH_HOME"]) / "memgraph.db")
    add(
        store,
        Msg("we keep the fact table in postgres", ts("2026-04-14", "14:32"), uuid="a"),
        Msg("switch the model before the fact check", ts("2026-04-15", "09:00"), uuid="b"),
    )
    store.close()
    repo = tmp_path / "shop"
    repo.mkdir()
    (repo / "cart.py").write_text(
        '"""The cart holds facts."""\n\n\ndef add_fact() -> None:\n    pass\n'
    )
    (repo / "till.py").write_text('"""The till."""\nimport cart\n')
    done = subprocess.run([MEMGRAPH, "repo", "scan", str(repo)], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return repo


COMMANDS = [
    ["--help"],
    ["--version"],
    ["repo", "--help"],
    ["voice", "fact"],
    ["voice", "fact", "--json"],
    ["voice", "--stats"],
    ["voice", "--recent"],
    ["review", "list"],
    ["review", "list", "--json"],
    ["repo", "status", "{repo}"],
    ["context", "the fact cart", "--cut", "repo", "--repo", "{repo}"],
    ["context", "the fact cart", "--cut", "repo", "--repo", "{repo}", "--json"],
    ["recall", "fact"],
    ["doctor"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_closed_pipe_ends_the_output_quietly(home: Path, argv: list[str]) -> None:
    args = [a.replace("{repo}", str(home)) for a in argv]
    read = subprocess.run([MEMGRAPH, *args], capture_output=True, timeout=120)
    assert read.stdout, "the command prints something, so the closed pipe is written to"
    r, w = os.pipe()
    os.close(r)
    try:
        done = subprocess.run(
            [MEMGRAPH, *args], stdout=w, stderr=subprocess.PIPE, timeout=120, text=True
        )
    finally:
        os.close(w)
    assert done.returncode == 0, done.stderr
    for said in ("Traceback", "Error:", "Broken pipe", "Exception ignored"):
        assert said not in done.stderr, done.stderr


def test_a_broken_pipe_to_anything_else_stays_an_error() -> None:
    # stdout here is pytest's capture file or a terminal, not a pipe without a reader
    assert reader_left(BrokenPipeError()) is False
    assert reader_left(OSError("other")) is False
