"""`memgraph voice ...` search, `reindex`, `import-vault` through typer's CliRunner."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
from _search_helpers import Msg, add, ts

from memgraph.cli.app import app
from memgraph.store import open_store

runner = CliRunner()
SID = "80166115-aaaa-bbbb-cccc-000000000001"


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
            session_id=SID,
            classification="decision",
            confidence=0.9,
            voice_page="atlas/voice/p.md",
        ),
        Msg(
            "line one\nline two fact",
            ts("2026-04-15", "09:05"),
            session_id="bbbb2222-x",
            constellation="zeta",
            project="zeta",
        ),
        Msg("事实" * 100 + " fact", ts("2026-04-16", "10:00"), session_id="cccc3333-y"),
        Msg("bell \x07 and \x1b[31mred\x1b[0m fact", ts("2026-04-17"), session_id="dddd4444-z"),
    )
    store.close()
    return store_path()


def voice(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["voice", *args])
    return result.exit_code, result.stdout, result.stderr


def test_default_line_format(populated: Path) -> None:
    code, out, err = voice('"fact table"')
    assert (code, err) == (0, "")
    assert out == f'[2026-04-14 14:32 UTC atlas {SID[:8]}] "we keep the fact table in postgres"\n'


def test_one_line_per_hit_cut_at_120_chars(populated: Path) -> None:
    code, out, _ = voice("fact", "--limit", "10")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 4
    cjk = next(line for line in lines if "cccc3333" in line)
    body = cjk.split('] "', 1)[1]
    # the window around the match: 120 characters (not bytes) ending with " fact"
    assert body == "..." + ("事实" * 100 + " fact")[-120:] + '"'
    _, cjk_out, _ = voice("事实事实", "--limit", "10")
    body = cjk_out.split('] "', 1)[1]
    assert body == "事实" * 60 + '..."\n'  # a match in the first 120 characters: the start
    assert '"line one line two fact"' in out
    assert "\x1b" not in out and "\x07" not in out and "\ufffd[31mred" in out


def test_full_prints_whole_text(populated: Path) -> None:
    code, out, _ = voice("two", "--full")
    assert code == 0
    assert out == '[2026-04-15 09:05 UTC zeta bbbb2222] "line one\nline two fact"\n'
    code, out, _ = voice("事实*", "--full")
    assert "事实" * 100 + " fact" in out


def test_json_lines_are_exact(populated: Path) -> None:
    code, out, _ = voice("fact", "--json", "--limit", "10")
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 4
    by_sid = {r["session_id"]: r for r in records}
    top = by_sid[SID]
    assert top == {
        "timestamp": "2026-04-14T14:32:00Z",
        "constellation": "atlas",
        "session_id": SID,
        "project": "atlas",
        "text": "we keep the fact table in postgres",
        "classification": "decision",
        "confidence": 0.9,
        "voice_page": "atlas/voice/p.md",
        "node_id": top["node_id"],
    }
    assert by_sid["bbbb2222-x"]["text"] == "line one\nline two fact"
    assert "\x1b[31mred" in by_sid["dddd4444-z"]["text"]


def test_filters(populated: Path) -> None:
    assert voice("fact", "--project", "zeta")[1].count("\n") == 1
    assert voice("fact", "--type", "decision")[1].count("\n") == 1
    assert voice("fact", "--session", "cccc")[1].count("\n") == 1
    assert voice("fact", "--since", "2026-04-16")[1].count("\n") == 2
    assert voice("fact", "--until", "2026-04-15")[1].count("\n") == 2
    assert (
        voice("fact", "--since", "2026-04-15T09:05:00Z", "--until", "2026-04-15")[1].count("\n")
        == 1
    )
    assert voice("fact", "--as-of", "2026-04-14")[1].count("\n") == 1
    assert voice("search", "fact", "--limit", "1")[1].count("\n") == 1
    assert voice("--recent")[1].count("\n") == 4


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["fact", "--since", "last tuesday"], 2, "--since: bad date 'last tuesday'"),
        (["fact", "--until", "2026-13-01"], 2, "--until: bad date"),
        (["fact", "--as-of", "\x00"], 2, "--as-of: bad date"),
        (["fact", "--limit", "0"], 2, "--limit must be at least 1"),
        (["fact", "--session", "../../etc/passwd"], 2, "--session"),
        ([], 2, "nothing to search"),
        (["fact", "--window", "aw-2026-04-14-1432"], 1, "aw-2026-04-14-1432"),
        (["fact", "--window", "not-a-window"], 2, "not-a-window"),
    ],
)
def test_bad_input_is_one_line_error(
    populated: Path, args: list[str], code: int, message: str
) -> None:
    if "--window" in args:
        pytest.importorskip("profiles.activity.query")
    got, out, err = voice(*args)
    assert got == code
    assert out == ""
    assert err.startswith("Error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_store_is_reported_not_created() -> None:
    code, out, err = voice("fact")
    assert code == 1 and out == ""
    assert err == (f"Error: no voice index at {store_path()}; run `memgraph voice --backfill`\n")
    assert not store_path().exists()


def test_garbage_store_is_a_one_line_error(tmp_path: Path) -> None:
    store_path().parent.mkdir(parents=True)
    store_path().write_bytes(b"this is not sqlite" * 100)
    code, _, err = voice("fact")
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1


def test_hostile_queries_never_crash(populated: Path) -> None:
    for q in ['"unbalanced', "NEAR(", "a OR", "body:x", "*", "-", "''", "\\", "💥*"]:
        code, _, err = voice(q)
        assert code == 0, (q, err)


def test_stats_plain_when_not_a_tty(populated: Path) -> None:
    code, out, _ = voice("--stats")
    assert code == 0
    assert out.startswith("messages: 4\nsessions: 4\npages: 1\nclassified: 1 (25.0%)\n")
    assert "unclassified: 3 (75.0%)\n" in out
    assert "range: 2026-04-14 14:32 UTC .. 2026-04-17 12:00 UTC\n" in out
    assert "project atlas: 3\n" in out and "classification decision: 1\n" in out
    assert "constellation" not in out  # the vocabulary says "project"


def test_stats_rich_table_on_a_tty(populated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memgraph.cli.common.is_tty", lambda: True)
    code, out, _ = voice("--stats")
    assert code == 0
    assert "voice index" in out and "messages" in out and "│" in out


def test_home_flag(tmp_path: Path) -> None:
    home = tmp_path / "elsewhere"
    store = open_store(home / "memgraph.db")
    add(store, Msg("elsewhere words", ts("2026-01-01")))
    store.close()
    code, out, _ = voice("elsewhere", "--home", str(home))
    assert code == 0 and "elsewhere words" in out


def test_reindex_command(populated: Path) -> None:
    result = runner.invoke(app, ["reindex"])
    assert result.exit_code == 0
    assert result.stdout == "reindexed 4 voice messages (4 nodes)\n"
    assert voice('"fact table"')[1].count("\n") == 1


def test_import_vault_command(tmp_path: Path) -> None:
    pytest.importorskip("profiles.voice.pages")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
    from test_search_schema import _write_vault

    vault = Path(os.environ["MEMGRAPH_VAULT"])
    _write_vault(vault)
    result = runner.invoke(app, ["import-vault"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "imported 2 pages, 6 messages (8 nodes written, 0 pages skipped)\n"
    code, out, _ = voice('"side table"')
    assert code == 0 and "aaaa1111" in out
    (vault / "atlas" / "voice" / "bad.md").write_text("garbage", encoding="utf-8")
    result = runner.invoke(app, ["import-vault", str(vault), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "vault": str(vault),
        "pages": 2,
        "messages": 6,
        "nodes_written": 0,
        "failed": 1,
        "forgotten": 0,
    }
    assert result.stderr.startswith("skipped atlas/voice/bad.md: ")


def test_import_vault_missing_vault(tmp_path: Path) -> None:
    """The error came after the store was opened: a new empty store was left behind."""
    home = tmp_path / "fresh-home"
    result = runner.invoke(app, ["import-vault", str(tmp_path / "none"), "--home", str(home)])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no vault directory at ")
    assert not home.exists()


def test_import_vault_skips_a_page_name_that_is_not_utf8(tmp_path: Path) -> None:
    """Before: `skipped ...\\udcfe.md: p-...: a document cannot be stored as UTF-8 JSON`."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
    from test_search_schema import _write_vault

    vault = Path(os.environ["MEMGRAPH_VAULT"])
    _write_vault(vault)
    good = sorted((vault / "atlas" / "voice").glob("*.md"))[0]
    odd = os.fsencode(good.parent) + b"/2026-01-01-caf\xe9.md"
    with open(odd, "wb") as fh:
        fh.write(good.read_bytes())
    result = runner.invoke(app, ["import-vault"])
    assert result.exit_code == 1
    assert result.stderr == (
        "skipped atlas/voice/2026-01-01-caf\\xe9.md: the page name is not UTF-8 (rename it)\n"
    )
    assert result.stdout == "imported 2 pages, 6 messages (8 nodes written, 1 page skipped)\n"


