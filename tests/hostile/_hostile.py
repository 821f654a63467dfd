"""Harness for the hostile suite: every case bounded, every failure one line.

``run`` starts the real ``memgraph`` CLI in a subprocess (so a hang is a
timeout, not a stuck test run) and ``assert_one_error_line`` checks what a user
sees: a non-zero exit, no traceback, exactly one ``Error:`` line. ``Tree``
fingerprints a directory so a test can prove nothing was written outside the
roots it gave memgraph.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "memgraph" / "sample"
# no case may take longer than this (a hang is the defect being tested)
CASE_TIMEOUT = 60.0


@dataclass
class Result:
    code: int
    out: str
    err: str
    timed_out: bool = False


def run(
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = CASE_TIMEOUT,
    cwd: Path | None = None,
) -> Result:
    full_env = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join(sys.path)}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "memgraph.cli", *args],
            input=stdin if stdin is not None else b"",
            capture_output=True,
            env=full_env,
            timeout=timeout,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired as exc:
        return Result(
            -1,
            (exc.stdout or b"").decode("utf-8", "replace"),
            (exc.stderr or b"").decode("utf-8", "replace"),
            timed_out=True,
        )
    return Result(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def assert_no_traceback(r: Result) -> None:
    assert not r.timed_out, f"hung (>{CASE_TIMEOUT}s): {r.err[-500:]}"
    assert "Traceback" not in r.err and "Traceback" not in r.out, r.err[-2000:]


def assert_one_error_line(r: Result, *, contains: str = "") -> str:
    """Non-zero exit, no traceback, exactly one stderr line starting ``Error:``."""
    assert_no_traceback(r)
    assert r.code != 0, f"exit 0 for a refused input: {r.out[-300:]} {r.err[-300:]}"
    errors = [line for line in r.err.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, r.err
    assert contains.lower() in errors[0].lower(), errors[0]
    return errors[0]


class Tree:
    """(path -> sha256 or link target or kind) of everything under a directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = self._scan()

    def _scan(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for dirpath, dirnames, filenames in os.walk(self.root, followlinks=False):
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                rel = str(p.relative_to(self.root))
                if p.is_symlink():
                    out[rel] = "link:" + os.readlink(p)
                elif p.is_dir():
                    out[rel] = "dir"
                elif p.is_file():
                    out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
                else:
                    out[rel] = "special"
        return out

    def unchanged(self) -> bool:
        return self._scan() == self.state

    def diff(self) -> list[str]:
        now = self._scan()
        keys = set(now) | set(self.state)
        return sorted(k for k in keys if now.get(k) != self.state.get(k))


def env_for(root: Path) -> dict[str, str]:
    return {
        "HOME": str(root / "home"),
        "XDG_CONFIG_HOME": str(root / "home" / ".config"),
        "XDG_DATA_HOME": str(root / "home" / ".local" / "share"),
        "MEMGRAPH_HOME": str(root / "mg-home"),
        "MEMGRAPH_VAULT": str(root / "vault"),
        "MEMGRAPH_WORKSPACE": str(root / "workspace"),
        "MEMGRAPH_TRANSCRIPTS": str(root / "transcripts"),
    }


def store_messages(db: Path) -> set[tuple[str, str]]:
    """(session_id, verbatim text) of every voice message in a store (read-only)."""
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT doc FROM nodes WHERE profile = 'voice' AND kind = 'message'"
        ).fetchall()
    finally:
        conn.close()
    found = set()
    from memgraph.store.docpack import unpack  # node documents are stored packed

    for (doc,) in rows:
        data = json.loads(unpack(doc))
        found.add((str(data["attributes"]["session_id"]), str(data["claim"])))
    return found
