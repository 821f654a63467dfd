"""Terminal manners (issue 20): colour only on a terminal, --quiet, progress bars,
one backfill summary, Ctrl-C, hook/mcp on a terminal, plurals, local time and --utc,
one relative-date parser, voice --stats --json, bare slash commands (--all).

The TTY tests run the real console script inside a pseudo-terminal (``pty.fork``:
the child's stdin/stdout/stderr are the terminal, and Ctrl-C typed on it is a real
SIGINT from the terminal driver)."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
from _search_helpers import Msg, add, ts

from memgraph.cli.app import app
from memgraph.dates import parse_when, show
from memgraph.errors import UsageError
from memgraph.store import open_store
from memgraph.terminal import INTERRUPTED, color, plural

runner = CliRunner()
MEMGRAPH = shutil.which("memgraph", path=str(Path(sys.executable).parent)) or "memgraph"
NOW = datetime(2026, 12, 3, 15, 30, tzinfo=UTC)


def store_path() -> Path:
    return Path(os.environ["MEMGRAPH_HOME"]) / "memgraph.db"


@pytest.fixture
def populated() -> Path:
    store = open_store(store_path())
    add(
        store,
        Msg("we keep the fact table in postgres", ts("2026-04-14", "14:32"), uuid="a"),
        Msg("/model", ts("2026-04-14", "14:40"), uuid="b"),
        Msg("/exit", ts("2026-04-14", "14:41"), uuid="c"),
        Msg("/model opus", ts("2026-04-14", "14:42"), uuid="d"),
        Msg("switch the model before the fact check", ts("2026-04-15", "09:00"), uuid="e"),
    )
    store.close()
    return store_path()


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real console script (fast paths included), stdout/stderr pipes."""
    return subprocess.run(
        [MEMGRAPH, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


def in_pty(
    argv: list[str],
    env: dict[str, str] | None = None,
    send: bytes | None = None,
    after: bytes | None = None,
    timeout: float = 60.0,
    delay: float = 0.0,
) -> tuple[int, str]:
    """Run ``argv`` on a pseudo-terminal; type ``send`` once ``after`` was printed.
    Returns (exit code, everything the terminal showed)."""
    environ = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", **(env or {})}
    pid, fd = pty.fork()
    if pid == 0:  # the child: stdin, stdout and stderr are the terminal
        os.execve(argv[0], argv, environ)
    out = b""
    sent = False
    started = time.monotonic()
    deadline = started + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
            waited = time.monotonic() - started >= delay
            if send is not None and not sent and waited and (after is None or after in out):
                os.write(fd, send)
                sent = True
        else:
            os.kill(pid, 9)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


# -- plurals, colour, dates (the shared helpers) ------------------------------------


def test_plural_forms() -> None:
    assert plural(1, "session") == "1 session"
    assert plural(0, "session") == "0 sessions"
    assert plural(2, "session") == "2 sessions"
    assert plural(2, "entry") == "2 entries"
    assert plural(1, "entry") == "1 entry"
    assert plural(3, "index", "indexes") == "3 indexes"


def test_colour_only_on_a_terminal_and_never_with_no_color(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    class Pipe:
        def isatty(self) -> bool:
            return False

    assert color(Tty()) is True  # type: ignore[arg-type]
    assert color(Pipe()) is False  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "")
    assert color(Tty()) is False  # type: ignore[arg-type]
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert color(Tty()) is False  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("7d", NOW - timedelta(days=7)),
        ("2w", NOW - timedelta(weeks=2)),
        ("12h", NOW - timedelta(hours=12)),
        ("30m", NOW - timedelta(minutes=30)),
        ("3 days ago", NOW - timedelta(days=3)),
        ("1y", NOW - timedelta(days=365)),
        ("now", NOW),
        ("today", datetime(2026, 12, 3, tzinfo=UTC)),
        ("yesterday", datetime(2026, 12, 2, tzinfo=UTC)),
        ("2026-04-14", datetime(2026, 4, 14, tzinfo=UTC)),
        ("2026-04-14T14:32", datetime(2026, 4, 14, 14, 32, tzinfo=UTC)),
        ("2026-04-14T14:32:00+02:00", datetime(2026, 4, 14, 12, 32, tzinfo=UTC)),
        ("2026-04-14T14:32:00Z", datetime(2026, 4, 14, 14, 32, tzinfo=UTC)),
    ],
)
def test_one_date_parser_forms(text: str, want: datetime) -> None:
    assert parse_when(text, now=NOW, utc=True) == want


