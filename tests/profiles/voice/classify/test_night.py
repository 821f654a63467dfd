"""The night pass: one validated patch, night window, Ollama proposes, validation decides."""

from __future__ import annotations

import sys
import types
from datetime import UTC, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgraph.documents import MemoryNode, PatchStatus
from memgraph.errors import ConfigError, UsageError
from memgraph.store import Store
from profiles.voice.classify.night import (
    NightPassRequest,
    ProposalRejected,
    in_window,
    make_proposer,
    parse_window,
    run_night_pass,
)
from profiles.voice.classify.ollama import (
    OllamaClassifier,
    OllamaConfig,
    OllamaOutputError,
    OllamaUnavailable,
)
from profiles.voice.classify.rules import RuleClassifier

NIGHT = datetime(2026, 3, 2, 3, 30, tzinfo=UTC)  # 03:30 in the UTC window below
DAY = datetime(2026, 3, 2, 14, 0, tzinfo=UTC)


def request(**kw: Any) -> NightPassRequest:
    return NightPassRequest(now=kw.pop("now", NIGHT), tz=UTC, **kw)


def graph_state(store: Store) -> dict[str, Any]:
    """Every node as stored (the graph, without receipts and patches)."""
    return {n.id: n.model_dump() for n in store.iter_nodes()}


def ollama(fake: Any, **kw: Any) -> OllamaClassifier:
    return OllamaClassifier(OllamaConfig(host=fake.host, timeout=5, backoff=0, **kw))


def test_rules_pass_classifies_captured_messages_in_one_patch(
    store: Store, messages: list[MemoryNode]
) -> None:
    result = run_night_pass(store, request(), RuleClassifier())
    assert result.status == "applied"
    assert (result.selected, result.classified) == (5, 5)
    nodes = {n.id: n for n in store.iter_nodes(profile="voice", kind="message")}
    labels = [nodes[m.id].attributes["classification"] for m in messages]
    assert labels == ["command", "question", "directive", "correction", "decision"]
    for original in messages:
        node = nodes[original.id]
        assert node.lifecycle == "classified"
        assert node.claim == original.claim  # verbatim
        assert node.attributes["session_id"] == original.attributes["session_id"]
        assert node.attributes["classified_by"] == "rules"
        assert 0.0 <= node.attributes["confidence"] <= 1.0
        assert len(node.attributes["topics"]) <= 3
    receipts = store.receipts(patch_id=result.patch_id)
    assert {r.op for r in receipts} == {"revise_node", "transition_node"}
    assert {r.after for r in receipts if r.op == "transition_node"} == {"classified"}
    assert result.by_label == {
        "command": 1,
        "question": 1,
        "directive": 1,
        "correction": 1,
        "decision": 1,
    }


def test_rerun_changes_nothing(store: Store, messages: list[MemoryNode]) -> None:
    run_night_pass(store, request(), RuleClassifier())
    before = graph_state(store)
    assert run_night_pass(store, request(), RuleClassifier()).status == "nothing_to_do"
    forced = run_night_pass(store, request(force=True), RuleClassifier())
    assert (forced.status, forced.selected) == ("unchanged", 5)
    assert graph_state(store) == before


def test_messages_another_run_classified_meanwhile_are_not_counted(
    store: Store, messages: list[MemoryNode]
) -> None:
    """Another pass (another machine on a shared store) classifies two messages while
    this one asks its proposer: this pass classified 3, not 5 (it said 5, and a
    pass that wrote nothing said it classified every message it had selected)."""

    class Racing(RuleClassifier):
        def propose(self, items: Any) -> Any:
            other = run_night_pass(store, request(limit=2), RuleClassifier())
            assert other.classified == 2
            return super().propose(items)

    result = run_night_pass(store, request(), Racing())
    assert (result.status, result.selected, result.classified) == ("applied", 5, 3)
    assert result.already_done == 2 and sum(result.by_label.values()) == 3


def test_outside_window_does_nothing_unless_now(store: Store, messages: list[MemoryNode]) -> None:
    before = graph_state(store)
    result = run_night_pass(store, request(now=DAY), RuleClassifier())
    assert (result.status, result.local_time) == ("outside_window", "14:00")
    assert graph_state(store) == before
    assert run_night_pass(store, request(now=DAY, ignore_window=True), RuleClassifier()).classified


