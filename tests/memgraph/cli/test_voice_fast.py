"""The lean `memgraph voice` path: same bytes as typer, defers what it cannot do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
from _search_helpers import Msg, add, ts

from memgraph.cli import voice_fast
from memgraph.cli.app import app
from memgraph.config import load_settings
from memgraph.store import open_store

runner = CliRunner()


def store_path() -> Path:
    return Path(os.environ["MEMGRAPH_HOME"]) / "memgraph.db"


@pytest.fixture
def populated() -> Path:
    store = open_store(store_path())
    add(
        store,
        Msg(
            "we keep the fact table in postgres",
            ts("2026-04-14", "14:32"),
            session_id="80166115-a",
            classification="decision",
            confidence=0.9,
            voice_page="atlas/voice/2026-04-14-80166115.md",
        ),
        Msg(
            "line one\nline two fact",
            ts("2026-04-15", "09:05"),
            session_id="bbbb2222-x",
            constellation="zeta",
            project="zeta-api",
        ),
        Msg("事实" * 100 + " fact", ts("2026-04-16", "10:00"), session_id="cccc3333-y"),
        Msg(
            "run the fact tests",
            ts("2026-04-17"),
            session_id="dddd4444-z",
            classification="command",
            confidence=0.6,
        ),
        Msg("esc \x1b[2J fact \t tab", ts("2026-04-18"), session_id="eeee5555-w"),
    )
    store.close()
    return store_path()


def both(args: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The fast path handles ``args`` and prints exactly what typer prints."""
    code = voice_fast.run(args)
    fast = capsysbinary.readouterr()
    assert code is not None, f"fast path deferred {args}"
    result = runner.invoke(app, ["voice", *args])
    assert (code, fast.out, fast.err) == (
        result.exit_code,
        result.stdout_bytes,
        result.stderr_bytes,
    ), args


CASES = [
    ["fact"],
    ["fact", "--limit", "2"],
    ["fact", "--limit=3"],
    ["fact", "--full"],
    ["fact", "--json"],
    ["fact", "--json", "--full", "--limit", "50"],
    ['"fact table"'],
    ["fac*"],
    ["FACT", "postgres"],
    ["fact", "--since", "2026-04-15", "--until", "2026-04-16T23:00:00+02:00"],
    ["fact", "--project", "ZETA"],
    ["fact", "--type", "decision"],
    ["fact", "--type", "unclassified", "--json"],
    ["fact", "--session", "bbbb"],
    ["fact", "--as-of", "2026-04-15"],
    ["--recent"],
    ["--recent", "fact", "--json"],
    ["--session", "cccc3333-y", "--full"],
    ["search", "fact"],
    ["--stats"],
    ["fact", "--stats"],
    ["nomatch"],
    ['"unbalanced'],
    ["OR", "NOT", "("],
    ["!!!"],
    # issue 19: substring meaning, --word, CJK, no-hit lines, unknown filter values
    ["fac"],
    ["act", "--limit", "3"],
    ["fact", "--word"],
    ["fac", "--word"],
    ["事实"],
    ["实事", "--json"],
    ["po"],
    ["postgres", "--since", "2026-04-16"],
    ["postgres", "--project", "zeta", "--since", "2026-04-16"],
    ["nomatch", "--project", "zeta"],
    ["fact", "--project", "nosuch"],
    ["fact", "--type", "nonsense"],
    ["--session", "ffff", "--recent"],
    # errors: same one line on stderr, same exit code
    [],
    ["fact", "--since", "yesterday"],
    ["fact", "--limit", "0"],
    ["fact", "--session", "../x"],
    ["fact", "--since", "2026-04-16", "--until", "2026-04-15"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) or "<empty>" for c in CASES])
