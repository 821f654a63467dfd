"""The repo cut's query weights and recency fallback (context_cut/repo_query.py):
a leading ``scope:`` prefix weighs more; a task whose words match too few modules
is filled up with the most recently changed ones, marked as such."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from context_cut.repo_cut import RankOptions, RepoCutRequest, rank_modules, repo_cut
from context_cut.repo_query import (
    FALLBACK_MODULES,
    SCOPE_WEIGHT,
    query_weights,
    recent_modules,
)
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.facts import terms
from profiles.repo_scan.scan import ScanRequest, scan_repo

_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=_ENV)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_scope_prefix_words_weigh_more() -> None:
    assert query_weights("store/postgres: the txn path") == {
        "store": SCOPE_WEIGHT,
        "postgre": SCOPE_WEIGHT,  # facts.terms strips a plural s
        "txn": 1.0,
        "path": 1.0,
    }
    assert query_weights("fix(parser): keep quotes")["parser"] == SCOPE_WEIGHT
    assert query_weights("  repo cut: ranks")["repo"] == SCOPE_WEIGHT  # leading blanks
    # no prefix: every word 1 (as before)
    assert set(query_weights("keep quotes in the parser").values()) == {1.0}
    # a colon past MAX_SCOPE characters, on a later line, or without a blank after it
    # is no scope
    assert set(query_weights("x" * 41 + ": words").values()) == {1.0}
    assert set(query_weights("Typo\n\nFix: the parser").values()) == {1.0}
    assert set(query_weights("see https://example.org/a").values()) == {1.0}


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_query_weights_are_the_text_terms(text: str) -> None:
    weights = query_weights(text)
    assert set(weights) == set(terms(text))
    assert set(weights.values()) <= {1.0, SCOPE_WEIGHT}


def test_recent_modules_newest_first_without_tests_or_bad_rows() -> None:
    commits = [
        ["c3", "newest", ["b.py", "tests/test_b.py"]],
        "not a row",
        ["c2", "older", None],
        ["c1", "oldest", ["a.py", "b.py", 7, "gone.py"]],
        ["c0"],
    ]
    paths = {"a.py", "b.py", "tests/test_b.py"}
    assert recent_modules(commits, paths, {"tests/test_b.py"}) == ["b.py", "a.py"]


WORDS = "apple birch cedar dahlia elm fern gorse heath iris juniper kelp larch maple nettle"
TREE = {f"app/m{i:02d}.py": f'"""Module about {w}."""\n' for i, w in enumerate(WORDS.split())}
TREE["tests/test_m00.py"] = "from app import m00\n"


def test_a_task_matching_nothing_gets_the_recently_changed_modules(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(root, TREE)
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "initial")
    for rel in ("app/m07.py", "tests/test_m00.py", "app/m03.py"):  # m03 is the newest
        (root / rel).write_text((root / rel).read_text() + "# edit\n")
        _git(root, "commit", "-qam", f"edit {rel}")
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    cut = repo_cut(store, RepoCutRequest(text="Typo", repo="repo", voice=False))
    ranked = [p for p, _s in cut.ranked]
    assert ranked[:2] == ["app/m03.py", "app/m07.py"]  # newest first, the test left out
    assert "tests/test_m00.py" not in ranked
    assert len(ranked) == FALLBACK_MODULES and all(s == 0.0 for _p, s in cut.ranked)
    assert any("changed recently" in n for n in cut.packet.notices)
    # a matching word ranks its module first; the others follow by the priors alone
    # (recency, size: repo_model.py), the recently changed ones first, and the
    # packet says which of those shown no word matched
    cut = repo_cut(store, RepoCutRequest(text="the fern", repo="repo", voice=False))
    assert cut.ranked[0][0] == "app/m05.py" and cut.ranked[0][1] > 0
    assert [p for p, _s in cut.ranked[1:3]] == ["app/m03.py", "app/m07.py"]
    assert all(s < cut.ranked[0][1] / 2 for _p, s in cut.ranked[1:])
    assert any("changed recently" in n and "app/m03.py" in n for n in cut.packet.notices)
    # a budget that packs only the matched module: the fallback ones were not shown,
    # so the packet does not say they were
    tight = repo_cut(
        store, RepoCutRequest(text="the fern", repo="repo", voice=False, budget_tokens=60)
    )
    kept = [n.attributes.get("path") for n in tight.packet.nodes]
    assert kept == ["app/m05.py"], kept
    assert not any("changed recently" in n for n in tight.packet.notices)
    from context_cut.repo_cut import _INDEX_CACHE

    index = next(reversed(_INDEX_CACHE.values()))
    assert rank_modules(index, "Typo", RankOptions(fallback=False)) == []


def test_no_history_no_fallback(tmp_path: Path) -> None:
    root = tmp_path / "plain"  # not a git folder: no history node, nothing to fall back on
    _write(root, TREE)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    cut = repo_cut(store, RepoCutRequest(text="Typo", repo="plain", voice=False))
    assert cut.ranked == []
    assert not any("changed recently" in n for n in cut.packet.notices)