def test_window_uses_local_time_zone(store: Store, messages: list[MemoryNode]) -> None:
    # 03:30 UTC is 12:30 in UTC+9: outside a 02:00-06:00 window there
    tokyo = timezone(timedelta(hours=9))
    req = NightPassRequest(now=NIGHT, tz=tokyo)
    assert run_night_pass(store, req, RuleClassifier()).status == "outside_window"


def test_since_limits_the_selection(store: Store, messages: list[MemoryNode]) -> None:
    since = messages[3].valid_from
    result = run_night_pass(store, request(since=since), RuleClassifier())
    assert result.selected == 2
    still = [n for n in store.iter_nodes(profile="voice") if n.lifecycle == "captured"]
    assert {n.id for n in still} == {m.id for m in messages[:3]}


@pytest.mark.parametrize(
    ("window", "inside", "outside"),
    [
        ("02:00-06:00", ["02:00", "05:59"], ["06:00", "01:59", "14:00"]),
        ("22:00-04:00", ["23:30", "00:10", "03:59"], ["04:00", "12:00", "21:59"]),
    ],
)
def test_window_bounds(window: str, inside: list[str], outside: list[str]) -> None:
    parsed = parse_window(window)
    assert all(in_window(time.fromisoformat(t), parsed) for t in inside)
    assert not any(in_window(time.fromisoformat(t), parsed) for t in outside)


@pytest.mark.parametrize("bad", ["", "2-6", "02:00", "02:00-", "25:00-06:00", "03:00-03:00", "a-b"])
def test_bad_window_is_a_config_error(bad: str) -> None:
    with pytest.raises(ConfigError, match="night_window"):
        parse_window(bad)


@given(st.text(max_size=30))
def test_parse_window_never_crashes(text: str) -> None:
    try:
        start, end = parse_window(text)
    except ConfigError:
        return
    assert start != end


def test_unknown_classifier() -> None:
    with pytest.raises(UsageError, match="unknown classifier"):
        make_proposer("gpt")


def test_ollama_refines_rule_results(
    store: Store, messages: list[MemoryNode], ollama_server: Any
) -> None:
    run_night_pass(store, request(), RuleClassifier())
    flip = {messages[0].id: "directive"}

    def answer(items: list[dict[str, str]]) -> dict[str, Any]:
        return {
            "items": [
                {
                    "id": i["id"],
                    "classification": flip.get(i["id"], "question"),
                    "confidence": 0.8,
                    "topics": ["x"],
                }
                for i in items
            ]
        }

    ollama_server.default = ollama_server.good(answer)
    result = run_night_pass(store, request(classifier="ollama"), ollama(ollama_server))
    assert (result.status, result.selected) == ("applied", 5)
    node = {n.id: n for n in store.iter_nodes(profile="voice")}[messages[0].id]
    assert node.attributes["classification"] == "directive"
    assert node.attributes["classified_by"] == "ollama:gemma4:e2b"
    # the model's own results are not redone unless forced
    again = run_night_pass(store, request(classifier="ollama"), ollama(ollama_server))
    assert again.status == "nothing_to_do"


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ({"classification": "shouting", "confidence": 0.5}, "unknown classification"),
        ({"classification": "decision", "confidence": 1.5}, "outside \\[0, 1\\]"),
        ({"classification": "decision", "confidence": -0.1}, "outside \\[0, 1\\]"),
        ({"id": "n-0000000000000000", "classification": "decision", "confidence": 0.5}, "not one"),
    ],
)
def test_invalid_model_output_is_rejected_with_receipt(
    store: Store,
    messages: list[MemoryNode],
    ollama_server: Any,
    item: dict[str, Any],
    problem: str,
) -> None:
    run_night_pass(store, request(), RuleClassifier())
    before = graph_state(store)

    def answer(items: list[dict[str, str]]) -> dict[str, Any]:
        out = [
            {"id": i["id"], "classification": "question", "confidence": 0.9, "topics": []}
            for i in items
        ]
        out[0] = {"id": items[0]["id"], "topics": [], **item}
        return {"items": out}

    ollama_server.default = ollama_server.good(answer)
    with pytest.raises(ProposalRejected, match=problem) as caught:
        run_night_pass(store, request(classifier="ollama"), ollama(ollama_server))
    assert graph_state(store) == before  # nothing changed, rule results kept
    receipt = caught.value.receipt
    assert receipt.op == "reject_patch" and receipt.after == PatchStatus.rejected.value
    assert [r.id for r in store.receipts(target_id=receipt.target_id)] == [receipt.id]
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        (lambda f: f.content("{{{ not json"), OllamaOutputError),
        (lambda f: f.status(500), OllamaUnavailable),
        (lambda f: f.slow(3.0), OllamaUnavailable),
    ],
)
def test_ollama_failure_changes_nothing(
    store: Store, messages: list[MemoryNode], ollama_server: Any, behaviour: Any, error: Any
) -> None:
    run_night_pass(store, request(), RuleClassifier())
    before = graph_state(store)
    receipts_before = len(store.receipts())
    ollama_server.default = behaviour(ollama_server)
    proposer = OllamaClassifier(
        OllamaConfig(host=ollama_server.host, timeout=0.3, retries=1, backoff=0)
    )
    with pytest.raises(error):
        run_night_pass(store, request(classifier="ollama"), proposer)
    assert graph_state(store) == before
    assert len(store.receipts()) == receipts_before


