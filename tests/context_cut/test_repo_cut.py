"""The repo cut over a scanned repo: ranking, summary-or-descent, stale
warnings, file:line anchors, budget, and the operator's words via commits."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from context_cut.budget import packet_tokens
from context_cut.repo_cut import HOT_RANKS, RepoCutRequest, rank_modules, repo_cut
from context_cut.repo_index import personalised_pagerank
from memgraph.documents import (
    AnchorKind,
    MemoryAnchor,
    MemoryEdge,
    MemoryNode,
    ProfileName,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import NotFound
from memgraph.ids import node_id
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.scan import ScanRequest, scan_repo
from tests.repo_tree import write_tree

TREE = {
    "alpha/__init__.py": '"""Alpha."""\n',
    "alpha/gateway.py": (
        '"""Payment gateway: charge a card and retry on timeout."""\n\n\n'
        "def charge_card(amount: int) -> None:\n    pass\n"
    ),
    "beta/__init__.py": '"""Beta: bookkeeping."""\n',
    "beta/ledger.py": '"""Ledger rows for a card charge."""\nfrom alpha.gateway import charge_card\n',
    "beta/books.py": '"""Books: monthly totals of the ledger."""\nfrom beta import ledger\n',
    "beta/audit.py": '"""Audit trail of card charge corrections."""\nfrom beta import ledger\n',
}


def _tree(root: Path) -> Path:
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_ranks_the_matching_module_first_with_file_line_anchors(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pay")
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    cut = repo_cut(
        store, RepoCutRequest(text="retry the card charge on gateway timeout", repo_path=root)
    )
    assert cut.ranked[0][0] == "alpha/gateway.py"
    packet = cut.packet
    assert packet.nodes[0].title == "alpha/gateway.py"
    assert "facts" not in packet.nodes[0].attributes  # the packet shows the slim node
    labels = [a.label for a in packet.anchors]
    assert "alpha/gateway.py:1-5" in labels and "alpha/gateway.py:4-5 charge_card" in labels
    assert packet.query.cut.value == "repo" and packet.query.domain_id == "repo:pay"


def test_every_text_form_shows_the_file_line_of_the_names_the_task_mentions(
    tmp_path: Path,
) -> None:
    """The terse lines, the prompt block and markdown all say where to look
    (``path:line-end name``); before, only --json and markdown carried the anchors,
    markdown as ``file path line 4`` with the whole sha and content hash."""
    from context_cut.prompt import prompt_block
    from context_cut.render import packet_lines, packet_markdown

    root = _tree(tmp_path / "pay")
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    packet = repo_cut(
        store, RepoCutRequest(text="retry the card charge on gateway timeout", repo_path=root)
    ).packet
    lines = packet_lines(packet)
    assert "anchor   alpha/gateway.py:4-5 charge_card" in lines
    # a node's own anchor is its node line, not an anchor line as well
    assert not any(line.startswith("anchor   alpha/gateway.py:1-") for line in lines)
    block = prompt_block(packet, [], None)
    assert "[alpha/gateway.py:4-5 charge_card]" in block
    md = packet_markdown(packet)
    (own,) = (a for a in packet.anchors if a.label == "alpha/gateway.py:1-5")
    assert own.content_hash and len(own.content_hash) > 12
    assert f"file alpha/gateway.py:1-5 hash {own.content_hash[:12]}\n" in md
    assert own.content_hash not in md  # 12 hex digits in the text forms; --json has all


def test_fresh_summary_stands_in_and_stale_one_descends_with_a_warning(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pay")
    for name in ("retry", "card", "charge", "timeout"):  # the top five are all in alpha
        (root / "alpha" / f"{name}_gateway.py").write_text(
            f'"""Gateway {name}: retry the card charge on a gateway timeout."""\n'
        )
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    request = RepoCutRequest(text="card charge gateway retry", repo_path=root, limit=12)
    cut = repo_cut(store, request)
    packet = cut.packet
    assert all(p.startswith("alpha/") for p, _s in cut.ranked[:HOT_RANKS])
    # alpha holds the top matches: its modules are shown; beta is covered by its summary
    assert packet.nodes[0].title.startswith("alpha/")
    assert [s.target for s in packet.summaries] == ["package beta (4 files)"]
    assert not any(n.title.startswith("beta/") for n in packet.nodes)
    assert packet.warnings == []
    # shown without the covered id -> hash map the store keeps for its staleness check
    (shown,) = packet.summaries
    with store.reader() as reader:
        kept = reader.get_summaries([shown.id])[shown.id]
    assert len(kept.source_hashes) >= 4 and shown.source_hashes == {}
    assert shown.model_copy(update={"source_hashes": kept.source_hashes}) == kept
    # the prompt block gives the summary's claim, not only its target
    from context_cut.prompt import prompt_block

    first = shown.claim.splitlines()[0]
    assert first and f"package beta (4 files): {first}" in prompt_block(packet, [], None)
    (root / "beta" / "audit.py").write_text('"""Audit trail, now with a card charge export."""\n')
    scan_repo(store, ScanRequest(path=root))
    packet = repo_cut(store, request).packet
    assert packet.summaries == []
    assert any(w.startswith("stale summary:") and "package beta" in w for w in packet.warnings)
    assert any(n.title.startswith("beta/") for n in packet.nodes)

    # a small budget: the top module first, the warning after it or, if it does not
    # fit, as a notice (it took the whole packet before: 0 modules)
    def at(budget: int) -> Any:
        return repo_cut(store, request.model_copy(update={"budget_tokens": budget})).packet

    least = next(b for b in range(10, 2000, 5) if at(b).nodes)  # the top module alone
    small = at(least)
    assert small.nodes[0].id == packet.nodes[0].id and packet_tokens(small) <= least
    # no room for the warning beside it: said as a notice, not in place of the module
    assert small.warnings == []
    assert any(n.startswith("stale summary:") and "package beta" in n for n in small.notices)


def test_a_summary_stands_in_only_for_a_package_mostly_in_play(tmp_path: Path) -> None:
    """A package summary covering many files does not stand in for the two the task
    matched (it hid their paths and file:line spots behind files nobody asked about;
    bench/bench_repo_packet.py); for a package whose files are mostly candidates it
    still does."""
    from context_cut.repo_cut import SUMMARY_MIN_SHARE

    root = _tree(tmp_path / "pay")
    for i in range(10):  # beta grows to 14 files, 3 of them about a card charge
        (root / "beta" / f"report_{i}.py").write_text(f'"""Monthly report {i}."""\n')
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    request = RepoCutRequest(text="card charge gateway retry", repo_path=root)
    packet = repo_cut(store, request).packet
    with store.reader() as reader:
        (beta,) = [
            s
            for s in reader.get_summaries(list(_summary_ids(store))).values()
            if s.target.startswith("package beta")
        ]
    assert SUMMARY_MIN_SHARE * len(beta.covers_node_ids) > 3
    assert packet.summaries == []
    shown = {n.title for n in packet.nodes}
    assert {"beta/ledger.py", "beta/audit.py"} <= shown
    assert any(a.label.startswith("beta/ledger.py:") for a in packet.anchors)


def _summary_ids(store: MemoryStore) -> list[str]:
    return [s.id for s in store.export_snapshot().summaries]


def test_budget_is_a_hard_ceiling(tmp_path: Path) -> None:
    root = _tree(tmp_path / "pay")
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    for budget in (5, 40, 120, 400, 4000):
        packet = repo_cut(
            store, RepoCutRequest(text="card charge ledger", repo_path=root, budget_tokens=budget)
        ).packet
        assert packet.tokens_used <= budget and packet_tokens(packet) == packet.tokens_used


def test_unscanned_repo_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="repo scan"):
        repo_cut(MemoryStore(), RepoCutRequest(text="x", repo_path=tmp_path))


def test_pagerank_spreads_relevance_along_imports() -> None:
    rank = personalised_pagerank(["a", "b", "c", "d"], [("a", "b"), ("b", "c")], {"a": 1.0})
    assert min(rank["a"], rank["b"]) > rank["c"] > rank["d"] == 0.0
    assert abs(sum(rank.values()) - 1.0) < 1e-9
    assert rank_modules({}, "anything") == []


def _git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "op",
        "GIT_AUTHOR_EMAIL": "op@x",
        "GIT_COMMITTER_NAME": "op",
        "GIT_COMMITTER_EMAIL": "op@x",
    }
    out = subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)
    return out.stdout.decode().strip()


def test_operator_words_reach_the_module_through_commits_and_windows(tmp_path: Path) -> None:
    from profiles.artifact.git import read_commits
    from profiles.artifact.ingest import commit_node

    root = _tree(tmp_path / "pay")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "gateway: retry charges")
    commit = commit_node(read_commits(root).commits[0])
    when = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    said = "the gateway must retry a card charge after a timeout, three times at most"
    message = MemoryNode(
        id=node_id("voice", "message", "s1", "u1"),
        domain_id="voice:pay",
        profile=ProfileName.voice,
        kind="message",
        title=said[:80],
        claim=said,
        lifecycle="captured",
        anchors=[MemoryAnchor(id="a-t1", kind=AnchorKind.transcript, ref="/t.jsonl", line=3)],
        created_at=when,
        updated_at=when,
        valid_from=when,
    )
    window = MemoryNode(
        id=node_id("activity", "window", "aw-1"),
        domain_id="activity",
        profile=ProfileName.activity,
        kind="window",
        title="aw-1",
        lifecycle="current",
        created_at=when,
        updated_at=when,
        attributes={
            "members": [message.id, commit.id],
            "artifacts": [{"type": "message"}, {"type": "commit"}],
        },
    )
    edges = [
        MemoryEdge(
            id=f"e-w{i}",
            source_id=window.id,
            target_id=target,
            kind="in_window",
            profile=ProfileName.activity,
            lifecycle="current",
        )
        for i, target in enumerate((message.id, commit.id))
    ]
    store = MemoryStore()
    ops = [UpsertNode(node=n) for n in (commit, message, window)]
    apply_patch(store, new_patch([*ops, *(UpsertEdge(edge=e) for e in edges)]))
    result = scan_repo(store, ScanRequest(path=root))
    assert result.touches == len(TREE)  # the one commit touched every file
    packet = repo_cut(store, RepoCutRequest(text="gateway retry on timeout", repo_path=root)).packet
    voice = [n for n in packet.nodes if n.profile is ProfileName.voice]
    assert [n.claim for n in voice] == [said]
    assert any("operator words linked to alpha/gateway.py" in w for w in packet.warnings)
    # rescanning does not write the touches edges again
    assert scan_repo(store, ScanRequest(path=root)).touches == 0


def test_no_commit_nodes_no_commit_log_read_and_later_ingest_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without commit nodes in the store the scan does not read every ref's log;
    commits ingested later are linked by the next rescan, file changes or not."""
    import profiles.artifact.git as git
    from profiles.artifact.ingest import commit_node

    root = _tree(tmp_path / "pay")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "gateway: retry charges")
    read_commits = git.read_commits

    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("commit log read without commit nodes")

    monkeypatch.setattr(git, "read_commits", refuse)
    store = MemoryStore()
    assert scan_repo(store, ScanRequest(path=root)).touches == 0
    monkeypatch.setattr(git, "read_commits", read_commits)
    commit = commit_node(read_commits(root).commits[0])
    apply_patch(store, new_patch([UpsertNode(node=commit)]))
    again = scan_repo(store, ScanRequest(path=root))
    assert (again.changed, again.touches) == ([], len(TREE))


