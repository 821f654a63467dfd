"""Output a terminal cannot encode (a person's words in any script on a Latin-1 or
ASCII locale; undecodable file names) never fails a command: escaped, JSON kept valid."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.process import COMMAND, memgraph

WORDS = "方案 — ünïcode 🚀 retry"


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


def _run(cwd: Path, encoding: str, *args: str) -> tuple[int, str, str]:
    """memgraph with its output in ``encoding``, read back in that encoding."""
    done = subprocess.run(
        [*COMMAND, *args],
        cwd=cwd,
        env=_env(PYTHONIOENCODING=encoding),
        capture_output=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout.decode(encoding), done.stderr.decode(encoding)


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_wake_voice_and_json_on_a_terminal_that_cannot_encode_the_words(
    tmp_path: Path, encoding: str
) -> None:
    """`wake` printed its header, then "Error: input out of range or not encodable:
    UnicodeEncodeError ..." (exit 2), and the note itself never; `--json` likewise."""
    code, _, err = _run(tmp_path, encoding, "note", WORDS, "--session", "s-enc")
    assert code == 0, err
    code, out, err = _run(tmp_path, encoding, "wake")
    assert code == 0, err
    assert "\\u65b9\\u6848" in out and "\\ud83d\\ude80" in out
    code, out, err = _run(tmp_path, encoding, "wake", "--json")
    assert code == 0, err
    assert json.loads(out)["text"] == WORDS  # the escapes are JSON's own
    code, out, err = _run(tmp_path, encoding, "session", "show", "s-enc", "--json")
    assert code == 0, err
    assert any(json.loads(line).get("text") == WORDS for line in out.splitlines() if line)


def test_an_undecodable_file_name_is_shown_escaped(tmp_path: Path) -> None:
    """A lone surrogate (a name's undecodable byte) cannot be written to any stream
    strictly; the name is printed escaped (this held before the stream fix too)."""
    name = os.fsdecode(b"caf\xe9.db")
    done = memgraph("validate", str(tmp_path / name), env=_env(PYTHONIOENCODING="utf-8"))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "UnicodeEncodeError" not in done.stdout + done.stderr
    assert "no such file" in done.stdout
