"""Issue 19 search semantics, through the CLI: substring by default, whole words
first, --word, CJK, hit windows, the no-hit line, unknown filter values."""

from __future__ import annotations

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
LATE = "x" * 200 + " and then the needle shows up " + "y" * 200


@pytest.fixture(autouse=True)
def populated() -> None:
    store = open_store(Path(os.environ["MEMGRAPH_HOME"]) / "memgraph.db")
    add(
        store,
        # newest first in time: partial hits must still come after whole-word ones
        Msg("never write facts into the summary", ts("2026-05-03"), session_id="aaaa1111-a"),
        Msg("the artifact store is slow", ts("2026-05-02"), session_id="bbbb2222-b"),
        Msg("a fact is a fact", ts("2026-01-01"), session_id="cccc3333-c", project="orion",
            constellation="orion"),
        Msg("好的，切到方案B，然后修复登录的问题", ts("2026-05-01"), session_id="dddd4444-d"),
        Msg("修复了吗？", ts("2026-05-04"), session_id="eeee5555-e",
            classification="question", confidence=0.8),
        Msg(LATE, ts("2026-05-05"), session_id="ffff6666-f"),
    )  # fmt: skip
    store.close()


def voice(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["voice", *args])
    return result.exit_code, result.stdout, result.stderr


def sessions(out: str) -> list[str]:
    return [line.split("] ", 1)[0].rsplit(" ", 1)[1] for line in out.splitlines()]


def test_substring_by_default_fact_finds_facts() -> None:
    code, out, err = voice("fact")
    assert (code, err) == (0, "")
    assert set(sessions(out)) == {"aaaa1111", "bbbb2222", "cccc3333"}


def test_whole_word_hits_rank_above_partial_ones() -> None:
    # "a fact is a fact" is the oldest message but the only whole-word hit
    _, out, _ = voice("fact")
    assert sessions(out)[0] == "cccc3333"
    assert sessions(out)[1:] == ["bbbb2222", "aaaa1111"]  # partial: newest captured first


def test_word_flag_keeps_whole_words_only() -> None:
    _, out, _ = voice("fact", "--word")
    assert sessions(out) == ["cccc3333"]
    code, out, err = voice("fac", "--word")
    assert (code, out) == (0, "")
    assert err == "no hits for 'fac': every match is excluded by --word\n"


@pytest.mark.parametrize(
    ("query", "want"),
    [("方案", {"dddd4444"}), ("修复", {"dddd4444", "eeee5555"}), ("切到方案b", {"dddd4444"})],
)
def test_cjk_two_character_words(query: str, want: set[str]) -> None:
    code, out, _ = voice(query)
    assert code == 0 and set(sessions(out)) == want


def test_hit_shows_the_window_around_the_match() -> None:
    _, out, _ = voice("needle")
    body = out.split('] "', 1)[1].rstrip('"\n')
    assert body.startswith("...") and body.endswith("...")
    assert "the needle shows up" in body
    assert len(body) == 120 + 6
    _, full, _ = voice("needle", "--full")
    assert LATE in full  # --full unchanged


def test_no_hits_prints_one_line() -> None:
    code, out, err = voice("zebra")
    assert (code, out) == (0, "")
    assert err == "no hits for 'zebra'\n"


def test_no_hits_echoes_at_most_80_characters_of_the_query() -> None:
    """A pasted page of text (100 kB) came back whole on stderr."""
    long = " ".join(f"zq{i:05d}" for i in range(15000))
    code, out, err = voice(long)
    assert (code, out) == (0, "")
    assert err == f"no hits for {long[:80]!r}\n"


def test_no_hits_names_the_filter_that_excluded_everything() -> None:
    code, out, err = voice("fact", "--project", "orion", "--since", "2026-05-01")
    assert (code, out) == (0, "")
    assert err == (
        "no hits for 'fact': every match is excluded by --project orion "
        "or by --since 2026-05-01 00:00\n"
    )
    _, _, err = voice("facts", "--project", "orion")
    assert err == "no hits for 'facts': every match is excluded by --project orion\n"
    _, _, err = voice("zebra", "--project", "orion")
    assert err == "no hits for 'zebra' (none without filters either)\n"


def test_unknown_type_or_project_lists_the_valid_values() -> None:
    code, _, err = voice("fact", "--type", "decisoin")
    assert code == 2
    assert err.startswith("Error: --type: unknown class 'decisoin'; valid: definition, decision")
    assert "unclassified" in err and err.count("\n") == 1
    code, _, err = voice("fact", "--project", "orino")
    assert code == 2
    assert err.startswith("Error: --project: no project 'orino'")
    assert "known: " in err and "orion" in err


def test_known_type_without_messages_is_not_an_error() -> None:
    code, out, err = voice("fact", "--type", "decision")
    assert (code, out) == (0, "")
    assert err == "no hits for 'fact': every match is excluded by --type decision\n"
