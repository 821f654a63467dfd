"""The budget is a hard ceiling on what every surface returns (issue 15).

CLI lines, the --json line, --markdown and the MCP reply are each measured
with the same estimator on the exact text returned; over random graphs and
budgets none exceeds the budget (or the caller is told the format's floor).
"""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_cut import select_context_cut
from context_cut.ceiling import _COUNTED, fit_output, output_tokens, trim_notice
from context_cut.render import (
    mcp_compact_text,
    mcp_reply_text,
    packet_json,
    packet_lines,
    packet_markdown,
)
from memgraph.documents import (
    CutName,
    MemoryContextQuery,
    MemoryEdge,
    MemorySummary,
    ProfileName,
    SummarizeCluster,
    UpsertEdge,
    UpsertNode,
)
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import UsageError
from memgraph.ids import edge_id, summary_id
from memgraph.store import open_store

WORDS = ["cache", "token", "deploy", "queue", "auth", "billing", "retry", "schema", "lock"]
PROFILES = ["repo_architecture", "repo_dataflow", "evidence", "agency_pressure", "incubation"]

STAGE_NAMES = list(_COUNTED)

RENDERERS = {
    "lines": lambda p: "\n".join(packet_lines(p)) + "\n",
    "json": lambda p: packet_json(p) + "\n",
    "markdown": packet_markdown,
    "mcp": mcp_reply_text,
    "mcp_compact": mcp_compact_text,
}

graph_spec = st.fixed_dictionaries(
    {
        "nodes": st.lists(
            st.tuples(
                st.sampled_from(PROFILES),
                st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
                st.integers(0, 6),
            ),
            min_size=1,
            max_size=16,
        ),
        "edges": st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=10),
        "summaries": st.lists(st.sets(st.integers(0, 15), min_size=1, max_size=5), max_size=3),
        "budget": st.integers(1, 3000),
        "cut": st.sampled_from(list(CutName)),
        "query": st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    }
)


def _build(mk: Any, spec: dict[str, Any]) -> Any:
    store = open_store(":memory:")
    nodes = []
    for i, (profile, words, reps) in enumerate(spec["nodes"]):
        nodes.append(mk.node(profile, f"n{i} {' '.join(words)}", " ".join(words * (reps + 1))))
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
    ops: list[Any] = []
    for a, b in spec["edges"]:
        if a < len(nodes) and b < len(nodes) and a != b:
            s, t = nodes[a], nodes[b]
            if s.profile is t.profile:
                e = MemoryEdge(
                    id=edge_id("relates_to", s.id, t.id),
                    source_id=s.id,
                    target_id=t.id,
                    kind="relates_to",
                    profile=s.profile,
                    lifecycle=s.lifecycle,
                )
                ops.append(UpsertEdge(edge=e))
    for members in spec["summaries"]:
        covered = sorted({nodes[i].id for i in members if i < len(nodes)})
        ops.append(
            SummarizeCluster(
                summary=MemorySummary(
                    id=summary_id("d1", *covered),
                    domain_id="d1",
                    covers_node_ids=covered,
                    target="cluster",
                    claim="a cluster " + " ".join(WORDS[:3]),
                    confidence=0.8,
                )
            )
        )
    for op in ops:  # one by one: an edge a profile forbids is skipped, not fatal
        with contextlib.suppress(Exception):
            apply_patch(store, new_patch([op]))
    return store


@given(spec=graph_spec, surface=st.sampled_from(sorted(RENDERERS)))
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_no_surface_returns_more_than_the_budget(
    mk: Any, spec: dict[str, Any], surface: str
) -> None:
    store = _build(mk, spec)
    budget = spec["budget"]
    query = MemoryContextQuery(text=" ".join(spec["query"]), cut=spec["cut"], budget_tokens=budget)
    packet = select_context_cut(store, query)
    render = RENDERERS[surface]
    try:
        fitted, text = fit_output(packet, render, budget)
    except UsageError as exc:
        # only when even an empty packet in this format is over the budget
        empty = packet.model_copy(deep=True)
        for name in ("nodes", "summaries", "order", "edges", "anchors", "receipts", "omitted"):
            setattr(empty, name, [])
        for name in ("warnings", "contradiction_guards", "verification_seams", "obligations"):
            setattr(empty, name, [])
        assert output_tokens(render(empty)) > budget, str(exc)
        return
    assert output_tokens(text) <= budget
    assert text == render(fitted)
    # trimming only removes: everything returned was in the packed packet
    assert {n.id for n in fitted.nodes} <= {n.id for n in packet.nodes}
    assert {e.id for e in fitted.edges} <= {e.id for e in packet.edges}
    # nodes and summaries go from the lowest-ranked up, whichever their kind: what is
    # returned is a prefix of the packed order, and the order names exactly it
    assert fitted.order == packet.order[: len(fitted.order)]
    assert sorted(fitted.order) == sorted(
        [n.id for n in fitted.nodes] + [s.id for s in fitted.summaries]
    )
    if surface.startswith("mcp"):
        json.loads(text)
    if len(fitted.nodes) < len(packet.nodes):
        # what the ceiling cut is said in the reply, unless even that line does not fit
        said = [n for n in fitted.notices if n.startswith("ceiling: ")]
        if said:
            assert f"{len(packet.nodes) - len(fitted.nodes)} node" in said[0]
        else:
            with_it = copy.copy(fitted)
            before = {name: len(getattr(packet, name)) for name in STAGE_NAMES}
            with_it.notices = [*fitted.notices, trim_notice(before, fitted, budget)]
            assert output_tokens(render(with_it)) > budget


