"""The lean ``memgraph voice`` path on PostgreSQL through libpq (ctypes, no psycopg).

``memgraph.store.postgres.libpq`` must answer exactly as psycopg does: the same
bytes out of a whole ``memgraph voice`` process over hostile queries, the same
rows in process for every plan (common words, prefixes, phrases, the substring
tier, filters), the same one-line errors, and no ``import psycopg``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memgraph.store import open_store
from memgraph.store.postgres import fast, libpq
from memgraph.store.voice_rows import VoiceSearch

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SAMPLE = Path(__file__).resolve().parents[2] / "memgraph" / "sample"

# what people type, and what they should not be able to break
HOSTILE = [
    "it's",
    "'; DROP TABLE nodes; --",
    '"quoted phrase',
    "back\\slash",
    "C:\\path\\to",
    "100%",
    "%s %% %(x)s",
    "$1 $2",
    "naïve café",
    "中文 字",
    "émoji 🎉",
    "under_score",
    "retry",
    "retr*",
    "the",
    "the retry",
    '"exponential backoff"',
    "backoff jitter",
    "%",
    "_",
    "\\",
]


def _transcript(path: Path) -> Path:
    """A claude transcript of hostile user messages (quotes, backslashes, %, $1,
    unicode, a NUL) with the shape of the bundled sample."""
    sample = next((SAMPLE / "claude").rglob("*.jsonl"))
    template = next(
        json.loads(line)
        for line in sample.read_text().splitlines()
        if '"type": "user"' in line and "local-command" not in line
    )
    texts = [
        "it's the retry: it's done",
        "'; DROP TABLE nodes; -- the retry",
        'a "quoted phrase" with the retry',
        "back\\slash and C:\\path\\to\\file the retry",
        "100% sure, %s and %% and %(x)s and $1 $2",
        "naïve café 中文 字 émoji 🎉 under_score",
        "NUL \x00 inside the text",
        "exponential backoff with jitter, retry",
        "/retry",  # bare commands: left out unless --all
        "/retry.now",
    ]
    lines = []
    for i, text in enumerate(texts * 3):
        doc = dict(template)
        doc["message"] = {"role": "user", "content": text}
        doc["uuid"] = f"00000000-0000-4000-8000-{i:012d}"
        doc["parentUuid"] = None
        doc["sessionId"] = "hostile0-0000-4000-8000-000000000000"
        doc["timestamp"] = f"2026-05-0{1 + i % 9}T10:00:{i:02d}.000Z"
        lines.append(json.dumps(doc))
    out = path / "hostile0-0000-4000-8000-000000000000.jsonl"
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.fixture
def filled(pg_url: str, tmp_path: Path) -> str:
    from profiles.voice.capture import CaptureRequest, capture_transcript

    store = open_store(pg_url)
    transcripts = [*sorted(SAMPLE.rglob("*.jsonl")), _transcript(tmp_path)]
    for transcript in transcripts:
        capture_transcript(store, CaptureRequest(transcript, tmp_path / "vault", now=NOW))
    store.close()
    return pg_url


def _cmd() -> list[str]:
    exe = Path(sys.executable).with_name("memgraph")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "memgraph.cli"]


def _voice(args: list[str], url: str, home: Path, client: str = "") -> tuple[int, bytes, bytes]:
    env = {k: v for k, v in os.environ.items() if k != "MEMGRAPH_PG_CLIENT"}
    env.update(MEMGRAPH_HOME=str(home), MEMGRAPH_STORE=url, NO_COLOR="1")
    if client:
        env["MEMGRAPH_PG_CLIENT"] = client
    proc = subprocess.run([*_cmd(), "voice", *args], env=env, capture_output=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.slow
def test_whole_process_output_is_byte_identical_to_psycopgs(filled: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    runs = [[q] for q in HOSTILE] + [[q, "--json", "--full"] for q in HOSTILE[:8]]
    runs += [
        ["retry", "--project", "atl'as"],
        ["retry", "--session", "hostile0"],
        ["retry", "--since", "2026-05-02", "--until", "2026-05-05", "--json"],
        ["retry", "--word", "--limit", "2"],
        ["the", "--limit", "1", "--json"],
        ["--recent", "--json"],
        ["--stats", "--json"],
        ["--type", "command", "--json"],
        ["retry", "--all", "--json"],
    ]
    codes = []
    for args in runs:
        lean = _voice(args, filled, home)
        assert lean == _voice(args, filled, home, client="psycopg"), args
        codes.append((lean[0], args))
    # every run answered; the one usage error: no project "atl'as"
    assert [a for c, a in codes if c] == [["retry", "--project", "atl'as"]]
    assert any(b"hostile0" in _voice([q, "--json"], filled, home)[1] for q in HOSTILE)


def test_bare_commands_are_left_out_as_sqlite_leaves_them_out(filled: str, tmp_path: Path) -> None:
    """The one-word plan ranks on the postings alone, then checks the best hits for
    bare commands (``/retry``): the same hits as SQLite's, with and without --all."""
    from profiles.voice.capture import CaptureRequest, capture_transcript

    home = tmp_path / "sqlite-home"
    store = open_store(home / "memgraph.db")
    for transcript in [*sorted(SAMPLE.rglob("*.jsonl")), _transcript(tmp_path)]:
        capture_transcript(store, CaptureRequest(transcript, tmp_path / "vault2", now=NOW))
    store.close()
    seen_bare = False
    for args in (["retry"], ["retry", "--all"], ["retr*"], ["retry", "--limit", "2"]):
        lean = _voice([*args, "--json"], filled, tmp_path / "h")
        env = {k: v for k, v in os.environ.items() if k != "MEMGRAPH_STORE"}
        env.update(MEMGRAPH_HOME=str(home), NO_COLOR="1")
        proc = subprocess.run([*_cmd(), "voice", *args, "--json"], env=env, capture_output=True)
        assert lean == (proc.returncode, proc.stdout, proc.stderr), args
        seen_bare |= b'"/retry' in lean[1]
    assert seen_bare  # --all shows them


