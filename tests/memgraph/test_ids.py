"""Stable ids and content hashes: deterministic, unambiguous, path-safe names."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.documents import MemoryNode
from memgraph.hashing import node_hash, same_node_content, summary_hash
from memgraph.ids import (
    anchor_id,
    canonical_json,
    content_hash,
    digest,
    edge_id,
    is_safe_name,
    node_id,
    stable_id,
    summary_id,
)

ID_SHAPE = re.compile(r"^[a-z]+-[0-9a-f]{16}$")
parts = st.lists(st.text(max_size=20), max_size=5)


@given(parts)
def test_stable_id_is_a_pure_function_of_the_key(key: list[str]) -> None:
    a = stable_id("n", *key)
    assert a == stable_id("n", *key)
    assert ID_SHAPE.match(a)


@given(parts, parts)
def test_different_keys_give_different_ids(a: list[str], b: list[str]) -> None:
    if a != b:
        assert digest(*a) != digest(*b)


def test_part_boundaries_are_unambiguous() -> None:
    # naive joining would make these collide
    assert digest("ab", "c") != digest("a", "bc")
    assert digest("a|b") != digest("a", "b")
    assert digest("") != digest()
    assert digest("", "") != digest("")


def test_surrogates_do_not_crash() -> None:
    assert ID_SHAPE.match(stable_id("n", "\ud800broken"))


def test_bad_prefix_is_refused() -> None:
    for prefix in ("", "a-b", "x y", "../"):
        with pytest.raises(ValueError):
            stable_id(prefix, "k")


def test_helpers_are_deterministic_and_prefixed() -> None:
    assert node_id("voice", "message", "s", "u").startswith("n-")
    assert node_id("voice", "message", "s", "u") == node_id("voice", "message", "s", "u")
    assert node_id("voice", "message", "s", "u") != node_id("voice", "message", "u", "s")
    assert edge_id("k", "a", "b").startswith("e-")
    assert edge_id("k", "a", "b") != edge_id("k", "b", "a")
    assert anchor_id("url", "x").startswith("a-")
    # a summary id does not depend on the order its covered ids are listed in
    assert summary_id("d", "x", "y") == summary_id("d", "y", "x")


def test_canonical_json_is_key_sorted_and_compact() -> None:
    assert canonical_json({"b": 1, "a": [1, {"d": 2, "c": "é"}]}) == (
        '{"a":[1,{"c":"é","d":2}],"b":1}'
    )
    assert content_hash({"a": 1, "b": 2}) == content_hash({"b": 2, "a": 1})
    assert len(content_hash([])) == 64


@given(st.text(max_size=200))
def test_is_safe_name_never_allows_traversal_or_separators(name: str) -> None:
    if is_safe_name(name):
        assert "/" not in name and "\\" not in name and ".." not in name
        assert not name.startswith(".") and 0 < len(name) <= 128
        assert "\x00" not in name


def test_is_safe_name_examples() -> None:
    assert is_safe_name("session-1.2_a@b+c")
    for bad in ("", ".", "..", ".hidden", "a/b", "a\\b", "a..b", "x" * 129, "a b", "a\x00"):
        assert not is_safe_name(bad), bad


def test_node_hash_ignores_bookkeeping_but_not_claims(mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a", attributes={"b": 1, "a": {"y": 2, "x": 1}})
    later = n.model_copy(update={"updated_at": mg_factory.tick(), "ingested_at": mg_factory.tick()})
    assert node_hash(n) == node_hash(later)
    anchored = n.model_copy(update={"anchors": [mg_factory.anchor()]})
    assert node_hash(n) == node_hash(anchored)  # an anchor is evidence, not the claim
    for change in ({"claim": "other"}, {"lifecycle": "retired"}, {"source_hashes": ["h2"]}):
        assert node_hash(n) != node_hash(n.model_copy(update=change)), change


def test_node_hash_does_not_depend_on_attribute_order(mg_factory) -> None:  # type: ignore[no-untyped-def]
    a = mg_factory.node("a", attributes={"x": 1, "y": {"p": [1, {"k": 1, "j": 2}], "o": 2}})
    b = MemoryNode.model_validate(
        {
            **a.model_dump(),
            "attributes": {"y": {"o": 2, "p": [1, {"j": 2, "k": 1}]}, "x": 1},
        }
    )
    assert list(a.attributes) != list(b.attributes)
    assert node_hash(a) == node_hash(b)
    assert node_hash(a) != node_hash(a.model_copy(update={"attributes": {"x": 2}}))


def test_same_node_content_ignores_timestamps_only(mg_factory) -> None:  # type: ignore[no-untyped-def]
    n = mg_factory.node("a")
    assert same_node_content(n, n.model_copy(update={"updated_at": mg_factory.tick()}))
    assert not same_node_content(n, n.model_copy(update={"title": "t2"}))


def test_summary_hash_ignores_freshness(mg_factory) -> None:  # type: ignore[no-untyped-def]
    s = mg_factory.summary(nodes=["n-1"])
    stale = s.model_copy(update={"freshness": s.freshness.model_copy(update={"state": "stale"})})
    assert summary_hash(s) == summary_hash(stale)
    assert summary_hash(s) != summary_hash(s.model_copy(update={"claim": "x"}))


def test_node_hash_is_pinned() -> None:
    """Stored receipts carry this hash: a change of formula or serialiser shows here.

    The literal is sha256 of ``model_dump_json(exclude=bookkeeping)`` with the
    attributes key-sorted, the definition the fast serialiser path must keep.
    """
    from datetime import UTC, datetime

    from memgraph.documents import ProfileName

    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    node = MemoryNode(
        id="n-golden",
        domain_id="repo:demo",
        profile=ProfileName("repo_architecture"),
        kind="component",
        title="Golden",
        claim="Crème brûlée — 🦭",
        lifecycle="proposed",
        created_at=at,
        updated_at=at,
        valid_from=at,
        attributes={"z": 1, "a": [1, {"y": 2, "b": None}]},
    )
    assert node_hash(node) == "ebfa2d4ce68875e6e68af1a86541b7e305158f8983d93a34888edab8e653e29e"


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=2), children, max_size=3)
    ),
    max_leaves=12,
)


@given(_json_values)
def test_sortedness_check_agrees_with_sorting(value: object) -> None:
    """node_hash skips re-sorting attributes when ``_is_sorted`` says so: it must be exact."""
    import json

    from memgraph.hashing import _is_sorted, _sorted

    assert _is_sorted(value) == (json.dumps(value) == json.dumps(_sorted(value)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(), max_size=6), st.integers(1, 64))
def test_digest_is_the_length_prefixed_sha256(parts: list[str], length: int) -> None:
    """Ids are a contract: the digest is sha256 over (8-byte length, UTF-8 bytes) per part."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    assert digest(*parts, length=length) == h.hexdigest()[:length]
