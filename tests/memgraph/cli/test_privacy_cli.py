"""Privacy at every capture entry (hook, backfill, import) and `memgraph forget`, via the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from memgraph.store import open_store
from profiles.voice.ledger import ledger_entries

sys.path.insert(0, str(Path(__file__).parents[2] / "profiles" / "voice"))
from _capture_helpers import SID, claude_records, write_transcript

runner = CliRunner()
TOKEN = "ghp_" + "Zq7Xw2Lm9Pr4Tt6Yv8Bn1Cd3Fg5Hj0Kk2Ls4"
PROMPTS = [
    f"use my token {TOKEN} for the deploy",
    "also <private>my home address is 12 Elm Row</private> check the cache",
    "<private>only private words here</private>",
    "then render the page and finish up",
    "and one more for the count",
]


def _store_bytes(env: Path) -> bytes:
    home = env / "mg-home"
    return b"".join(p.read_bytes() for p in home.iterdir() if p.is_file())


def _hook(path: Path, *flags: str) -> str:
    payload = json.dumps({"session_id": SID, "transcript_path": str(path), "cwd": "/nonexistent"})
    result = runner.invoke(app, ["hook", "session-end", *flags], input=payload)
    assert result.exit_code == 0, result.output
    return result.output


def _transcript(env: Path, cwd: str = "/nonexistent/work/atlas") -> Path:
    return write_transcript(env / "transcripts" / f"{SID}.jsonl", claude_records(PROMPTS, cwd=cwd))


def test_hook_redacts_counts_and_never_stores_the_secret(isolated_env: Path) -> None:
    out = _hook(_transcript(isolated_env))
    assert "captured 4 messages" in out
    assert "3 redacted (github-token 1, private-span 2)" in out
    raw = _store_bytes(isolated_env)
    assert TOKEN.encode() not in raw and b"Elm Row" not in raw and b"only private" not in raw
    pages = [p.read_text() for p in (isolated_env / "vault").rglob("*.md")]
    assert any("[REDACTED:github-token]" in p for p in pages)
    assert not any(TOKEN in p or "Elm Row" in p for p in pages)
    store = open_store(isolated_env / "mg-home" / "memgraph.db")
    try:
        (entry,) = ledger_entries(store)
    finally:
        store.close()
    assert entry.redacted == {"github-token": 1, "private-span": 2}
    assert entry.filtered["private_only"] == 1 and entry.balanced
    assert entry.captured == 4


def test_hook_no_redact_keeps_secrets_typer_and_fast_path(isolated_env: Path) -> None:
    path = _transcript(isolated_env)
    _hook(path, "--no-redact")
    assert TOKEN.encode() in _store_bytes(isolated_env)
    assert b"Elm Row" not in _store_bytes(isolated_env)  # private spans go regardless
    # the lean fast path (a real process) takes the flag too
    other = isolated_env / "other-home"
    payload = json.dumps({"session_id": SID, "transcript_path": str(path)})
    proc = subprocess.run(
        [sys.executable, "-m", "memgraph.cli", "hook", "session-end", "--no-redact"],
        input=payload.encode(),
        capture_output=True,
        env={**os.environ, "MEMGRAPH_HOME": str(other)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert TOKEN.encode() in (other / "memgraph.db").read_bytes()


def test_env_redact_off_is_honoured(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMGRAPH_REDACT", "false")
    _hook(_transcript(isolated_env))
    assert TOKEN.encode() in _store_bytes(isolated_env)


def test_excluded_project_is_not_captured_and_counted(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGRAPH_EXCLUDE_PROJECTS", "billing, atlas")
    out = _hook(_transcript(isolated_env))
    assert "no page: excluded project" in out
    assert "5 filtered" in out or "filtered" in out
    store = open_store(isolated_env / "mg-home" / "memgraph.db")
    try:
        assert list(store.iter_nodes(profile="voice", kind="message")) == []
        (entry,) = ledger_entries(store)
    finally:
        store.close()
    assert entry.filtered["excluded_project"] == 5 and entry.captured == 0 and entry.balanced
    assert b"deploy" not in _store_bytes(isolated_env)


def test_excluded_path_from_the_config_file_in_backfill(isolated_env: Path) -> None:
    config = isolated_env / "home" / ".config" / "memgraph" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('exclude_paths = ["/secret/clients"]\n')
    write_transcript(
        isolated_env / "transcripts" / "a" / f"{SID}.jsonl",
        claude_records(PROMPTS, cwd="/secret/clients/acme"),
    )
    sid2 = "90000000-aaaa-bbbb-cccc-000000000002"
    write_transcript(
        isolated_env / "transcripts" / "b" / f"{sid2}.jsonl",
        claude_records(PROMPTS, sid=sid2, cwd="/nonexistent/work/atlas"),
    )
    result = runner.invoke(app, ["voice", "--backfill", "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in result.output.splitlines()]
    reasons = {o.get("session_id"): o.get("reason") for o in lines if "status" in o}
    assert reasons[SID] == "excluded_path" and reasons[sid2] is None
    ledger = lines[-1]["ledger"]
    assert ledger["filtered_by_rule"]["excluded_path"] == 5
    assert ledger["redacted_by_kind"] == {"github-token": 1, "private-span": 2}
    text = runner.invoke(app, ["voice", "--backfill"])  # nothing new; still says nothing
    assert text.exit_code == 0


def test_backfill_summary_and_no_redact(isolated_env: Path) -> None:
    _transcript(isolated_env)
    out = runner.invoke(app, ["voice", "--backfill"])
    assert out.exit_code == 0, out.output
    assert "3 redacted (github-token 1, private-span 2)" in out.output
    assert TOKEN.encode() not in _store_bytes(isolated_env)
    sid2 = "90000000-aaaa-bbbb-cccc-000000000003"
    write_transcript(
        isolated_env / "transcripts" / f"{sid2}.jsonl", claude_records(PROMPTS, sid=sid2)
    )
    kept = runner.invoke(app, ["voice", "--backfill", "--no-redact"])
    assert kept.exit_code == 0, kept.output
    assert TOKEN.encode() in _store_bytes(isolated_env)


def test_import_conversations_redacts_unless_told(isolated_env: Path) -> None:
    path = isolated_env / "chat.jsonl"
    rows = [
        {"session": "s1", "speaker": "me", "ts": "2024-01-01T10:00:00Z", "text": f"key {TOKEN}"},
        {"session": "s1", "speaker": "bot", "ts": "2024-01-01T10:01:00Z", "text": "noted"},
        {
            "session": "s1",
            "speaker": "me",
            "ts": "2024-01-01T10:02:00Z",
            "text": "<private>x</private>",
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = runner.invoke(app, ["import", "conversations", str(path), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["redacted"] == {"github-token": 1, "private-span": 1}
    assert data["skipped"]["private_only"] == 1
    assert TOKEN.encode() not in _store_bytes(isolated_env)
    path2 = isolated_env / "chat2.jsonl"
    path2.write_text(json.dumps({**rows[0], "session": "s2"}) + "\n")
    kept = runner.invoke(app, ["import", "conversations", str(path2), "--no-redact"])
    assert kept.exit_code == 0, kept.output
    assert TOKEN.encode() in _store_bytes(isolated_env)


# -- memgraph forget ------------------------------------------------------------


def _captured(env: Path) -> None:
    prompts = ["the launch phrase is quokka-marmalade", "fix the retry loop", "add jitter", "ok go"]
    path = write_transcript(env / "transcripts" / f"{SID}.jsonl", claude_records(prompts))
    _hook(path)


def test_forget_dry_run_lists_and_changes_nothing(isolated_env: Path) -> None:
    _captured(isolated_env)
    before = _store_bytes(isolated_env)
    out = runner.invoke(app, ["forget", "--query", "quokka", "--dry-run"])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0].startswith("would forget n-") and "quokka-marmalade" in lines[0]
    assert " UTC " in lines[0]  # the time as voice search shows it, with its zone
    assert lines[-1] == "dry run: 1 message in 1 session would be forgotten"
    assert b"quokka" in _store_bytes(isolated_env) and len(before) > 0


def test_forget_needs_yes_without_a_terminal(isolated_env: Path) -> None:
    _captured(isolated_env)
    out = runner.invoke(app, ["forget", "--query", "quokka"])
    assert out.exit_code == 2
    assert out.stderr.startswith("Error: forget removes the text of 1 message for good")
    assert "--yes" in out.stderr
    assert b"quokka" in _store_bytes(isolated_env)


def test_forget_yes_json_removes_everywhere(isolated_env: Path) -> None:
    _captured(isolated_env)
    out = runner.invoke(
        app, ["forget", "--query", "quokka", "--yes", "--json", "--reason", "pasted", "--by", "ada"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert len(data["messages"]) == 1 and data["receipts"] == 1
    assert data["pages_rewritten"] and not data["dry_run"]
    assert b"quokka" not in _store_bytes(isolated_env)
    vault = isolated_env / "vault"
    assert not any(b"quokka" in p.read_bytes() for p in vault.rglob("*") if p.is_file())
    snap = runner.invoke(app, ["snapshot", "export", "-o", str(isolated_env / "s.json")])
    assert snap.exit_code == 0, snap.output
    exported = (isolated_env / "s.json").read_bytes()
    assert b"quokka" not in exported and b"forget by ada: pasted" in exported
    search = runner.invoke(app, ["voice", "quokka"])
    assert "quokka" not in search.stdout
    text = runner.invoke(app, ["forget", "--query", "jitter", "--yes"])
    assert text.exit_code == 0
    assert text.stdout.startswith("forgot 1 message in 1 session: 1 receipt, ")


def test_forget_bad_input(isolated_env: Path) -> None:
    _captured(isolated_env)
    none = runner.invoke(app, ["forget"])
    assert none.exit_code == 2 and "name what to forget" in none.stderr
    missing = runner.invoke(app, ["forget", "n-doesnotexist", "--yes"])
    assert missing.exit_code == 1 and "not found: n-doesnotexist" in missing.stderr
    assert missing.stdout == "nothing matched; nothing forgotten\n"
    nothing = runner.invoke(app, ["forget", "--query", "zzzznotthere", "--yes"])
    assert nothing.exit_code == 0 and nothing.stdout == "nothing matched; nothing forgotten\n"


def test_forget_dry_run_fails_on_a_name_that_is_not_stored(isolated_env: Path) -> None:
    """`forget n-bogus --dry-run` (or a session id cut to 8 characters, as listings show
    it) printed `not found: ...` and exited 0, where the real run exits 1: a script
    that checks with --dry-run first went on."""
    _captured(isolated_env)
    missing = runner.invoke(app, ["forget", "n-doesnotexist", "--dry-run"])
    assert missing.exit_code == 1 and "not found: n-doesnotexist" in missing.stderr
    short = runner.invoke(app, ["forget", "--session", SID[:8], "--dry-run"])
    assert short.exit_code == 1
    assert (
        f"not found: {SID[:8]} (forget takes voice messages: --session a voice session's whole id"
        in (short.stderr)
    )
    whole = runner.invoke(app, ["forget", "--session", SID, "--dry-run"])
    assert whole.exit_code == 0 and "would be forgotten" in whole.stdout


def test_forgotten_import_is_not_imported_again(isolated_env: Path) -> None:
    path = isolated_env / "chat.jsonl"
    rows = [
        {"session": "s1", "speaker": "me", "ts": "2024-01-01T10:00:00Z", "text": "quokka plan"},
        {"session": "s1", "speaker": "me", "ts": "2024-01-01T10:01:00Z", "text": "other words"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert runner.invoke(app, ["import", "conversations", str(path)]).exit_code == 0
    gone = runner.invoke(app, ["forget", "--query", "quokka", "--yes"])
    assert gone.exit_code == 0, gone.output
    again = runner.invoke(app, ["import", "conversations", str(path), "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["skipped"]["forgotten"] == 1
    assert b"quokka" not in _store_bytes(isolated_env)
    whole = runner.invoke(app, ["forget", "--session", "s1", "--yes"])
    assert whole.exit_code == 0, whole.output
    last = runner.invoke(app, ["import", "conversations", str(path), "--json"])
    assert last.exit_code == 0 and json.loads(last.stdout)["skipped"]["forgotten"] == 2


@pytest.mark.parametrize(("answer", "code", "gone"), [("y", 0, True), ("n", 1, False)])
def test_forget_asks_on_a_terminal(isolated_env: Path, answer: str, code: int, gone: bool) -> None:
    """Through a pseudo-terminal on stdin: the prompt, then the answer decides."""
    import pty

    _captured(isolated_env)
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memgraph.cli", "forget", "--query", "quokka"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        os.write(master, f"{answer}\n".encode())
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == code, err
    assert b"Forget 1 message in 1 session for good? [y/N]" in err
    assert (b"quokka" not in _store_bytes(isolated_env)) is gone
    assert out.startswith(b"forgot 1 message in 1 session: ") is gone


def _json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_forget_rewrites_a_memory_that_quotes_it_and_names_a_repeated_message(
    isolated_env: Path,
) -> None:
    """A memory quoting the forgotten words loses the quote (dry run says so first);
    the operator's own repeat of them in another message is named with the command
    that forgets it too, and the run exits 1 while the words are still stored."""
    prompts = ["the launch phrase is quokka-marmalade", "fix the retry loop", "ok go"]
    _hook(write_transcript(isolated_env / "transcripts" / f"{SID}.jsonl", claude_records(prompts)))
    other_sid = "7d1c0b2e-9a4f-4b7e-8c3d-2f1e0a9b8c7d"
    again = ["again: the launch phrase is quokka-marmalade", "and nothing else"]
    path = write_transcript(
        isolated_env / "transcripts" / f"{other_sid}.jsonl", claude_records(again, sid=other_sid)
    )
    payload = json.dumps({"session_id": other_sid, "transcript_path": str(path), "cwd": "/x"})
    assert runner.invoke(app, ["hook", "session-end"], input=payload).exit_code == 0
    mem = runner.invoke(
        app,
        ["remember", "the operator said: the launch phrase is quokka-marmalade", "--json"],
        env={"MEMGRAPH_SESSION": "s-agent"},
    )
    assert mem.exit_code == 0, mem.output
    mem_id = json.loads(mem.stdout)["id"]
    hits = _json_lines(runner.invoke(app, ["voice", "quokka", "--json"]).stdout)
    first = next(h["node_id"] for h in hits if not h["text"].startswith("again"))
    repeat = next(h["node_id"] for h in hits if h["text"].startswith("again"))

    dry = runner.invoke(app, ["forget", first, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert f"would rewrite {mem_id}  (it quotes a message forgotten here)" in dry.stdout
    assert f"forget them too: memgraph forget {repeat}" in dry.stderr

    out = runner.invoke(app, ["forget", first, "--yes"])
    assert out.exit_code == 1, out.output
    assert f"rewrote 1 node that quoted it (0 session views re-rendered): {mem_id}" in out.stdout
    assert "warning: 1 other message holds the same words" in out.stderr and repeat in out.stderr
    shown = runner.invoke(app, ["voice", "quokka", "--json"])
    assert [h["node_id"] for h in _json_lines(shown.stdout)] == [repeat]
    assert runner.invoke(app, ["forget", repeat, "--yes"]).exit_code == 0
    assert b"quokka" not in _store_bytes(isolated_env)


def test_the_hook_reads_no_transcript_through_a_symlink_out_of_its_folder(
    isolated_env: Path,
) -> None:
    """The harness names the transcript; a symlink there pointing out of its folder (at
    /etc/passwd, another user's file) was read ("captured 0 messages", exit 0). Now one
    line and exit 1, nothing stored; a link to a file beside it in the folder is read."""
    folder = isolated_env / "transcripts"
    real = write_transcript(folder / "real.jsonl", claude_records(["add jitter to retries"]))
    outside = isolated_env / "elsewhere" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
    out_link = folder / f"{SID}.jsonl"
    out_link.symlink_to(outside)
    payload = json.dumps({"session_id": SID, "transcript_path": str(out_link), "cwd": "/x"})
    refused = runner.invoke(app, ["hook", "session-end"], input=payload)
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr == (
        f"Error: cannot read transcript {out_link}: it is a symlink out of its folder "
        f"(to {outside}); not read\n"
    )
    assert not (isolated_env / "mg-home" / "memgraph.db").exists()
    out_link.unlink()
    out_link.symlink_to(real.name)  # inside its folder: read as the file it names
    assert _hook(out_link).startswith("captured 1 message")