def test_end_of_day_and_local_days(monkeypatch: pytest.MonkeyPatch) -> None:
    end = parse_when("yesterday", end_of_day=True, now=NOW, utc=True)
    assert end == datetime(2026, 12, 3, tzinfo=UTC) - timedelta(microseconds=1)
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        # a local calendar day: Berlin midnight is 23:00 UTC the day before (CET)
        assert parse_when("2026-12-01", now=NOW) == datetime(2026, 11, 30, 23, tzinfo=UTC)
        assert parse_when("2026-12-01", now=NOW, utc=True) == datetime(2026, 12, 1, tzinfo=UTC)
        assert show(datetime(2026, 7, 1, 12, tzinfo=UTC)) == "2026-07-01 14:00 CEST"
        assert show(datetime(2026, 7, 1, 12, tzinfo=UTC), utc=True) == "2026-07-01 12:00 UTC"
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()


@pytest.mark.parametrize("bad", ["last tuesday", "7x", "", "2026-13-01", "d7", "-3d", "\x00"])
def test_bad_dates_name_the_flag_and_the_forms(bad: str) -> None:
    with pytest.raises(UsageError, match=r"^--since: bad date .*yesterday.*7d"):
        parse_when(bad, flag="--since", now=NOW)


@given(st.integers(min_value=0, max_value=3000), st.sampled_from(["d", "w", "h", " days ago"]))
def test_spans_go_back_exactly(n: int, unit: str) -> None:
    seconds = {"d": 86400, "w": 7 * 86400, "h": 3600, " days ago": 86400}[unit]
    assert parse_when(f"{n}{unit}", now=NOW) == NOW - timedelta(seconds=n * seconds)


def test_every_date_option_uses_the_one_parser() -> None:
    """No command keeps a date parser of its own (issue 20: one parser)."""
    root = Path(__file__).resolve().parents[3]
    offenders = []
    for folder in ("memgraph/cli", "memgraph/mcp_server.py"):
        for path in (
            sorted((root / folder).rglob("*.py")) if folder.endswith("cli") else [root / folder]
        ):
            text = path.read_text()
            if "def parse_when" in text or "def parse_day" in text:
                offenders.append(path.name)
    assert offenders == []


# -- voice search: relative dates, --utc, --all, --stats --json (both paths) ----------


def test_relative_since_on_both_paths(populated: Path) -> None:
    fast = cli("voice", "fact", "--since", "10000d")
    assert fast.returncode == 0, fast.stderr
    assert fast.stdout.count("\n") == 2
    typer_path = runner.invoke(app, ["voice", "fact", "--since", "10000d"])
    assert typer_path.stdout == fast.stdout
    none = cli("voice", "fact", "--since", "today")
    assert none.returncode == 0 and none.stdout == ""
    bad = cli("voice", "fact", "--since", "someday")
    assert bad.returncode == 2
    assert bad.stderr.startswith("Error: --since: bad date 'someday'; use YYYY-MM-DD")


def test_local_time_with_zone_and_utc_switch(populated: Path) -> None:
    berlin = cli("voice", '"fact table"', env={"TZ": "Europe/Berlin"})
    assert berlin.stdout.startswith("[2026-04-14 16:32 CEST atlas ")
    utc = cli("voice", '"fact table"', "--utc", env={"TZ": "Europe/Berlin"})
    assert utc.stdout.startswith("[2026-04-14 14:32 UTC atlas ")
    typer_utc = runner.invoke(app, ["voice", '"fact table"', "--utc"])
    assert typer_utc.stdout == utc.stdout
    # a local calendar day for --since/--until: in Berlin 2026-04-14 ends at 22:00 UTC
    day = cli("voice", "fact", "--until", "2026-04-14", env={"TZ": "Pacific/Kiritimati"})
    assert day.stdout == ""  # 14:32 UTC is already 04-15 in UTC+14
    stats = cli("voice", "--stats", env={"TZ": "Europe/Berlin"})
    assert "range: 2026-04-14 16:32 CEST .. 2026-04-15 11:00 CEST\n" in stats.stdout