def test_import_vault_of_an_old_copy_keeps_forgotten_messages_forgotten(
    tmp_path: Path,
) -> None:
    """A vault copied before `memgraph forget`: the page with the forgotten message
    was skipped whole (`ops[0] upsert_node: n-...: illegal lifecycle transition
    forgotten -> classified`), so its other messages were not imported."""
    import shutil

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
    from test_search_schema import _write_vault

    vault = Path(os.environ["MEMGRAPH_VAULT"])
    _write_vault(vault)
    old = tmp_path / "old-vault"
    shutil.copytree(vault, old)
    assert runner.invoke(app, ["import-vault"]).exit_code == 0
    gone = runner.invoke(app, ["forget", "--query", "side table", "--yes"])
    assert gone.exit_code == 0, gone.output
    again = runner.invoke(app, ["import-vault", str(old)])
    assert again.exit_code == 0, again.output
    assert again.stdout.endswith("0 pages skipped); 1 forgotten message left forgotten\n")
    assert voice('"side table"')[0] == 0 and "side table" not in voice('"side table"')[1]
    assert "schema migration" in voice('"schema migration"')[1]  # the page's other messages
    as_json = runner.invoke(app, ["import-vault", str(old), "--json"])
    assert json.loads(as_json.stdout)["forgotten"] == 1 and as_json.exit_code == 0