def test_a_fitting_packet_is_returned_unchanged(mk: Any) -> None:
    store = open_store(":memory:")
    n = mk.node("repo_architecture", "cache layer", "the cache layer keeps tokens")
    apply_patch(store, new_patch([UpsertNode(node=n)]))
    packet = select_context_cut(
        store, MemoryContextQuery(text="cache", cut=CutName.repo, budget_tokens=5000)
    )
    fitted, text = fit_output(packet, packet_markdown, 5000)
    assert fitted is packet and text == packet_markdown(packet)


def test_a_budget_below_the_format_floor_is_a_usage_error(mk: Any) -> None:
    store = open_store(":memory:")
    n = mk.node("repo_architecture", "cache layer", "the cache layer keeps tokens")
    apply_patch(store, new_patch([UpsertNode(node=n)]))
    packet = select_context_cut(
        store, MemoryContextQuery(text="cache", cut=CutName.repo, budget_tokens=5)
    )
    with pytest.raises(UsageError, match="fixed overhead"):
        fit_output(packet, RENDERERS["mcp"], 5)
    assert ProfileName.repo_architecture  # the profile used above exists


def test_what_the_ceiling_cuts_is_said_in_the_reply(mk: Any) -> None:
    """A JSON packet trimmed to fit must not read as "nothing found"."""
    store = open_store(":memory:")
    for i in range(12):
        n = mk.node("repo_architecture", f"cache layer {i}", f"the cache layer {i} keeps tokens")
        apply_patch(store, new_patch([UpsertNode(node=n)]))
    packet = select_context_cut(
        store, MemoryContextQuery(text="cache", cut=CutName.repo, budget_tokens=900)
    )
    packed = len(packet.nodes)
    assert packed >= 6
    fitted, text = fit_output(packet, RENDERERS["json"], 900)
    assert len(fitted.nodes) < packed
    cut = packed - len(fitted.nodes)
    said = f"ceiling: {len(packet.omitted)} left-out notes, {len(packet.receipts)} receipts, "
    gone = len(packet.verification_seams) - len(fitted.verification_seams)
    assert f"{said}{cut} nodes, {gone} seams cut to fit 900 tokens" in text
    # the seams of the nodes cut went with them; the kept nodes keep theirs
    cut_ids = {n.id for n in packet.nodes} - {n.id for n in fitted.nodes}
    assert gone > 0 and not any(i in s for s in fitted.verification_seams for i in cut_ids)
    assert all(any(n.id in s for s in fitted.verification_seams) for n in fitted.nodes)
    assert output_tokens(text) <= 900
    # the compact reply (item texts, as the packer counted them) keeps far more
    compact, _ = fit_output(packet, RENDERERS["mcp_compact"], 900)
    assert len(compact.nodes) >= packed - 1 > len(fitted.nodes)


def test_a_caveat_naming_a_kept_node_outlives_the_node_it_pairs_with(mk: Any) -> None:
    """A guard between a node returned and a node cut still qualifies the one returned."""
    store = open_store(":memory:")
    for i in range(12):
        n = mk.node("repo_architecture", f"cache layer {i}", f"the cache layer {i} keeps tokens")
        apply_patch(store, new_patch([UpsertNode(node=n)]))
    packet = select_context_cut(
        store, MemoryContextQuery(text="cache", cut=CutName.repo, budget_tokens=900)
    )
    first, last, before_last = packet.nodes[0].id, packet.nodes[-1].id, packet.nodes[-2].id
    packet = copy.copy(packet)
    packet.contradiction_guards = [
        f"guard: {first} contradicts {last}; present neither as settled",
        f"guard: {before_last} contradicts {last}; present neither as settled",
    ]
    fitted, _text = fit_output(packet, RENDERERS["json"], 900)
    kept = {n.id for n in fitted.nodes}
    assert first in kept and last not in kept and before_last not in kept
    assert fitted.contradiction_guards == [packet.contradiction_guards[0]]