def test_the_walk_leaves_out_modules_named_only_as_text(tmp_path: Path) -> None:
    """Lazy import edges (a dispatcher's string table) are in the graph but not in
    the cut's PageRank (notes/repo.md, 2026-12-06 (d17): they did not pay there)."""
    from context_cut.repo_index import ModuleIndex
    from profiles.repo_scan.graph import module_id

    files = {
        "app/__init__.py": 'COMMANDS = {"a": "app.cmd_a"}\n',
        "app/cmd_a.py": '"""Command a."""\n',
        "app/cmd_b.py": '"""Command b."""\nfrom app import cmd_a\n',
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=tmp_path, name="app"))
    with store.reader() as reader:
        nodes = reader.get_nodes([module_id("app", p) for p in files])
    modules = {str(n.attributes["path"]): n for n in nodes.values()}
    lazy = [e for e in store.export_snapshot().edges if e.attributes.get("lazy")]
    assert [(e.source_id, e.target_id) for e in lazy] == [
        (module_id("app", "app/__init__.py"), module_id("app", "app/cmd_a.py"))
    ]
    assert ModuleIndex.of(modules).edges == [("app/cmd_b.py", "app/cmd_a.py")]


def test_the_prompt_names_a_modules_path_once_for_its_spots(tmp_path: Path) -> None:
    from context_cut.prompt import prompt_block

    root = tmp_path / "shop"
    root.mkdir()
    (root / "cart.py").write_text(
        '"""Cart."""\n\n\ndef add_item() -> None:\n    pass\n\n\ndef drop_item() -> None:\n    pass\n'
    )
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    packet = repo_cut(store, RepoCutRequest(text="add_item and drop_item", repo_path=root)).packet
    assert "[cart.py:4-5 add_item, :8-9 drop_item]" in prompt_block(packet, [], None)