def test_same_bytes_as_typer(
    populated: Path, args: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    if not args:
        assert voice_fast.run(args) is None  # typer owns the bare group call
        return
    both(args, capsysbinary)


def test_missing_store_same_error(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    both(["fact"], capsysbinary)
    assert not store_path().exists()


def test_home_flag_same_bytes(tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    home = tmp_path / "other home"
    store = open_store(home / "memgraph.db")
    add(store, Msg("other words?#", ts("2026-01-01")))
    store.close()
    both(["other", "--home", str(home)], capsysbinary)
    assert (
        b"other words?#" in runner.invoke(app, ["voice", "other", "--home", str(home)]).stdout_bytes
    )


@pytest.mark.parametrize(
    "args",
    [
        ["extract", "x.jsonl"],
        ["classify", "--stdin"],
        ["fact", "--backfill"],  # (a plain rerun: tests/memgraph/cli/test_backfill_fast.py)
        ["--help"],
        ["fact", "-h"],
        ["fact", "--window", "aw-2026-04-14-1432"],
        ["fact", "--window=aw-2026-04-14-1432"],
        ["fact", "--bogus"],
        ["fact", "--lim", "3"],  # argparse would expand this; click does not
        ["fact", "--limit", "abc"],
        ["fact", "--limit", "-1"],
        ["fact", "--full=yes"],
        ["fact", "--debug"],
        ["--", "--since"],
    ],
)
def test_defers_what_it_does_not_handle(populated: Path, args: list[str]) -> None:
    assert voice_fast.run(args) is None


def test_stats_on_a_tty_is_typers(populated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert voice_fast.run(["--stats"]) is None


def test_old_store_without_index_is_deferred(populated: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(store_path())
    conn.executescript(
        "DROP TRIGGER IF EXISTS voice_index_ai; DROP TRIGGER voice_index_au;"
        "DROP TRIGGER voice_index_ad; DROP TABLE voice_index;"
        "DELETE FROM schema_migrations WHERE version IN (5, 6);"
    )
    conn.close()
    assert voice_fast.run(["fact"]) is None
    result = runner.invoke(app, ["voice", '"fact table"'])  # typer migrates, then answers
    assert result.exit_code == 0 and "fact table" in result.stdout
    assert voice_fast.run(['"fact table"']) == 0


def test_garbage_store_is_deferred_to_typer(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    store_path().parent.mkdir(parents=True)
    store_path().write_bytes(b"\x00garbage" * 64)
    assert voice_fast.run(["fact"]) is None


def test_subcommand_list_covers_the_voice_group() -> None:
    from memgraph.cli.voice import voice_app

    names = {c.name for c in voice_app.registered_commands}
    # `search` is this path; `backfill` is reached via --backfill (a bare word is a query)
    assert names - {"search", "backfill", None} <= voice_fast.VOICE_SUBCOMMANDS


# -- store location --------------------------------------------------------------


def test_store_path_matches_settings_env(tmp_path: Path) -> None:
    assert voice_fast.resolve_store_path(None) == load_settings().store_path
    assert (
        voice_fast.resolve_store_path(str(tmp_path / "h"))
        == load_settings(home=tmp_path / "h").store_path
    )


def test_store_path_matches_settings_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMGRAPH_HOME")
    assert voice_fast.resolve_store_path(None) == load_settings().store_path
    monkeypatch.delenv("XDG_DATA_HOME")
    assert voice_fast.resolve_store_path(None) == load_settings().store_path


def test_store_path_matches_settings_lowercase_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("MEMGRAPH_HOME")
    monkeypatch.setenv("memgraph_home", str(tmp_path / "lower"))
    assert voice_fast.resolve_store_path(None) == load_settings().store_path


@pytest.mark.parametrize("via_env", [False, True])
def test_store_path_matches_settings_config_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, via_env: bool
) -> None:
    monkeypatch.delenv("MEMGRAPH_HOME")
    if via_env:
        config = tmp_path / "custom.toml"
        monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    else:
        config = Path(os.environ["XDG_CONFIG_HOME"]) / "memgraph" / "config.toml"
        config.parent.mkdir(parents=True)
    config.write_text(f'home = "{tmp_path / "from-toml"}"\n', encoding="utf-8")
    assert voice_fast.resolve_store_path(None) == load_settings().store_path
    assert voice_fast.resolve_store_path(None) == tmp_path / "from-toml" / "memgraph.db"
    monkeypatch.setenv("MEMGRAPH_HOME", str(tmp_path / "env"))  # env beats the file
    assert voice_fast.resolve_store_path(None) == load_settings().store_path


def test_unreadable_config_defers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MEMGRAPH_HOME")
    config = tmp_path / "bad.toml"
    config.write_text("home = [unclosed", encoding="utf-8")
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    assert voice_fast.resolve_store_path(None) is None
    assert voice_fast.run(["fact"]) is None


# -- the real process ------------------------------------------------------------


def test_process_stays_lean_and_matches(populated: Path) -> None:
    """Whole process through memgraph.cli.main: none of the heavy modules imported."""
    code = (
        "import sys\n"
        "from memgraph.cli import main\n"
        "sys.argv = ['memgraph', 'voice', 'fact', '--limit', '3']\n"
        "try:\n"
        "    main(exit=sys.exit)\n"
        "except SystemExit as exc:\n"
        "    heavy = sorted(m for m in ('pydantic', 'typer', 'rich', 'memgraph.documents',"
        " 'argparse', 'dataclasses', 'profiles.voice.policy') if m in sys.modules)\n"
        "    sys.stderr.write(repr(heavy))\n"
        "    raise\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=os.environ.copy(), timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b"[]"
    expected = runner.invoke(app, ["voice", "fact", "--limit", "3"]).stdout_bytes
    assert proc.stdout == expected


def test_closed_pipe_is_quiet(populated: Path) -> None:
    code = "from memgraph.cli import main; import sys; sys.argv=['memgraph','voice','fact']; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head -0`
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert b"Traceback" not in err


def test_a_session_prefix_shared_by_two_sessions_says_so(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """Listings show session ids cut to 8 characters; two sessions can share them,
    and `--session PREFIX` then mixes both: one stderr line says so, on both paths."""
    store = open_store(store_path())
    add(
        store,
        Msg("first thought on the cache", ts("2026-04-14"), session_id="abcd1234-one"),
        Msg("second thought on the cache", ts("2026-04-15"), session_id="abcd1234-two"),
        Msg("elsewhere on the cache", ts("2026-04-16"), session_id="ffff0000-three"),
    )
    store.close()
    for args in (["--session", "abcd1234"], ["cache", "--session", "abcd"]):
        both(args, capsysbinary)
        err = runner.invoke(app, ["voice", *args]).stderr
        assert err == (
            "note: --session "
            + args[-1]
            + " matches 2 sessions in these hits (abcd1234-one, abcd1234-two); "
            "give more of the id to see one\n"
        )
    both(["--session", "abcd1234-one"], capsysbinary)
    assert runner.invoke(app, ["voice", "--session", "abcd1234-one"]).stderr == ""


def test_a_swapped_date_range_is_an_error_not_no_hits(populated: Path) -> None:
    out = runner.invoke(app, ["voice", "fact", "--since", "2026-04-16", "--until", "2026-04-15"])
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr == (
        "Error: --since 2026-04-16 00:00 UTC is after --until 2026-04-15 23:59 UTC: "
        "nothing can match (swap them?)\n"
    )