def test_unanswered_messages_are_left_alone(
    store: Store, messages: list[MemoryNode], ollama_server: Any
) -> None:
    def answer(items: list[dict[str, str]]) -> dict[str, Any]:
        first = items[0]
        return {"items": [{"id": first["id"], "classification": "command", "confidence": 0.7}]}

    ollama_server.default = ollama_server.good(answer)
    result = run_night_pass(store, request(classifier="ollama"), ollama(ollama_server))
    assert (result.classified, result.unanswered) == (1, 4)
    captured = [n for n in store.iter_nodes(profile="voice") if n.lifecycle == "captured"]
    assert len(captured) == 4


def test_pages_of_touched_sessions_are_rerendered(
    store: Store, messages: list[MemoryNode], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, str]] = []

    def write_session_page(store_: Store, vault: Path, session_id: str) -> Path:
        # the table is built from the classification attributes the pass just wrote
        labelled = [
            n
            for n in store_.iter_nodes(profile="voice", kind="message")
            if n.attributes["session_id"] == session_id
        ]
        assert all(n.attributes["classification"] for n in labelled)
        calls.append((str(vault), session_id))
        return vault / f"{session_id}.md"

    fake = types.ModuleType("profiles.voice.views")
    fake.write_session_page = write_session_page  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "profiles.voice.views", fake)
    result = run_night_pass(store, request(vault=tmp_path / "vault"), RuleClassifier())
    assert sorted(calls) == [(str(tmp_path / "vault"), "s1"), (str(tmp_path / "vault"), "s2")]
    assert len(result.pages) == 2 and not result.page_problems


def test_page_failure_is_reported_not_fatal(
    store: Store, messages: list[MemoryNode], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgraph.errors import InvalidId

    def write_session_page(store_: Store, vault: Path, session_id: str) -> Path:
        raise InvalidId(f"unsafe name {session_id!r}")

    fake = types.ModuleType("profiles.voice.views")
    fake.write_session_page = write_session_page  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "profiles.voice.views", fake)
    result = run_night_pass(store, request(vault=tmp_path), RuleClassifier())
    assert result.status == "applied" and len(result.page_problems) == 2
    assert all(n.lifecycle == "classified" for n in store.iter_nodes(profile="voice"))


def test_missing_views_module_is_reported(
    store: Store, messages: list[MemoryNode], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "profiles.voice.views", None)  # import fails
    result = run_night_pass(store, request(vault=tmp_path), RuleClassifier())
    assert result.status == "applied"
    assert result.page_problems and "not re-rendered" in result.page_problems[0]


def test_naive_clock_is_refused(store: Store) -> None:
    with pytest.raises(ConfigError, match="timezone-aware"):
        run_night_pass(store, NightPassRequest(now=datetime(2026, 1, 1, 3)), RuleClassifier())


def test_real_voice_page_gets_the_classifications_table(
    store: Store, messages: list[MemoryNode], tmp_path: Path
) -> None:
    """With engineer B's views: the pass re-renders the page from the classified nodes."""
    pytest.importorskip("profiles.voice.views")
    vault = tmp_path / "vault"
    result = run_night_pass(store, request(vault=vault), RuleClassifier())
    assert not result.page_problems
    # s1 has 3 messages (a page); s2 has 2, below the page minimum
    [page] = [Path(p) for p in result.pages]
    assert page.is_relative_to(vault)
    text = page.read_text(encoding="utf-8")
    table = text.split("## Classifications", 1)[1]
    for label in ("command", "question", "directive"):
        assert label in table