def test_the_cuts_top_five_are_shown_as_themselves(tmp_path: Path) -> None:
    """A module the cut ranks in its top five is never hidden behind its package's
    summary, however far below the best its score is (ky: the retry logic ranked 3rd
    and the packet showed "package source/core (3 files)" instead)."""
    root = tmp_path / "ky"
    files = {
        "types/__init__.py": '"""Types."""\n',
        "types/retry.py": '"""Retry options: retry with exponential backoff on a 429 status,'
        ' retry delays, retry limits."""\n',
        "core/__init__.py": '"""Core."""\n',
        "core/client.py": '"""The client: sends requests, and a retry when one fails."""\n',
        "core/timing.py": '"""Timing of a retry."""\n',
        "core/constants.py": '"""Constants: status codes to retry."""\n',
    }
    write_tree(root, files)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    cut = repo_cut(
        store, RepoCutRequest(text="retry with exponential backoff on 429", repo_path=root)
    )
    assert HOT_RANKS >= 5
    top = [p for p, _s in cut.ranked[:5]]
    assert top[0] == "types/retry.py" and "core/client.py" in top
    best = cut.ranked[0][1]
    assert all(s < 0.8 * best for p, s in cut.ranked if p.startswith("core/"))  # none "hot"
    shown = {n.title for n in cut.packet.nodes}
    assert {p for p in top if p.startswith("core/")} <= shown
    assert not any(s.target.startswith("package core") for s in cut.packet.summaries)
