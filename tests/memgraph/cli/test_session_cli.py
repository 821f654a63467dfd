from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli import session_fast
from memgraph.cli.app import app

runner = CliRunner()


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def test_start_note_wake_list_show(isolated_env: Path) -> None:
    r = invoke("session", "start", "s1", "--persona", "alice", "--harness", "codex")
    assert r.exit_code == 0 and r.stdout.startswith("started s1 (alice)")
    assert invoke("session", "start", "s1", "--persona", "alice").stdout.startswith("already")
    r = invoke("note", "hello there", "--session", "s1")
    assert r.exit_code == 0 and r.stdout.startswith("noted n-")
    r = invoke("note", "late one", "--session", "s1", "--at", "2020-01-01T00:00:00Z", "--json")
    data = json.loads(r.stdout)
    assert data["timestamp"] == "2020-01-01T00:00:00.000000Z" and data["persona"] == "alice"
    assert invoke("wake", "--persona", "alice").stdout == "hello there\n"
    assert "s1 alice notes=3" in invoke("session", "list").stdout
    lines = invoke("session", "show", "s1").stdout.splitlines()
    assert lines[0].endswith("late one") and lines[-1].endswith("hello there")
    assert len(invoke("session", "show", "s1", "--json").stdout.splitlines()) == 3