def test_bare_slash_commands_left_out_unless_all(populated: Path) -> None:
    plain = cli("voice", "model")
    assert plain.returncode == 0
    assert '"/model opus"' in plain.stdout and '"switch the model' in plain.stdout
    assert '"/model"' not in plain.stdout
    every = cli("voice", "model", "--all")
    assert '"/model"' in every.stdout and every.stdout.count("\n") == 3
    assert runner.invoke(app, ["voice", "model", "--all"]).stdout == every.stdout
    assert runner.invoke(app, ["voice", "model"]).stdout == plain.stdout
    listing = cli("voice", "--since", "2026-01-01")
    assert '"/exit"' not in listing.stdout and '"/model opus"' in listing.stdout
    assert '"/exit"' in cli("voice", "--since", "2026-01-01", "--all").stdout
    only = cli("voice", "exit")
    assert only.returncode == 0 and only.stdout == ""
    assert "bare slash command (--all shows them)" in only.stderr


def test_bare_commands_stay_in_the_store_and_stats(populated: Path) -> None:
    out = json.loads(cli("voice", "--stats", "--json").stdout)
    assert out["messages"] == 5  # kept in the store: only search leaves them out


def test_stats_json_is_json_on_both_paths_and_like_mcp(populated: Path) -> None:
    fast = cli("voice", "--stats", "--json")
    assert fast.returncode == 0
    data = json.loads(fast.stdout)
    assert data["messages"] == 5 and data["by_project"] == {"atlas": 5}
    typer_path = runner.invoke(app, ["voice", "--stats", "--json"])
    assert json.loads(typer_path.stdout) == data
    pytest.importorskip("mcp")
    from memgraph.config import load_settings
    from memgraph.mcp_server import MemgraphTools

    assert MemgraphTools(load_settings()).voice_stats() == data


def test_mcp_parameters_are_the_cli_option_names() -> None:
    import inspect

    import typer.main

    from memgraph.mcp_server import MemgraphTools

    group = typer.main.get_command(app)

    def names(*path: str) -> set[str]:
        cmd = group
        for part in path:
            cmd = cmd.commands[part]  # type: ignore[attr-defined]
        return {p.name or "" for p in cmd.params} | {
            o.lstrip("-").replace("-", "_") for p in cmd.params for o in p.opts
        }

    cli_names = {
        "voice_search": names("voice", "search"),
        "note": names("note"),
        "context": names("context"),
        "remember": names("remember"),
        "propose": names("propose"),
    }
    for tool, options in cli_names.items():
        params = set(inspect.signature(getattr(MemgraphTools, tool)).parameters) - {
            "self",
            "fields",
        }
        assert params <= options, (tool, params - options)


def test_mcp_voice_search_takes_the_cli_filters(populated: Path) -> None:
    pytest.importorskip("mcp")
    from memgraph.config import load_settings
    from memgraph.mcp_server import MemgraphTools

    tools = MemgraphTools(load_settings())
    texts = [h["text"] for h in tools.voice_search("model", since="10000d")]
    assert "/model" not in texts and "/model opus" in texts
    assert "/model" in [h["text"] for h in tools.voice_search("model", all=True)]
    assert tools.voice_search("model", until="2026-04-14", session="80166115") != []
    with pytest.raises(UsageError):
        tools.voice_search("model", since="someday")