def test_a_summary_ranked_below_nodes_is_cut_before_them(mk: Any) -> None:
    """Nodes and summaries are one ranked list to the ceiling: a --json repo packet at
    4,000 tokens kept two package summaries and none of the twelve modules ranked
    above them while nodes were cut before any summary."""
    store = open_store(":memory:")
    nodes = [
        mk.node("repo_architecture", f"cache layer {i}", f"the cache layer {i} keeps tokens")
        for i in range(6)
    ]
    apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
    packet = select_context_cut(
        store, MemoryContextQuery(text="cache", cut=CutName.repo, budget_tokens=3000)
    )
    assert len(packet.nodes) == 6 and len(packet.order) == 6
    covered = sorted(n.id for n in nodes)
    low = MemorySummary(
        id=summary_id("d1", *covered),
        domain_id="d1",
        covers_node_ids=covered,
        source_hashes={c: f"{i:064x}" for i, c in enumerate(covered)},
        target="package cache (6 files)",
        claim="the cache package " + "keeps tokens " * 40,
        confidence=0.8,
    )
    packet = copy.copy(packet)
    packet.summaries = [low]  # packed after every node: the lowest-ranked item
    packet.order = [*packet.order, low.id]
    packet.anchors, packet.receipts, packet.edges, packet.omitted = [], [], [], []
    full = output_tokens(RENDERERS["json"](packet))
    budget = full - 50  # room for all but one item
    fitted, text = fit_output(packet, RENDERERS["json"], budget)
    assert output_tokens(text) <= budget
    assert fitted.summaries == [] and len(fitted.nodes) == 6
    assert fitted.order == packet.order[:6]
    assert "1 summary cut" in text and " node" not in text.split("ceiling: ")[1].split(" cut")[0]


def test_a_nodes_spots_are_cut_with_it_from_the_lowest_ranked_up(tmp_path: Any) -> None:
    """The repo cut's ``path:4-9 name`` anchors point into one module each. They are
    cut with their module, the lowest-ranked module's first; before, the anchors step
    cut every one of them before any node (a --json repo packet of httpx kept 6
    modules and none of their 25 spots at 4,000 tokens)."""
    from context_cut.ceiling import _spots
    from context_cut.repo_cut import RepoCutRequest, repo_cut
    from memgraph.store.memory import MemoryStore
    from profiles.repo_scan.scan import ScanRequest, scan_repo

    root = tmp_path / "pool"
    root.mkdir()
    for i in range(8):
        body = "".join(
            f"\n\ndef pool_timeout_{j}() -> None:\n    '''Retry the pool.'''\n" for j in range(4)
        )
        (root / f"pool_{i}.py").write_text(f'"""Pool {i}: retry on timeout."""\n{body}')
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    words = " ".join(f"pool_timeout_{j}" for j in range(4))
    packet = repo_cut(
        store, RepoCutRequest(text=f"retry pool timeout {words}", repo_path=root)
    ).packet
    spots = _spots(packet)
    assert len(packet.nodes) >= 6 and len(spots) >= 2 * len(packet.nodes)
    rank = {id(n): i for i, n in enumerate(packet.nodes)}
    full = output_tokens(RENDERERS["json"](packet))
    seen_spots_with_cut_nodes = False
    for budget in range(600, full, 150):
        fitted, text = fit_output(packet, RENDERERS["json"], budget)
        assert output_tokens(text) <= budget
        kept_nodes = {id(n) for n in fitted.nodes}
        kept_spots = [a for a in fitted.anchors if id(a) in spots]
        # a spot never outlives its node ...
        assert all(spots[id(a)] in kept_nodes for a in kept_spots)
        # ... and is cut only once every node ranked below its own is cut
        cut_owner_ranks = [
            rank[spots[id(a)]] for a in packet.anchors if id(a) in spots and a not in kept_spots
        ]
        kept_ranks = [rank[i] for i in kept_nodes]
        if cut_owner_ranks and kept_ranks:
            assert max(kept_ranks) <= min(cut_owner_ranks)
        if kept_spots and len(fitted.nodes) < len(packet.nodes):
            seen_spots_with_cut_nodes = True
    assert seen_spots_with_cut_nodes  # the old order never returned one of these
