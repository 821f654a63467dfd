"""Unchanged files read again (``profiles/repo_scan/reread.py``): after a scanner
upgrade (the repo node's ``extractor`` stamp differs) and for files left unparsed
for want of a tree-sitter grammar once one is there. Only files whose facts come
out differently are revised; a second rescan writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import profiles.repo_scan.other as other
import profiles.repo_scan.python as python_facts
import profiles.repo_scan.reread as reread
from memgraph.store import open_store
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.files import SourceFile
from profiles.repo_scan.graph import module_id
from profiles.repo_scan.scan import ScanRequest, extract, scan_repo

FILES = {
    "app/__init__.py": (
        '"""The app."""\nimport importlib\n\nCOMMANDS = {"a": "app.cmd_a"}\n\n\n'
        "def run(name: str) -> None:\n    importlib.import_module(COMMANDS[name]).main()\n"
    ),
    "app/cmd_a.py": '"""Command a."""\n\n\ndef main() -> None:\n    pass\n',
    "app/util.py": '"""Helpers."""\nfrom app import cmd_a\n\n\ndef help() -> str:\n    return "x"\n',
    "tests/test_app.py": "from app import util\n\n\ndef test_help() -> None:\n    assert util\n",
}


def _lazy_edges(store: Any) -> set[tuple[str, str]]:
    mid = {module_id("lazy2", p): p for p in FILES}
    return {
        (mid[e.source_id], mid[e.target_id])
        for e in store.export_snapshot().edges
        if e.kind == "imports" and e.lifecycle != "retired" and e.attributes.get("lazy")
    }


def _old_scanner(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scanner before lazy edges: version 1, no literal dynamic imports read."""
    monkeypatch.setattr(reread, "EXTRACTOR", 1)
    monkeypatch.setattr(python_facts, "dynamic_facts", lambda *a, **k: None)


def test_an_upgrade_revises_only_the_files_the_new_scanner_reads_differently(
    tmp_path: Path, kit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path(kit.write_repo(tmp_path / "lazy2", FILES))
    store = open_store(tmp_path / "g.db")
    _old_scanner(monkeypatch)
    first = scan_repo(store, ScanRequest(path=root))
    assert first.reread == [] and _lazy_edges(store) == set()
    old_util = kit.by_title(store, "lazy2")("module", "app/util.py")
    again = scan_repo(store, ScanRequest(path=root))  # same old scanner: nothing to do
    assert again.reread == [] and again.receipts == 0

    monkeypatch.undo()  # the current scanner
    upgraded = scan_repo(store, ScanRequest(path=root))
    # only the dispatcher reads differently (its string table and import_module call)
    assert upgraded.reread == ["app/__init__.py"]
    assert upgraded.changed == [] and upgraded.added == []
    assert "1 revised by a newer scanner" in upgraded.line()
    assert _lazy_edges(store) == {("app/__init__.py", "app/cmd_a.py")}
    fresh = MemoryStore()
    scan_repo(fresh, ScanRequest(path=root))
    assert _lazy_edges(fresh) == _lazy_edges(store)
    # a module the upgrade read the same was not written again
    assert kit.by_title(store, "lazy2")("module", "app/util.py") == old_util

    before = store.counts()
    settled = scan_repo(store, ScanRequest(path=root))
    assert settled.reread == [] and settled.receipts == 0 and store.counts() == before
    store.close()


def test_a_version_bump_that_changes_no_facts_stamps_the_repo_node_once(
    tmp_path: Path, kit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path(kit.write_repo(tmp_path / "lazy2", FILES))
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    monkeypatch.setattr(reread, "EXTRACTOR", reread.EXTRACTOR + 1)
    bumped = scan_repo(store, ScanRequest(path=root))
    assert bumped.reread == [] and bumped.rebuilt == []
    repo = kit.by_title(store, "lazy2")("repo", "repo lazy2")
    assert repo.attributes["extractor"] == reread.EXTRACTOR
    assert scan_repo(store, ScanRequest(path=root)).receipts == 0


def test_files_unparsed_for_want_of_a_grammar_are_parsed_once_it_is_there(
    shop: Path, kit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not other.tree_sitter_available():
        pytest.skip("tree-sitter-language-pack (the repo extra) is not installed")
    store = MemoryStore()
    monkeypatch.setattr(other, "_parser", lambda lang: None)
    first = scan_repo(store, ScanRequest(path=shop))
    assert "native/src/main.rs" in first.unparsed
    still = scan_repo(store, ScanRequest(path=shop))  # no grammar yet: nothing read again
    assert still.reread == [] and still.receipts == 0

    monkeypatch.undo()
    now = scan_repo(store, ScanRequest(path=shop))
    assert now.reread == first.unparsed  # exactly the waiting files
    assert now.unparsed == [] and now.changed == []
    rust = kit.by_title(store, "shop")("module", "native/src/main.rs")
    assert rust.attributes["parsed"] is True
    assert scan_repo(store, ScanRequest(path=shop)).receipts == 0


def test_which_files_are_read_again(tmp_path: Path) -> None:
    def src(rel: str, lang: str) -> SourceFile:
        return SourceFile(rel, lang, b"x = 1\n", "d" + rel)

    sources = {p: src(p, lang) for p, lang in [("a.py", "python"), ("b.rs", "rust")]}
    # a first scan reads everything as new; a store without a stamp is version 1
    assert reread.paths_to_reread({}, sources, set()) == []
    assert reread.paths_to_reread({"manifest": {}}, sources, {"a.py"}) == ["b.rs"]
    current = {"extractor": reread.EXTRACTOR, "unparsed": ["a.py", "b.rs", "gone.rs"]}
    # only tree-sitter languages wait for a grammar; a vanished file is not read
    expected = ["b.rs"] if other.tree_sitter_available() else []
    assert reread.paths_to_reread(current, sources, set()) == expected
    assert reread.paths_to_reread(current, sources, {"b.rs"}) == []


@pytest.mark.parametrize(
    "stored",
    [None, "facts", [], {"path": "a.py"}],
)
def test_stored_facts_that_are_missing_or_malformed_count_as_different(stored: Any) -> None:
    fresh, _ = extract(SourceFile("a.py", "python", b"import os\n", "d1"), "c1")
    assert reread.same_facts(stored, fresh) is False


def test_facts_differing_only_in_the_commit_read_at_are_the_same() -> None:
    data = b'"""Doc."""\nimport os\n\nX = ("a", 1)\n'
    a, _ = extract(SourceFile("a.py", "python", data, "d1"), "c1")
    b, _ = extract(SourceFile("a.py", "python", data, "d1"), "c2")
    assert reread.same_facts(a.as_json(), b) is True
    c, _ = extract(SourceFile("a.py", "python", data + b"import sys\n", "d1"), "c1")
    assert reread.same_facts(a.as_json(), c) is False
