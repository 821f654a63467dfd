"""Code mentions in the task text: each form, what is not a mention, resolution
to modules, the boost in the repo cut, and hostile input."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_cut.mentions import (
    MAX_MENTIONS,
    MAX_TEXT,
    Mention,
    MentionTable,
    extract_mentions,
)
from context_cut.repo_cut import RankOptions, RepoCutRequest, rank_modules, repo_cut
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.scan import ScanRequest, scan_repo


def kinds(text: str) -> list[tuple[str, str]]:
    return [(m.kind, m.value) for m in extract_mentions(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see `formatting` for it", [("span", "formatting")]),
        ("move it to `click.core`", [("dotted", "click.core")]),
        ("fix `_compat.py` on Windows", [("file", "_compat.py")]),
        ("`@version_option` reads the name", [("decorator", "version_option")]),
        ("`confirm()` hangs", [("call", "confirm")]),
        ("confirm() hangs", [("call", "confirm")]),
        ("click.echo() flushes", [("call", "click.echo")]),
        ("@version_option reads the name", [("decorator", "version_option")]),
        ("@click.command needs a name", [("decorator", "click.command")]),
        ("edit src/click/termui.py today", [("file", "src/click/termui.py")]),
        ("edit termui.py today", [("file", "termui.py")]),
        ("see README.md and Cargo.toml", [("file", "README.md"), ("file", "Cargo.toml")]),
        ("the click.core module", [("dotted", "click.core")]),
        ("rename charge_card please", [("identifier", "charge_card")]),
        ("rename _private_thing please", [("identifier", "_private_thing")]),
        ("getStream is slow", [("identifier", "getStream")]),
        ("HelpFormatter wraps", [("identifier", "HelpFormatter")]),
        ("in `src/pkg/` folder", [("file", "src/pkg")]),
    ],
)
def test_each_mention_form(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Fix the help output when an option is required",
        "Formatter Context Command Option: capitalised single words are prose",
        "e.g. this, i.e. that, etc. and so on.",
        "release 8.1.3, v2.0 and 3.14",
        "a non-test, well-known follow-up",
        "see https://github.com/pallets/click/pull/123 (and #123)",
        "Merge pull request #42 from someone/branch",
        "don't break (again) -- really!",
        "`` `` ` `",  # empty and blank spans
    ],
)
def test_plain_english_is_not_a_mention(text: str) -> None:
    assert extract_mentions(text) == []


def test_mentions_are_deduplicated_in_order() -> None:
    got = extract_mentions("charge_card then `charge_card` then charge_card() and charge_card")
    assert got == [Mention("identifier", "charge_card"), Mention("call", "charge_card")]


SYMBOLS = {
    "src/click/__init__.py": [],
    "src/click/core.py": ["Context", "Command", "echo_via"],
    "src/click/_compat.py": ["get_stream", "shared"],
    "src/click/termui.py": ["confirm", "shared"],
    "src/click/formatting.py": ["HelpFormatter", "shared"],
    "src/click/decorators.py": ["version_option", "shared"],
    "docs/core.py": ["Command"],
    "tests/test_core.py": ["test_context"],
}


def table() -> MentionTable:
    return MentionTable.build(SYMBOLS)


def test_file_name_and_path_suffix_resolve_to_the_file() -> None:
    t = table()
    assert t.resolve(Mention("file", "_compat.py")) == {"src/click/_compat.py": 1.0}
    assert t.resolve(Mention("file", "click/core.py")) == {"src/click/core.py": 1.0}
    # a file name two files share: the score is split
    assert t.resolve(Mention("file", "core.py")) == {"src/click/core.py": 0.5, "docs/core.py": 0.5}
    assert t.resolve(Mention("file", "nowhere.py")) == {}


def test_dotted_names_resolve_longest_module_prefix_first() -> None:
    t = table()
    assert t.resolve(Mention("dotted", "click.core")) == {"src/click/core.py": 1.0}
    assert t.resolve(Mention("dotted", "click.core.Context.invoke")) == {"src/click/core.py": 1.0}
    # a package is its __init__.py
    assert t.resolve(Mention("call", "click.echo")) == {"src/click/__init__.py": 1.0}
    # a one-part name is a module stem before it is a symbol
    assert t.resolve(Mention("span", "formatting")) == {"src/click/formatting.py": 1.0}
    assert t.resolve(Mention("span", "core")) == {"src/click/core.py": 0.5, "docs/core.py": 0.5}


def test_symbols_resolve_to_their_definers_unless_defined_widely() -> None:
    t = table()
    assert t.resolve(Mention("call", "confirm")) == {"src/click/termui.py": 0.6}
    assert t.resolve(Mention("decorator", "version_option")) == {"src/click/decorators.py": 0.6}
    assert t.resolve(Mention("identifier", "HelpFormatter")) == {"src/click/formatting.py": 0.6}
    assert t.resolve(Mention("dotted", "Context.invoke")) == {"src/click/core.py": 0.6}
    two = t.resolve(Mention("identifier", "Command"))
    assert two == {"src/click/core.py": 0.3, "docs/core.py": 0.3}
    # defined in 4 modules (> MAX_DEFINERS): names none of them
    assert t.resolve(Mention("span", "shared")) == {}
    assert t.resolve(Mention("identifier", "not_defined_anywhere")) == {}


def test_scores_keep_the_best_mention_per_module() -> None:
    got = table().scores("`confirm()` in `termui.py`, see get_stream and `Command`")
    assert got == {
        "src/click/termui.py": 1.0,
        "src/click/_compat.py": 0.6,
        "src/click/core.py": 0.3,
        "docs/core.py": 0.3,
    }
    assert table().scores("plain words about nothing in particular") == {}


TREE = {
    "pkg/__init__.py": '"""Pkg."""\n',
    "pkg/compat.py": '"""Shims."""\n\n\ndef get_raw() -> None:\n    pass\n',
    "pkg/streams.py": (
        '"""Stream encoding helpers: stream encoding fallback, stream encoding errors."""\n'
        "STREAM_ENCODING = 'utf-8'\n"
    ),
    "pkg/utils.py": '"""Stream utilities: open a stream with an encoding."""\n',
}


def _scan(root: Path) -> MemoryStore:
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    return store


def test_a_named_module_outranks_a_better_text_match(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    store = _scan(root)
    text = "stream encoding fallback moved into `compat.py`"
    cut = repo_cut(store, RepoCutRequest(text=text, repo_path=root, voice=False))
    assert cut.ranked[0][0] == "pkg/compat.py"
    from context_cut.repo_cut import _INDEX_CACHE

    index = next(reversed(_INDEX_CACHE.values()))
    assert rank_modules(index, text, RankOptions(mentions=False))[0][0] == "pkg/streams.py"
    # a symbol mention alone (no shared words at all) still ranks its definer
    assert rank_modules(index, "get_raw()")[0][0] == "pkg/compat.py"


HOSTILE = [
    "`" * MAX_TEXT,
    "(" * MAX_TEXT,
    "()" * (MAX_TEXT // 2),
    "@" * MAX_TEXT,
    "a." * (MAX_TEXT // 2),
    "a_" * (MAX_TEXT // 2),
    "a/" * (MAX_TEXT // 2),
    "a-" * (MAX_TEXT // 2),
    "`" + "a" * MAX_TEXT,
    ("`" + "x" * 199) * (MAX_TEXT // 200),
    ".*+?[](){}|^$\\" * (MAX_TEXT // 14),
    bytes(range(256)).decode("latin-1") * (MAX_TEXT // 256),
    "\x00\ufffd\u202e" * (MAX_TEXT // 3),
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_is_bounded_and_does_not_crash(text: str) -> None:
    got = extract_mentions(text)
    assert len(got) <= MAX_MENTIONS
    assert table().scores(text) is not None


def test_a_huge_query_is_read_only_up_to_the_cap() -> None:
    head = "fix `confirm()` " + "and words " * (MAX_TEXT // 10)
    huge = head + " later_name " * 100_000  # ~1.2 MB
    assert extract_mentions(huge) == extract_mentions(huge[:MAX_TEXT])
    assert Mention("identifier", "later_name") not in extract_mentions(huge)
    many = " ".join(f"name_{i}" for i in range(10 * MAX_MENTIONS))
    assert len(extract_mentions(many)) == MAX_MENTIONS


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_gives_bounded_mentions_that_appear_in_it(text: str) -> None:
    got = extract_mentions(text)
    assert len(got) <= MAX_MENTIONS and len(set(got)) == len(got)
    for m in got:
        assert m.value and m.value in text
    for path, score in table().scores(text).items():
        assert path in SYMBOLS and 0.0 < score <= 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.from_regex(r"[A-Za-z][a-z]{0,12}", fullmatch=True), max_size=30))
def test_plain_words_with_punctuation_are_never_mentions(words: list[str]) -> None:
    text = " ".join(w + p for w, p in zip(words, [",", ".", "", "!", "?"] * 10, strict=False))
    assert extract_mentions(text) == []


def test_the_mention_cap_holds_inside_backticks_too() -> None:
    names = " ".join(f"name_{i}" for i in range(MAX_MENTIONS - 1))
    span = "`" + " ".join(f"w{i}" for i in range(40)) + "`"  # < 200 chars
    assert len(extract_mentions(f"{names} {span}")) == MAX_MENTIONS


def test_package_files_name_their_folder_per_language() -> None:
    t = MentionTable.build(
        {"a/__init__.py": [], "b/mod.rs": [], "c/index.ts": [], "d/index.py": []}
    )
    assert t.resolve(Mention("dotted", "a")) == {"a/__init__.py": 1.0}
    assert t.resolve(Mention("dotted", "b")) == {"b/mod.rs": 1.0}
    assert t.resolve(Mention("dotted", "c")) == {"c/index.ts": 1.0}
    assert t.resolve(Mention("dotted", "d")) == {}  # a Python index.py is a module "d.index"
    assert t.resolve(Mention("dotted", "d.index")) == {"d/index.py": 1.0}


INTERFACE = {
    "pkg/cli/session.py": ["c:session", "c:list", "c:show", "c:note", "o:--since", "o:--utc"],
    "pkg/cli/review.py": ["c:review", "c:list", "o:--json"],
    "pkg/cli/importer.py": ["c:import", "c:import-vault", "o:--quiet", "o:--json"],
    "pkg/server.py": ["t:voice_stats", "t:note", "e:MEMGRAPH_REDACT", "o:--json"],
    "pkg/cli/repo.py": ["c:repo", "c:scan", "o:--json"],
}


def interface_table() -> MentionTable:
    kinds = {"c": "commands", "o": "options", "t": "tools", "e": "env"}
    pairs = {p: [(kinds[x[0]], x[2:]) for x in v] for p, v in INTERFACE.items()}
    return MentionTable.build({p: [] for p in INTERFACE}, pairs)


def test_interface_names_resolve_word_by_word() -> None:
    t = interface_table()
    got = t.scores("session list/show: local time, --utc")
    # "session" and "--utc" name only session.py; "list" is shared with review.py
    assert got == {"pkg/cli/session.py": 0.6, "pkg/cli/review.py": 0.3}
    assert t.scores("--quiet on import-vault") == {"pkg/cli/importer.py": 0.6}
    assert t.scores("voice_stats returns counts") == {"pkg/server.py": 0.6}
    assert t.scores("MEMGRAPH_REDACT=0 turns it off") == {"pkg/server.py": 0.6}
    # a CLI command and an MCP tool of one name are two interfaces: no split
    assert t.scores("note redacts") == {"pkg/cli/session.py": 0.6, "pkg/server.py": 0.6}


def test_interface_names_declared_widely_or_absent_name_nothing() -> None:
    t = interface_table()
    assert "--json" not in t.names  # declared in 4 modules (> MAX_DEFINERS)
    assert t.scores("print --json output") == {}
    assert t.scores("nothing here is an interface") == {}
    assert t.scores("sessions scanned") == {}  # whole words only, no stemming


def test_a_code_mention_and_an_interface_name_keep_the_best_score() -> None:
    t = MentionTable.build(
        {"pkg/cli/repo.py": ["scan_repo"]}, {"pkg/cli/repo.py": [("commands", "scan")]}
    )
    assert t.scores("`repo.py` scan") == {"pkg/cli/repo.py": 1.0}
    assert t.scores("the scan command") == {"pkg/cli/repo.py": 0.6}


CLI_TREE = {
    "app/__init__.py": '"""App."""\n',
    "app/windows.py": (
        '"""Activity windows: group local time spans, local time zones, time gaps."""\n'
        "def windows_between(a: int, b: int) -> list[int]:\n    return [a, b]\n"
    ),
    "app/cli_sessions.py": (
        '"""Command line."""\nimport typer\n\nsession_app = typer.Typer()\n\n\n'
        '@session_app.command("show")\ndef show(utc: bool = typer.Option(False, "--utc")) -> None:\n'
        "    pass\n\n\ndef register(app: typer.Typer) -> None:\n"
        '    app.add_typer(session_app, name="session")\n'
    ),
    "tests/test_cli.py": (
        'import typer\n\nt = typer.Typer()\n\n\n@t.command("session")\ndef s() -> None:\n    pass\n'
    ),
}


def test_a_command_named_in_the_task_ranks_its_module(tmp_path: Path) -> None:
    root = tmp_path / "cliapp"
    for rel, text in CLI_TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    text = "session show, local time with the zone, --utc"  # no scope prefix (repo_query.py)
    cut = repo_cut(store, RepoCutRequest(text=text, repo_path=root, voice=False))
    assert cut.ranked[0][0] == "app/cli_sessions.py"
    from context_cut.repo_cut import _INDEX_CACHE

    index = next(reversed(_INDEX_CACHE.values()))
    # a test module declaring the same command does not take a share of it
    assert index.mentions.names["session"] == [["app/cli_sessions.py"]]
    # the named command is what lifts it: without mentions its score drops (the
    # clause "session show" still matches its words: repo_model.py)
    with_names = dict(rank_modules(index, text))
    without = dict(rank_modules(index, text, RankOptions(mentions=False)))
    assert with_names["app/cli_sessions.py"] > without["app/cli_sessions.py"] + 0.5


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_interface_lookup_on_hostile_input_is_bounded(text: str) -> None:
    got = interface_table().scores(text + " --quiet")
    assert set(got) <= set(INTERFACE) and all(0 < s <= 1.0 for s in got.values())
