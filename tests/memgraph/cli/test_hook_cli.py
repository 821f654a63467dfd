"""`memgraph hook session-end` and `memgraph hook install` through typer's CliRunner."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from profiles.voice.pages import parse_page

sys.path.insert(0, str(Path(__file__).parents[2] / "profiles" / "voice"))
from _capture_helpers import PROMPTS, SID, claude_records, write_transcript

runner = CliRunner()


def hook_json(path: Path, **kw: object) -> str:
    data: dict[str, object] = {
        "session_id": SID,
        "transcript_path": str(path),
        "cwd": "/nonexistent/work/atlas",
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit",
    }
    data.update(kw)
    return json.dumps(data)


def test_session_end_writes_nodes_page_and_registry(isolated_env: Path) -> None:
    path = write_transcript(isolated_env / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    result = runner.invoke(app, ["hook", "session-end"], input=hook_json(path))
    assert result.exit_code == 0, result.output
    assert result.output.strip() == (
        "captured 4 messages (session 80166115) -> atlas/voice/2026-04-14-80166115.md"
    )
    page = isolated_env / "vault" / "atlas" / "voice" / "2026-04-14-80166115.md"
    assert [m.text for m in parse_page(page.read_text()).messages] == PROMPTS[:3]
    assert (isolated_env / "mg-home" / "memgraph.db").is_file()
    # the registry knows it: a backfill afterwards has nothing to do
    again = runner.invoke(
        app, ["voice", "--backfill", "--transcripts", str(isolated_env / "t"), "--json"]
    )
    assert again.exit_code == 0, again.output
    assert json.loads(again.output.splitlines()[0])["status"] == "unchanged"


def test_session_end_flags_override_env(isolated_env: Path) -> None:
    path = write_transcript(isolated_env / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    vault, home = isolated_env / "other-vault", isolated_env / "other-home"
    result = runner.invoke(
        app,
        ["hook", "session-end", "--vault", str(vault), "--home", str(home)],
        input=hook_json(path),
    )
    assert result.exit_code == 0, result.output
    assert (vault / "log.md").is_file() and (home / "memgraph.db").is_file()


def test_session_end_too_few_messages(isolated_env: Path) -> None:
    path = write_transcript(isolated_env / "t" / "s.jsonl", claude_records(["only one"]))
    result = runner.invoke(app, ["hook", "session-end"], input=hook_json(path))
    assert result.exit_code == 0
    # the reason in words, the count in the right number (was `captured 1 messages (...);
    # no page: too_few_messages:1`)
    assert "captured 1 message (session " in result.output
    assert "no page: too few messages (1)" in result.output


@pytest.mark.parametrize(
    ("stdin", "needle"),
    [
        ("", "not JSON"),
        ("{", "not JSON"),
        ("[1]", "not a JSON object"),
        ('{"session_id": "x"}', "no transcript_path"),
        ('{"transcript_path": 3}', "no transcript_path"),
        ('{"transcript_path": "/t", "session_id": 5}', "not a string"),
        ('{"transcript_path": "/t", "session_id": "../../etc"}', "not a safe id"),
        ('{"transcript_path": "/definitely/missing.jsonl"}', "missing.jsonl"),
        ("[" * 100000, "nested too deeply"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
)
def test_bad_hook_input_is_one_line_error(stdin: str | bytes, needle: str) -> None:
    result = runner.invoke(app, ["hook", "session-end"], input=stdin)
    assert result.exit_code in (1, 2)
    assert needle in result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_install_is_idempotent_and_keeps_settings(isolated_env: Path) -> None:
    settings = isolated_env / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    other = {"type": "command", "command": "echo bye"}
    settings.write_text(
        json.dumps({"model": "opus", "hooks": {"SessionEnd": [{"hooks": [other]}], "Stop": []}})
    )
    first = runner.invoke(app, ["hook", "install", "--command", "memgraph hook session-end"])
    assert first.exit_code == 0 and "installed SessionEnd hook" in first.output
    assert "installed SessionStart hook" in first.output
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["hooks"]["Stop"] == []
    groups = data["hooks"]["SessionEnd"]
    assert groups[0] == {"hooks": [other]}
    assert groups[1] == {"hooks": [{"type": "command", "command": "memgraph hook session-end"}]}
    start = data["hooks"]["SessionStart"]
    assert start == [{"hooks": [{"type": "command", "command": "memgraph hook session-start"}]}]
    second = runner.invoke(app, ["hook", "install"])
    assert second.exit_code == 0 and "already installed" in second.output
    assert json.loads(settings.read_text()) == data


def test_install_creates_a_missing_directory_only_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "proj" / ".claude" / "settings.local.json"
    refused = runner.invoke(app, ["hook", "install", "--settings", str(target)])
    assert refused.exit_code == 2
    assert refused.output.startswith(f"Error: {target.parent} does not exist")
    assert "--create" in refused.output
    assert not (tmp_path / "proj").exists()
    result = runner.invoke(app, ["hook", "install", "--settings", str(target), "--create"])
    assert result.exit_code == 0
    cmd = json.loads(target.read_text())["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    assert cmd.endswith("memgraph hook session-end")
    lines = result.output.splitlines()
    assert lines[0] == f"created directory {target.parent}"
    assert lines[1] == f"created {target}"
    assert lines[2] == f"installed SessionStart hook in {target}: {cmd[: -len('end')]}start"
    assert lines[3] == f"installed SessionEnd hook in {target}: {cmd}"
    # an existing file in an existing directory: no --create needed, nothing else created
    again = tmp_path / "settings.json"
    again.write_text("{}")
    result = runner.invoke(
        app, ["hook", "install", "--settings", str(again), "--command", "mg hook session-end"]
    )
    assert result.exit_code == 0
    assert (
        result.output.splitlines()[0]
        == f"installed SessionStart hook in {again}: mg hook session-start"
    )


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[]",
        '{"hooks": []}',
        '{"hooks": {"SessionEnd": {}}}',
        # written back, 1e400 became `Infinity` (no JSON reader takes it): the file broke
        '{"fontSize": 1e400}',
        '{"ratio": NaN}',
        # too deep for the parser: a RecursionError line that named no file
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_install_refuses_to_overwrite_bad_settings(tmp_path: Path, content: str) -> None:
    target = tmp_path / "settings.json"
    target.write_text(content)
    result = runner.invoke(app, ["hook", "install", "--settings", str(target)])
    assert result.exit_code == 1 and result.output.startswith("Error: ")
    assert "not changed" in result.output
    assert target.read_text() == content


@pytest.mark.parametrize("bad", ["mg\nrm -rf /", "mg\r", "mg\x00", "mg\x1b[2J", "mg\u2028x"])
def test_install_refuses_a_command_with_control_characters(tmp_path: Path, bad: str) -> None:
    """`--command $'mg\\nrm -rf /'` went into settings.json unchecked: a second command."""
    target = tmp_path / "settings.json"
    target.write_text("{}\n")
    result = runner.invoke(app, ["hook", "install", "--settings", str(target), "--command", bad])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: --command holds a control character")
    assert result.output.count("\n") == 1
    assert target.read_text() == "{}\n"
    assert not (tmp_path / "settings.json.memgraph.json").exists()


# -- the lean path (memgraph/cli/hook_fast.py) ---------------------------------


def run_fast(argv: list[str], stdin: bytes, monkeypatch: pytest.MonkeyPatch) -> int | None:
    import io

    from memgraph.cli import hook_fast

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    return hook_fast.run(argv)


def test_fast_path_output_matches_typer(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_transcript(isolated_env / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    assert run_fast(["session-end"], hook_json(path).encode(), monkeypatch) == 0
    fast = capsys.readouterr().out
    slow = runner.invoke(app, ["hook", "session-end"], input=hook_json(path))
    assert slow.exit_code == 0 and fast == slow.stdout
    assert run_fast(["session-end"], b"{", monkeypatch) == 1
    err = capsys.readouterr().err
    bad = runner.invoke(app, ["hook", "session-end"], input="{")
    assert err == bad.stderr and err.startswith("Error: hook input is not JSON")


@pytest.mark.parametrize(
    "argv",
    [[], ["install"], ["session-end", "--help"], ["session-end", "--home"], ["session-end", "-x"]],
)
def test_fast_path_declines_what_it_does_not_handle(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_fast(argv, b"", monkeypatch) is None


def test_fast_path_resolves_paths_like_settings(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgraph.cli.hook_fast import resolve_paths
    from memgraph.config import load_settings

    def same() -> None:
        settings = load_settings()
        assert resolve_paths({}) == (settings.store_path, settings.vault)

    same()  # env (conftest sets MEMGRAPH_HOME / MEMGRAPH_VAULT)
    monkeypatch.delenv("MEMGRAPH_HOME")
    monkeypatch.delenv("MEMGRAPH_VAULT")
    same()  # defaults
    config = isolated_env / "home" / ".config" / "memgraph" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'home = "{isolated_env / "cfg-home"}"\nvault = "{isolated_env / "cv"}"\n')
    same()  # TOML file
    monkeypatch.setenv("MEMGRAPH_VAULT", str(isolated_env / "env-vault"))
    same()  # env over file
    store, vault = resolve_paths({"home": "/h", "vault": "/v"})
    assert (store, vault) == (Path("/h/memgraph.db"), Path("/v"))
    assert resolve_paths({"store": "/s.db"})[0] == Path("/s.db")
    config.write_text("home = [unclosed")
    from memgraph.errors import ConfigError

    with pytest.raises(ConfigError):
        resolve_paths({})


def test_background_digest_is_used_only_while_the_file_is_unchanged(isolated_env: Path) -> None:
    import hashlib
    import os

    from memgraph.store import open_store
    from profiles.voice.backfill import registry_rows
    from profiles.voice.hooks import FileDigest, HookInput, capture_for_hook

    path = write_transcript(isolated_env / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    digest = FileDigest(path)
    value = digest.get()
    assert value == (
        path.stat().st_size,
        path.stat().st_mtime_ns,
        hashlib.sha256(path.read_bytes()).hexdigest(),
    )
    assert FileDigest(isolated_env / "missing").get() is None
    # the transcript grows after the digest was taken: the registry gets the new hash
    write_transcript(path, claude_records([*PROMPTS, "one more thing about the hook"]))
    os.utime(path, ns=(value[1] + 10**9, value[1] + 10**9))
    store = open_store(isolated_env / "x.db")
    capture_for_hook(store, HookInput(path, SID, None), isolated_env / "vault", digest)
    (row,) = registry_rows(store)
    assert row.sha256 == hashlib.sha256(path.read_bytes()).hexdigest() != value[2]
    assert row.size == path.stat().st_size


def test_install_says_which_store_the_hooks_capture_into(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hooks resolve the store when they run, in Claude Code's environment: the
    install names the store as resolved now, and says so when it rests on a variable
    of this shell (the hooks silently captured elsewhere when Claude Code lacked it)."""
    settings = isolated_env / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    home = isolated_env / "mg-home"
    out = runner.invoke(app, ["hook", "install"])
    assert out.exit_code == 0, out.output
    assert f"the hooks capture into {home / 'memgraph.db'}\n" in out.stdout
    assert out.stderr.startswith("note: that comes from MEMGRAPH_HOME in this shell")
    assert "config.toml" in out.stderr
    monkeypatch.delenv("MEMGRAPH_HOME")
    cfg = isolated_env / "home" / ".config" / "memgraph" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text(f'home = "{home}"\n')
    again = runner.invoke(app, ["hook", "install"])
    assert again.exit_code == 0 and "already installed" in again.stdout
    assert f"the hooks capture into {home / 'memgraph.db'}\n" in again.stdout
    assert again.stderr == ""  # from the config file: the hooks read it too
    monkeypatch.setenv("MEMGRAPH_STORE", "postgresql://ada:s3cret@db.example:5433/mg")
    url = runner.invoke(app, ["hook", "install"])
    assert "the hooks capture into postgresql://ada@db.example:5433/mg\n" in url.stdout
    assert "s3cret" not in url.output and "from MEMGRAPH_STORE" in url.stderr