def test_quiet_on_reindex_import_and_repo_scan(populated: Path, tmp_path: Path) -> None:
    assert runner.invoke(app, ["reindex"]).stdout == "reindexed 5 voice messages (5 nodes)\n"
    quiet = runner.invoke(app, ["reindex", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stdout == ""
    vault = tmp_path / "empty-vault"
    vault.mkdir()
    imported = runner.invoke(app, ["import-vault", str(vault), "-q"])
    assert imported.exit_code == 0 and imported.stdout == ""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("def f():\n    return 1\n")
    typer_scan = runner.invoke(app, ["repo", "scan", str(repo), "--quiet", "--no-commits"])
    assert typer_scan.exit_code == 0 and typer_scan.stdout == ""
    fast_scan = cli("repo", "scan", str(repo), "--quiet", "--no-commits")
    assert fast_scan.returncode == 0 and fast_scan.stdout == ""
    assert cli("repo", "scan", str(repo), "--no-commits").stdout.strip() != ""


# -- colour and highlighting only on a terminal (pty) ---------------------------------


def test_highlight_on_a_terminal_never_in_pipes_json_or_no_color(populated: Path) -> None:
    code, shown = in_pty([MEMGRAPH, "voice", "postgres"])
    assert code == 0 and "\x1b[1;33mpostgres\x1b[0m" in shown
    code, shown = in_pty([MEMGRAPH, "voice", "postgres"], env={"NO_COLOR": "1"})
    assert code == 0 and "postgres" in shown and "\x1b[" not in shown
    code, shown = in_pty([MEMGRAPH, "voice", "postgres", "--json"])
    assert code == 0 and "\x1b[" not in shown and json.loads(shown)["text"].endswith("postgres")
    piped = cli("voice", "postgres")
    assert "postgres" in piped.stdout and "\x1b[" not in piped.stdout
    # --stats --json on a terminal is JSON too (not the table)
    code, shown = in_pty([MEMGRAPH, "voice", "--stats", "--json"])
    assert code == 0 and json.loads(shown)["messages"] == 5


# -- progress bars (pty) and --quiet ----------------------------------------------------


def _classify_store(n: int = 40) -> None:
    store = open_store(store_path())
    add(
        store,
        *[Msg(f"we decided to use approach {i} for the cache", ts("2026-04-14"), uuid=f"m{i}")
          for i in range(n)],
    )  # fmt: skip
    store.close()


def test_classify_progress_bar_on_a_terminal_only() -> None:
    _classify_store()
    code, shown = in_pty([MEMGRAPH, "classify", "--now"])
    assert code == 0, shown
    assert "classify" in shown and "━" in shown  # the bar, drawn on the terminal's stderr
    assert "classified 40 of 40 messages" in shown
    _classify_store()
    piped = cli("classify", "--now", "--force")
    assert piped.returncode == 0 and piped.stderr == "" and "━" not in piped.stdout


def test_sleep_progress_bar_on_a_terminal_and_quiet() -> None:
    _classify_store(5)
    code, shown = in_pty([MEMGRAPH, "sleep", "--now", "--dry-run"])
    assert code == 0, shown
    assert "sleep" in shown and "━" in shown
    code, shown = in_pty([MEMGRAPH, "sleep", "--now", "--dry-run", "--quiet"])
    assert code == 0 and shown.strip() == ""


def test_classify_quiet_prints_nothing() -> None:
    _classify_store(3)
    quiet = cli("classify", "--now", "--quiet")
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""
    again = cli("classify", "--now", "--force")
    assert again.stdout == "3 messages checked (rules); nothing changed\n"


# -- backfill: one summary, reasons, -v, --quiet ---------------------------------------


def _transcripts(root: Path) -> None:
    from _capture_helpers import PROMPTS, claude_records, write_transcript

    write_transcript(root / "a" / "aaaa1111-0000-0000-0000-000000000001.jsonl", claude_records(
        PROMPTS, sid="aaaa1111-0000-0000-0000-000000000001"))  # fmt: skip
    write_transcript(root / "b" / "bbbb2222-0000-0000-0000-000000000002.jsonl", claude_records(
        PROMPTS[:1], sid="bbbb2222-0000-0000-0000-000000000002"))  # fmt: skip


def test_backfill_one_summary_with_reasons(isolated_env: Path) -> None:
    _transcripts(isolated_env / "transcripts")
    first = runner.invoke(app, ["voice", "--backfill"])
    assert first.exit_code == 0, first.output
    assert first.stdout.splitlines()[-1].startswith(
        "backfill: 2 transcripts: 1 paged, 1 skipped (1 too few messages), 0 errors; "
    )
    assert len(first.stdout.splitlines()) <= 2  # (a ledger line when something was dropped)
    again = runner.invoke(app, ["voice", "--backfill", "-v"])
    lines = again.stdout.splitlines()
    assert lines[-1].startswith("backfill: 2 transcripts: 0 paged, 2 skipped (2 unchanged), ")
    assert sum(line.startswith("skipped  ") and "(unchanged)" in line for line in lines) == 2
    quiet = runner.invoke(app, ["voice", "--backfill", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_backfill_progress_on_a_terminal(isolated_env: Path) -> None:
    _transcripts(isolated_env / "transcripts")
    code, shown = in_pty([MEMGRAPH, "voice", "--backfill"])
    assert code == 0, shown
    assert "backfill: 2 transcripts: 1 paged" in shown


# -- Ctrl-C ----------------------------------------------------------------------------


def test_ctrl_c_in_a_typer_command_is_130_and_one_line(
    monkeypatch: pytest.MonkeyPatch, isolated_env: Path
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("profiles.voice.backfill.run_backfill", interrupted)
    result = runner.invoke(app, ["voice", "--backfill"])
    assert result.exit_code == 130
    assert result.stderr.strip() == INTERRUPTED
    assert "Traceback" not in result.output and "Aborted" not in result.output


def test_ctrl_c_in_a_fast_path_is_130(monkeypatch: pytest.MonkeyPatch) -> None:
    from memgraph import cli as entry
    from memgraph.cli import voice_fast

    def interrupted(argv: list[str]) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(voice_fast, "run", interrupted)
    monkeypatch.setattr(sys, "argv", ["memgraph", "voice", "x"])
    with pytest.raises(SystemExit) as exit_:
        entry.main(exit=sys.exit)
    assert exit_.value.code == 130


@pytest.mark.parametrize(
    ("argv", "expects"),
    [
        (["hook", "session-end"], "reads a Claude Code SessionEnd hook JSON on stdin"),
        (["hook", "session-start"], "reads a Claude Code SessionStart hook JSON on stdin"),
        (["mcp"], "speaks the Model Context Protocol"),
    ],
)
def test_pipe_readers_on_a_terminal_say_what_they_expect_and_quit_on_ctrl_c(
    argv: list[str], expects: str
) -> None:
    if argv == ["mcp"]:
        pytest.importorskip("mcp")
    code, shown = in_pty([MEMGRAPH, *argv], send=b"\x03", after=b"Ctrl-C to quit")
    assert expects in shown
    assert code == 130, shown
    assert INTERRUPTED in shown and "Traceback" not in shown


def test_a_pasted_hook_json_ends_with_ctrl_d_on_a_terminal(isolated_env: Path) -> None:
    """The terminal read (memgraph.terminal.read_stdin) still takes what was typed."""
    typed = b'{"session_id": "abc", "cwd": "/tmp"}\n\x04'
    code, shown = in_pty([MEMGRAPH, "hook", "session-start"], send=typed, after=b"Ctrl-C to quit")
    assert code == 0, shown
    assert '"hookEventName": "SessionStart"' in shown and "session abc" in shown
    code, shown = in_pty(
        [MEMGRAPH, "hook", "session-end"], send=b'{"session_id": "abc"}\n\x04', after=b"quit"
    )
    assert code == 1 and "Error: hook input has no transcript_path" in shown, shown


def test_ctrl_c_during_a_long_command_on_a_terminal(isolated_env: Path) -> None:
    """Ctrl-C typed while a command waits (here: ``voice classify`` reading lines)."""
    code, shown = in_pty(
        [MEMGRAPH, "voice", "classify", "--stdin"], send=b"\x03", delay=3.0, timeout=30
    )
    assert code == 130, shown
    assert INTERRUPTED in shown and "Traceback" not in shown


def test_hook_reading_a_pipe_says_nothing_extra(isolated_env: Path) -> None:
    done = subprocess.run(
        [MEMGRAPH, "hook", "session-end"], input="{}", capture_output=True, text=True, timeout=60
    )
    assert "reads a Claude Code" not in done.stderr