def test_lean_voice_process_never_imports_psycopg(filled: str, tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from memgraph.cli import voice_fast\n"
        "code = voice_fast.run(sys.argv[1:])\n"
        "assert code == 0, code\n"
        "assert 'memgraph.store.postgres.libpq' in sys.modules\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_binary', 'pydantic', 'typer')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "MEMGRAPH_PG_CLIENT"}
    env.update(MEMGRAPH_HOME=str(tmp_path / "home"), MEMGRAPH_STORE=filled)
    for args in (["retry"], ["--stats", "--json"], ["the retry", "--json"]):
        proc = subprocess.run(
            [sys.executable, "-c", probe, *args], env=env, capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip().splitlines()[-1] == "[]"


def _requests() -> list[VoiceSearch]:
    """Every plan of the voice search: listings, one word, a prefix, several words,
    phrases, common words (bounded and recent: candidates 1), the substring tier,
    filters, ``only``."""
    found = []
    for q in [*HOSTILE, "", "retry backoff", "exponential"]:
        found += [
            VoiceSearch(query=q),
            VoiceSearch(query=q, candidates=1, limit=2),
            VoiceSearch(query=q, word=True, limit=3, demote="question"),
            VoiceSearch(query=q, since="2026-05-02", until="2026-05-06T00:00:00Z"),
            VoiceSearch(query=q, project="ATLAS", recent_sessions=2),
            VoiceSearch(query=q, session_prefix="hostile0", bare_commands=False),
            VoiceSearch(query=q, unclassified=True, as_of="2027-01-01"),
        ]
    found.append(VoiceSearch(query="retry", only=("a'b", "c\\d", 'e"f', "%s", "$1")))
    return found


def test_every_plan_reads_the_same_rows_through_both_clients(filled: str) -> None:
    for request in _requests():
        lean = fast.voice_search(filled, request)
        assert lean is not None
        assert lean == fast.voice_search(filled, request, lean=False), request
    assert fast.voice_stats(filled) == fast.voice_stats(filled, lean=False)


def test_a_nul_in_a_query_is_the_same_error_through_both_clients(filled: str) -> None:
    from memgraph.errors import StoreError

    messages = []
    for lean in (True, False):
        with pytest.raises(StoreError) as err:
            fast.voice_search(filled, VoiceSearch(query="retry", project="a\x00b"), lean=lean)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "NUL" in messages[0]


def test_placeholders_convert_as_psycopg_converts_them() -> None:
    assert (
        libpq.convert("a = %s AND b LIKE '%%x' AND c = %s", 2)
        == "a = $1 AND b LIKE '%x' AND c = $2"
    )
    with pytest.raises(libpq.PgError):
        libpq.convert("a = %d", 1)
    with pytest.raises(libpq.PgError):
        libpq.convert("a = %s", 2)


def _unreachable(url: str, tmp_path: Path) -> list[tuple[int, bytes, bytes]]:
    return [_voice(["retry"], url, tmp_path, client) for client in ("", "psycopg")]


def test_an_unreachable_server_is_one_line_through_both_clients(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    lean, slow = _unreachable(f"postgresql://fleet:pw@127.0.0.1:{port}/memgraph", tmp_path)
    assert lean == slow
    assert lean[0] == 1 and lean[1] == b""
    lines = lean[2].decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"Error: cannot connect to PostgreSQL store postgresql://fleet@127.0.0.1:{port}/memgraph:"
    )
    assert b"pw" not in lean[2].replace(b"postgresql", b"")


@pytest.mark.slow
def test_a_server_that_never_answers_times_out_in_one_line(tmp_path: Path) -> None:
    """A listener that accepts and never speaks: connect_timeout (2 s here), then
    one line, never a hang."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        port = s.getsockname()[1]
        url = f"postgresql://fleet@127.0.0.1:{port}/memgraph?connect_timeout=2"
        lean, slow = _unreachable(url, tmp_path)
    assert lean == slow
    assert lean[0] == 1
    assert lean[2].decode().strip().splitlines() == [
        f"Error: cannot connect to PostgreSQL store postgresql://fleet@127.0.0.1:{port}/memgraph:"
        " connection timeout expired"
    ]


def test_without_libpq_the_lean_path_uses_psycopg(filled: str, monkeypatch: Any) -> None:
    request = VoiceSearch(query="retry")
    expected = fast.voice_search(filled, request, lean=False)
    monkeypatch.setattr(libpq, "_tried", True)
    monkeypatch.setattr(libpq, "_lib", None)
    assert libpq.connect(filled) is None
    assert fast.voice_search(filled, request) == expected


def test_the_libpq_bundled_with_psycopg_reads_the_same(filled: str, monkeypatch: Any) -> None:
    """A machine without a system libpq loads psycopg[binary]'s copy."""
    bundled = [p for p in libpq._candidates() if "psycopg_binary.libs" in p]
    if not bundled:
        pytest.skip("psycopg[binary] bundles no libpq here")
    monkeypatch.setattr(libpq, "_tried", False)
    monkeypatch.setattr(libpq, "_lib", None)
    monkeypatch.setattr(libpq, "_usual", lambda: bundled)
    request = VoiceSearch(query="the retry")
    lean = fast.voice_search(filled, request)
    assert libpq._lib is not None and libpq._lib._name == bundled[0]
    assert lean == fast.voice_search(filled, request, lean=False)
