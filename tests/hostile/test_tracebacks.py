"""Tracebacks become one ``Error:`` line (or a counted skip), batch work continues."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _hostile import SAMPLE, assert_no_traceback, assert_one_error_line, env_for, run


def _seeded_env(root: Path) -> dict[str, str]:
    env = env_for(root) | {"MEMGRAPH_TRANSCRIPTS": str(SAMPLE)}
    assert run("voice", "--backfill", env=env).code == 0
    return env


@pytest.mark.parametrize("argv", [["voice", "backoff"], ["voice", "--recent"]])
def test_absurd_limit_is_not_an_overflow(sandbox: dict[str, Path], argv: list[str]) -> None:
    env = _seeded_env(sandbox["root"])
    r = run(*argv, "--limit", str(10**20), env=env)
    assert_no_traceback(r)
    assert r.code == 0 and r.out.strip(), r.err


@pytest.mark.parametrize(
    ("at", "expect"),
    [
        # the one date parser (memgraph.dates) refuses them all: years 1000-9999 only
        ("0001-01-01T00:00:00+14:00", "--at: bad date"),
        ("9999-12-31T23:59:59-14:00", "--at: bad date"),
        ("0999-06-01T00:00:00Z", "--at: bad date"),
        ("not a time", "--at: bad date"),
    ],
)
def test_note_at_out_of_range(sandbox: dict[str, Path], at: str, expect: str) -> None:
    env = env_for(sandbox["root"])
    assert run("session", "start", "s1", env=env).code == 0
    r = run("note", "hello", "--session", "s1", "--at", at, env=env)
    assert_one_error_line(r, contains=expect)


def test_pre_1000_timestamps_are_refused_on_capture_with_a_ledger_entry(tmp_path: Path) -> None:
    from profiles.voice.ledger import entry_from_stats
    from profiles.voice.readers import read_transcript

    rec = {
        "type": "user",
        "message": {"role": "user", "content": "from the distant past"},
        "uuid": "u1",
        "timestamp": "0001-01-01T00:00:00+14:00",
        "sessionId": "s",
    }
    ok = dict(rec, uuid="u2", timestamp="2026-01-01T00:00:00Z", message={
        "role": "user", "content": "from now"})  # fmt: skip
    p = tmp_path / "t.jsonl"
    p.write_text(json.dumps(rec) + "\n" + json.dumps(ok) + "\n")
    read = read_transcript(p)
    assert [m.text for m in read.messages] == ["from now"]
    entry = entry_from_stats(str(p), read.stats)
    assert entry.dropped == {"bad_timestamp": 1} and entry.balanced
    # what is captured renders and parses back (parse(render(x)) holds)
    from datetime import datetime

    for m in read.messages:
        assert datetime.fromisoformat(m.timestamp.isoformat()) == m.timestamp
        assert len(f"{m.timestamp:%Y}") == 4


def _mcp(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "memgraph.cli", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def _exchange(proc: subprocess.Popen[bytes], raw: str, timeout: float = 30) -> dict[str, object]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(raw.encode() + b"\n")
    proc.stdin.flush()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
        if not ready:
            break
        line = proc.stdout.readline()
        if not line:
            break
        msg = json.loads(line)
        if "id" in msg:
            return dict(msg)
    pytest.fail(f"no reply within {timeout}s to {raw[:120]}")


def test_mcp_answers_every_request(sandbox: dict[str, Path]) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    env = _seeded_env(sandbox["root"]) | {"MEMGRAPH_SESSION": "s1"}
    proc = _mcp(env)
    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "hostile", "version": "1"}}  # fmt: skip
        _exchange(proc, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                    "params": init}))  # fmt: skip
        assert proc.stdin is not None
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        cases = [
            ("voice_search", '{"query": "a\\ud800b"}', "'query'"),
            ("note", '{"text": "x\\udfff"}', "'text'"),
            ("wake", '{"persona": "\\ud800"}', "'persona'"),
            ("context", '{"text": "ok", "cut": "\\udc00"}', "'cut'"),
            ("voice_search", json.dumps({"query": " ".join(["w"] * 50000)}), "at most"),
            ("voice_search", json.dumps({"query": " OR ".join(["w"] * 5000)}), "at most"),
            ("context", json.dumps({"text": "x " * 3000}), "at most"),
        ]
        for i, (tool, args, expect) in enumerate(cases, start=10):
            raw = (
                f'{{"jsonrpc":"2.0","id":{i},"method":"tools/call",'
                f'"params":{{"name":"{tool}","arguments":{args}}}}}'
            )
            reply = _exchange(proc, raw)
            result = reply["result"]
            assert isinstance(result, dict) and result["isError"] is True, reply
            text = result["content"][0]["text"]
            assert expect in text, text
        # the server is still healthy afterwards
        ok = _exchange(
            proc,
            '{"jsonrpc":"2.0","id":99,"method":"tools/call",'
            '"params":{"name":"voice_search","arguments":{"query":"backoff"}}}',
        )
        assert ok["result"]["isError"] is False  # type: ignore[index]
    finally:
        proc.kill()
        proc.wait()


def test_mcp_context_reply_fits_the_budget(sandbox: dict[str, Path]) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from context_cut.budget import estimate_tokens
    from memgraph.config import load_settings
    from memgraph.mcp_server import MemgraphTools

    env = _seeded_env(sandbox["root"])
    tools = MemgraphTools(load_settings(home=Path(env["MEMGRAPH_HOME"])))
    for budget in (300, 800, 2000):
        data = tools.context("retry backoff jitter cache", budget=budget)
        assert estimate_tokens(json.dumps(data, indent=2, ensure_ascii=False)) <= budget


@pytest.mark.parametrize("fmt", [[], ["--json"], ["--markdown"]])
def test_cli_context_output_fits_the_budget(sandbox: dict[str, Path], fmt: list[str]) -> None:
    from context_cut.budget import estimate_tokens

    env = _seeded_env(sandbox["root"])
    for budget in (300, 1200):
        r = run("context", "retry backoff jitter cache", "--budget", str(budget), *fmt, env=env)
        assert_no_traceback(r)
        assert r.code == 0, r.err
        assert 0 < estimate_tokens(r.out) <= budget


@pytest.mark.parametrize(
    "argv", [["stats"], ["voice", "x"], ["note", "x", "--session", "s1"], ["wake"], ["doctor"]]
)
def test_a_home_longer_than_a_file_name_is_one_line(
    sandbox: dict[str, Path], argv: list[str]
) -> None:
    """MEMGRAPH_HOME=/tmp/<300 characters>: ENAMETOOLONG from the first stat was a traceback."""
    env = env_for(sandbox["root"]) | {"MEMGRAPH_HOME": str(sandbox["root"] / ("a" * 300))}
    assert_one_error_line(run(*argv, env=env), contains="file name too long")


@pytest.mark.parametrize("argv", [["wake"], ["windows"], ["context", "x"], ["recall", "x"]])
def test_a_config_path_with_a_nul_byte_is_one_line(
    sandbox: dict[str, Path], argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """home = "a\\u0000b" in the config file: "embedded null byte" was a traceback."""
    config = sandbox["root"] / "config.toml"
    config.write_text('home = "/tmp/x\\u0000y"\n')
    env = env_for(sandbox["root"]) | {"MEMGRAPH_CONFIG": str(config)}
    del env["MEMGRAPH_HOME"]
    monkeypatch.delenv("MEMGRAPH_HOME", raising=False)  # the file's home is the one read
    assert_one_error_line(run(*argv, env=env), contains="NUL byte")


def test_symlink_loops_are_one_line_or_a_counted_skip(sandbox: dict[str, Path]) -> None:
    """Python 3.11's Path.resolve() raises a bare RuntimeError on a symlink loop, and an
    open meets ELOOP: a looping `--home` (recall), a looping vault page (render, hook
    session-end) and a looping `log.md` (windows, sleep) each ended in a traceback."""
    root = sandbox["root"]
    env = _seeded_env(root)
    loop = root / "loop"
    loop.symlink_to(loop)
    assert_one_error_line(run("recall", "backoff", "--home", str(loop), env=env), contains="loop")
    vault = Path(env["MEMGRAPH_VAULT"])
    page = sorted(vault.glob("*/voice/*.md"))[0]
    page.unlink()
    page.symlink_to(page)  # a looping page: that session fails, the others render
    r = run("render", env=env)
    assert_no_traceback(r)
    assert r.code == 1 and "is a symlink loop" in r.err and "1 failed" in r.err + r.out, r.err
    log = vault / "log.md"
    log.unlink(missing_ok=True)
    log.symlink_to(log)  # read as a vault page (skipped, counted); never written through
    for argv in (["windows"], ["sleep", "--now"]):
        assert_one_error_line(run(*argv, env=env), contains="log.md")


@pytest.mark.parametrize("name", ["sleep.json", "sleep.json.lock"])
def test_a_folder_where_a_state_file_goes_is_one_line(sandbox: dict[str, Path], name: str) -> None:
    """A folder at ``<home>/sleep.json`` (or its lock): the pass's state write ended in
    an IsADirectoryError traceback. Any OSError that reaches the CLI is one line
    naming the file (the rename's target, not its temp file)."""
    env = _seeded_env(sandbox["root"])
    state = Path(env["MEMGRAPH_HOME"]) / name
    if state.exists():
        state.unlink()
    state.mkdir()
    line = assert_one_error_line(run("sleep", "--now", env=env), contains=str(state))
    assert "Is a directory" in line and ".tmp" not in line