def test_errors_are_one_line_with_exit_codes(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CODEX_THREAD_ID", "CLAUDE_SESSION_ID"):
        monkeypatch.delenv(var, raising=False)
    r = invoke("note", "x")
    assert r.exit_code == 2 and r.stderr.startswith("Error: no active session")
    r = invoke("note", "x", "--session", "../etc")
    assert r.exit_code == 2 and r.stderr.count("\n") == 1
    r = invoke("note", "x", "--session", "s", "--at", "last tuesday")
    assert r.exit_code == 2 and r.stderr.startswith("Error: --at: bad date 'last tuesday'")
    assert invoke("session", "show", "nope").exit_code == 1
    invoke("session", "start", "s1")
    f = isolated_env / "workspace/.memgraph/personas/default/sessions/s1.yaml"
    f.write_text("notes: [", encoding="utf-8")
    # a broken hand edit is kept verbatim beside the view, reported in one line,
    # and `show` prints the store's notes (as `wake` reads them)
    r = invoke("session", "show", "s1")
    assert r.exit_code == 0 and "Traceback" not in r.output
    assert r.stderr.count("\n") == 1 and "s1.conflict.yaml" in r.stderr
    assert (f.parent / "s1.conflict.yaml").read_text(encoding="utf-8") == "notes: ["
    assert invoke("note", "still fine", "--session", "s1").exit_code == 0


def test_at_takes_every_form_of_the_date_parser(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`note --at yesterday` was `Error: --at 'yesterday' is not an ISO-8601 time` and a
    naive `--at 2026-12-07T09:30` `Error: note time needs a timezone`, though
    `memgraph.dates` (the one parser, notes/terminal.md) names `--at` among its options."""
    from datetime import UTC, datetime, timedelta

    def stamp(dt: datetime) -> str:  # local (naive) -> the UTC text notes carry
        return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    invoke("session", "start", "s1")
    r = invoke("note", "naive", "--session", "s1", "--at", "2026-12-01T09:30", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["timestamp"] == stamp(datetime(2026, 12, 1, 9, 30))
    r = invoke("note", "two hours ago", "--session", "s1", "--at", "2h", "--json")
    at = datetime.fromisoformat(json.loads(r.stdout)["timestamp"])
    assert timedelta(hours=1, minutes=59) < datetime.now(UTC) - at < timedelta(hours=2, minutes=1)
    code, out, _ = _fast(capsys, "lean", "--session", "s1", "--at", "yesterday", "--json")
    assert code == 0
    yesterday = datetime.now().date() - timedelta(days=1)
    midnight = datetime(yesterday.year, yesterday.month, yesterday.day)
    assert json.loads(out)["timestamp"] == stamp(midnight)
    r = invoke("note", "future", "--session", "s1", "--at", "2099-01-01")
    assert r.exit_code == 2 and "future" in r.stderr


def test_a_started_session_is_the_workspace_s_active_one(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """README: `memgraph session start "$SESSION_ID"`, then `memgraph note "..."` (session:
    MEMGRAPH_SESSION, else the workspace's active one). The note was `Error: no active
    session`: only the SessionStart hook recorded a workspace's active session."""
    for var in ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CODEX_THREAD_ID", "CLAUDE_SESSION_ID"):
        monkeypatch.delenv(var, raising=False)
    inside = isolated_env / "workspace" / "src"
    inside.mkdir(parents=True)
    monkeypatch.chdir(isolated_env / "workspace")
    r = invoke("note", "x")
    assert r.exit_code == 2 and "memgraph session start ID" in r.stderr
    assert invoke("session", "start", "s1", "--persona", "builder").exit_code == 0
    monkeypatch.chdir(inside)
    r = invoke("note", "typer path", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["session_id"] == "s1"
    code, out, _ = _fast(capsys, "lean path", "--json")
    assert code == 0 and json.loads(out)["session_id"] == "s1"
    r = invoke("remember", "kept", "--json")
    assert r.exit_code == 0, r.output
    assert invoke("wake").stdout == "lean path\n"


@pytest.mark.parametrize(
    "argv", [("session", "list"), ("session", "show", "s1"), ("render",)], ids=" ".join
)
def test_reading_commands_do_not_create_a_store_at_a_mistyped_home(
    isolated_env: Path, argv: tuple[str, ...]
) -> None:
    """`session list` (and `show`, `render`) on a home with no store made a new empty
    store there and listed nothing, exit 0; wake, review and voice say `no store at`."""
    typo = isolated_env / "mg-hmoe"
    r = invoke(*argv, "--home", str(typo))
    assert r.exit_code == 1, r.output
    assert r.stderr.startswith(f"Error: no store at {typo / 'memgraph.db'}")
    assert not typo.exists()


def test_wake_default_axiom(isolated_env: Path) -> None:
    from memgraph.store import open_store
    from profiles.session.api import DEFAULT_AXIOM

    open_store(isolated_env / "mg-home" / "memgraph.db").close()  # no notes: the axiom
    assert invoke("wake").stdout == DEFAULT_AXIOM + "\n"
    assert json.loads(invoke("wake", "--json").stdout)["axiom"] is True


def test_harness_session_id_from_env(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_THREAD_ID", "019d1afb-b2c7-72d3-b240-f3ee9d31b2c9")
    r = invoke("note", "from codex", "--json")
    data = json.loads(r.stdout)
    assert data["harness"] == "codex" and data["session_id"].startswith("019d1afb")
    monkeypatch.setenv("MEMGRAPH_SESSION", "explicit")
    assert json.loads(invoke("note", "x", "--json").stdout)["session_id"] == "explicit"


def _fast(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int | None, str, str]:
    code = session_fast.run(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_fast_path_matches_typer(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # not started yet: the lean path declines, typer starts the session
    assert _fast(capsys, "first", "--session", "s1")[0] is None
    assert invoke("note", "first", "--session", "s1").exit_code == 0
    code, out, _ = _fast(capsys, "fast one", "--session", "s1", "--json")
    assert code == 0
    fast = json.loads(out)
    typer_out = json.loads(invoke("note", "typer one", "--session", "s1", "--json").stdout)
    assert fast.keys() == typer_out.keys()
    assert {k: fast[k] for k in ("session_id", "persona", "harness", "file")} == {
        k: typer_out[k] for k in ("session_id", "persona", "harness", "file")
    }
    code, out, _ = _fast(capsys, "plain", "--session=s1", "--at", "2021-01-01T00:00:00+00:00")
    # the time for people: local (TZ=UTC in tests) with its zone, not ISO `...000000Z`
    assert (
        code == 0 and out.startswith("noted n-") and out.endswith(" at 2021-01-01 00:00:00 UTC\n")
    )
    r = invoke("note", "typer", "--session", "s1", "--at", "2021-01-01T00:00:01Z")
    assert r.stdout.endswith(" in s1 at 2021-01-01 00:00:01 UTC\n")
    texts = [line.split(" ", 4)[4] for line in invoke("session", "show", "s1").stdout.splitlines()]
    assert texts[0] == "plain" and texts[-2:] == ["fast one", "typer one"]
    for argv in (["x", "--session", "../etc"], ["x", "--session", "s1", "--at", "nope"], [" "]):
        argv_s1 = argv if "--session" in argv else [*argv, "--session", "s1"]
        code, out, err = _fast(capsys, *argv_s1)
        r = invoke("note", *argv_s1)
        assert (code, out, err) == (r.exit_code, r.stdout, r.stderr)
    assert _fast(capsys, "--help")[0] is None
    assert _fast(capsys, "a", "b", "--session", "s1")[0] is None
    assert _fast(capsys, "a", "--bogus", "--session", "s1")[0] is None


def test_wake_without_persona_takes_the_most_recent_session_of_any_persona(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMGRAPH_PERSONA", raising=False)
    invoke("session", "start", "a1", "--persona", "alice")
    invoke("session", "start", "b1", "--persona", "bob")
    invoke("note", "alice earlier", "--session", "a1")
    invoke("note", "bob later", "--session", "b1")
    r = invoke("wake")
    assert r.exit_code == 0 and r.stdout == "bob later\n"
    assert r.stderr == "wake: persona bob (most recently active; session b1)\n"
    assert json.loads(invoke("wake", "--json").stdout)["persona"] == "bob"
    invoke("note", "alice latest", "--session", "a1")
    assert invoke("wake").stdout == "alice latest\n"
    # an explicit persona (flag or env) is that persona's, and says nothing extra
    r = invoke("wake", "--persona", "bob")
    assert (r.stdout, r.stderr) == ("bob later\n", "")
    monkeypatch.setenv("MEMGRAPH_PERSONA", "bob")
    assert invoke("wake").stdout == "bob later\n"


def test_wake_for_a_persona_without_sessions_says_so(isolated_env: Path) -> None:
    from profiles.session.api import DEFAULT_AXIOM

    invoke("session", "start", "a1", "--persona", "alice")
    r = invoke("wake", "--persona", "carol")
    assert r.exit_code == 0 and r.stdout == DEFAULT_AXIOM + "\n"
    assert r.stderr == "wake: persona carol has no sessions yet (personas with sessions: alice)\n"


def test_mcp_wake_without_persona_follows_the_cli_rule(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MCP `wake` with no persona argument or configured persona uses the most recently
    active session of any persona, as `memgraph wake` does."""
    from memgraph.config import load_settings
    from memgraph.mcp_server import MemgraphTools

    monkeypatch.delenv("MEMGRAPH_PERSONA", raising=False)
    invoke("session", "start", "a1", "--persona", "alice")
    invoke("session", "start", "b1", "--persona", "bob")
    invoke("note", "alice earlier", "--session", "a1")
    invoke("note", "bob later", "--session", "b1")
    tools = MemgraphTools(load_settings())
    assert tools.wake()["persona"] == "bob"
    assert tools.wake("alice")["persona"] == "alice"
    monkeypatch.setenv("MEMGRAPH_PERSONA", "alice")
    assert tools.wake()["persona"] == "alice"


@pytest.mark.parametrize("command", [["session", "start", "w1"], ["note", "hi", "--session", "w1"]])
def test_a_workspace_that_is_not_a_folder_is_refused_before_anything_is_stored(
    isolated_env: Path, command: list[str]
) -> None:
    """It used to be stored with the session (start: an Error exit, but the session
    was kept; note: a warning), and every later view of it failed."""
    not_a_folder = isolated_env / "a-file"
    not_a_folder.write_text("x", encoding="utf-8")
    for where in (not_a_folder, not_a_folder / "below"):
        r = invoke(*command, "--workspace", str(where))
        assert r.exit_code == 2
        assert r.stderr.splitlines() == [
            f"Error: workspace {where} is not a folder (it is where .memgraph/ goes: "
            "--workspace or MEMGRAPH_WORKSPACE)"
        ]
    assert "w1" not in invoke("session", "list").stdout
    fresh = isolated_env / "not-yet" / "made"
    assert invoke(*command, "--workspace", str(fresh)).exit_code == 0
    assert (fresh / ".memgraph").is_dir()
