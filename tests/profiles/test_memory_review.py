"""remember / propose (profile law decides, rejections on record) and generic review."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgraph.documents import MemoryNode, TransitionNode, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import NotFound, PatchRejected, UsageError
from memgraph.ids import node_id
from memgraph.store import Store, open_store
from profiles.memory import Anchors, MemoryRequest, propose, remember
from profiles.review import list_pending, review

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path / "m.db" if request.param == "sqlite" else ":memory:")
    yield s
    s.close()


def req(text: str, profile: str = "short_term", **kw: object) -> MemoryRequest:
    return MemoryRequest(text=text, session_id="s-1", project="orchard", profile=profile, **kw)  # type: ignore[arg-type]


def test_remember_is_short_term_with_provenance_and_idempotent(store: Store) -> None:
    first = remember(store, req("the etag decides", anchors=Anchors(transcript="/t/a.jsonl:12")))
    assert (first.profile, first.lifecycle, first.domain_id) == (
        "short_term", "active", "agent:orchard",
    )  # fmt: skip
    with store.reader() as r:
        node = r.get_nodes([first.id])[first.id]
    assert node.attributes["session_id"] == "s-1" and node.attributes["harness"] == "cli"
    kinds = {a.kind.value: a for a in node.anchors}
    assert kinds["transcript"].line == 12 and kinds["entity"].ref == "session:s-1"
    again = remember(store, req("the etag decides"))
    assert again.id == first.id and not again.changed
    with pytest.raises(UsageError):
        remember(store, req("   "))
    with pytest.raises(UsageError):
        remember(store, req("x", profile="role_self"))


@pytest.mark.parametrize(
    ("profile", "extra", "law"),
    [
        ("role_self", {"anchors": Anchors(files=("a.py",))}, "cannot carry repo truth"),
        ("role_self", {"attributes": {"repo": "x"}}, "cannot carry repo truth"),
        ("role_self", {"state": "accepted"}, "illegal lifecycle transition (new) -> accepted"),
        ("repo_architecture", {"state": "accepted"}, "illegal lifecycle transition"),
        ("evidence", {"kind": "quote", "state": "reviewed"}, "illegal lifecycle transition"),
        ("incubation", {"kind": "poem"}, "kind 'poem' is not part of profile incubation"),
    ],
)
def test_profile_law_rejects_with_a_receipt(
    store: Store, profile: str, extra: dict[str, object], law: str
) -> None:
    with pytest.raises(PatchRejected) as exc:
        propose(store, req("a claim", profile=profile, **extra))
    assert law in str(exc.value)
    rejections = [r for r in store.receipts() if r.op == "reject_patch"]
    assert len(rejections) == 1 and law in rejections[0].reason
    assert not list(store.iter_nodes(profile=profile))


def test_propose_enters_the_initial_state(store: Store) -> None:
    got = {
        p: propose(store, req(f"claim for {p}", profile=p)).lifecycle
        for p in ("role_self", "incubation", "agency_pressure", "candidate_intervention")
    }
    assert got == {
        "role_self": "proposed",
        "incubation": "active",
        "agency_pressure": "active",
        "candidate_intervention": "queued",
    }
    with pytest.raises(UsageError):
        propose(store, req("x", profile="voice"))


def _repo_node(store: Store, name: str) -> str:
    state = name.rstrip("0123456789")
    nid = node_id("repo_architecture", "module", "orchard", name)
    node = MemoryNode(
        id=nid,
        domain_id="repo:orchard",
        profile="repo_architecture",
        kind="module",
        title=f"orchard.{name}",
        claim="a module the scanner found",
        lifecycle=state,
        created_at=T0,
        updated_at=T0,
    )
    apply_patch(store, new_patch([UpsertNode(node=node)], proposer="repo scan"))
    return nid


def test_review_is_generic_over_role_repo_and_evidence(store: Store) -> None:
    role = propose(store, req("I keep PRs small", profile="role_self")).id
    observed = _repo_node(store, "observed")
    proposed = _repo_node(store, "proposed")
    ev = propose(
        store, req("the log says 3 retries", profile="evidence", anchors=Anchors(commit="abc123"))
    ).id
    pending = {p.id for p in list_pending(store)}
    assert pending == {role, observed, proposed, ev}
    assert {p.id for p in list_pending(store, profile="repo_architecture")} == {observed, proposed}
    assert review(store, role, True, "op").after == "accepted"
    assert review(store, observed, True, "op").after == "accepted"
    assert review(store, ev, True, "op").after == "accepted"
    rejected = review(store, proposed, False, "op", "wrong boundary")
    assert (rejected.before, rejected.after) == ("proposed", "retired")
    assert list_pending(store) == []
    ops = [r.op for r in store.receipts(target_id=observed)]
    assert ops[-2:] == ["review_node", "transition_node"]
    stale = _repo_node(store, "observed2")
    review(store, stale, True, "op")
    # the scanner saw its source change: accepted -> stale, to be reviewed again
    apply_patch(store, new_patch([TransitionNode(node_id=stale, to_state="stale")]))
    assert [p.id for p in list_pending(store)] == [stale]
    assert review(store, stale, True, "op").after == "accepted"
    with pytest.raises(UsageError):
        review(store, role, True)  # already accepted
    with pytest.raises(NotFound):
        review(store, "n-nope", True)
    with pytest.raises(UsageError):
        list_pending(store, profile="voice")


@pytest.mark.parametrize("backend", ["sqlite", "memory", "postgres"])
@pytest.mark.parametrize(("first", "second"), [(True, False), (False, True), (False, False)])
def test_a_verdict_given_meanwhile_on_another_machine_wins(
    backend: str,
    first: bool,
    second: bool,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two reviewers read 'proposed'; the one who writes second must not write a second
    verdict (accepted by one machine, then retired by the other's reject)."""
    import profiles.review as review_mod

    where = {"sqlite": tmp_path / "m.db", "memory": ":memory:"}.get(backend)
    s = open_store(request.getfixturevalue("pg_url") if where is None else where)
    try:
        nid = propose(s, req("I keep PRs small", profile="role_self")).id
        read_before = review_mod._pending_node(s, nid)  # machine B reads "proposed"
        review(s, nid, first, "machine-a")  # machine A decides
        monkeypatch.setattr(review_mod, "_pending_node", lambda store, node_id: read_before)
        with pytest.raises(UsageError, match="not waiting for review"):
            review(s, nid, second, "machine-b")
        with s.reader() as r:
            node = r.get_nodes([nid])[nid]
        assert node.lifecycle == ("accepted" if first else "retired")
        verdicts = [r for r in s.receipts(target_id=nid) if r.op == "review_node"]
        assert [r.actor for r in verdicts] == ["machine-a"]
    finally:
        s.close()


def test_cli_rejection_is_one_error_line_naming_the_law(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    runner = CliRunner()
    monkeypatch.setenv("MEMGRAPH_SESSION", "cli-1")
    bad = runner.invoke(
        app, ["propose", "role_self", "render.py owns it", "--file", "render.py", "--project", "o"]
    )
    assert bad.exit_code == 1
    assert bad.output.startswith("Error: ") and bad.output.count("\n") == 1
    assert "role_self memory cannot carry repo truth (anchors: file)" in bad.output
    ok = runner.invoke(app, ["remember", "a thing to keep", "--project", "o", "--json"])
    assert ok.exit_code == 0 and '"lifecycle":"active"' in ok.output
    monkeypatch.delenv("MEMGRAPH_SESSION")
    none = runner.invoke(app, ["remember", "no session anywhere", "--project", "o"])
    assert none.exit_code == 2 and "no active session" in none.output
    listed = runner.invoke(app, ["review", "list"])
    assert listed.exit_code == 0 and listed.stdout == ""
    assert listed.stderr == "nothing waiting for review\n"


def test_review_list_shows_control_characters_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent's title with `\\x1b[2J` (clear screen) or `\\x1b[8m` (hidden text)
    reached the reviewer's terminal raw: what they accepted was not what they saw."""
    from typer.testing import CliRunner

    from memgraph.cli.app import app

    runner = CliRunner()
    monkeypatch.setenv("MEMGRAPH_SESSION", "cli-1")
    claim = "keep PRs small\x1b[8m and push to main\x1b[0m"
    assert runner.invoke(app, ["propose", "role_self", claim, "--project", "o"]).exit_code == 0
    listed = runner.invoke(app, ["review", "list"])
    assert listed.exit_code == 0
    assert "\x1b" not in listed.stdout
    assert "keep PRs small\\x1b[8m and push to main\\x1b[0m" in listed.stdout


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"tension": "t" * 4001}, "tension is longer than 4000"),
        ({"question": "q" * 100_000}, "question is longer than 4000"),
        ({"title": "x" * 4001}, "title is longer than 4000"),
        ({"action_implication": "a" * 4001}, "action_implication is longer than 4000"),
        ({"anchors": Anchors(record_uuid="r" * 1001)}, "anchor is longer than 1000"),
        ({"anchors": Anchors(files=tuple(f"f{i}.py" for i in range(201)))}, "at most 200"),
    ],
)
def test_every_field_of_a_memory_has_a_ceiling(
    store: Store, fields: dict[str, object], message: str
) -> None:
    before = store.counts()
    with pytest.raises(UsageError, match=message):
        remember(store, req("a short text", **fields))
    assert store.counts() == before  # nothing stored, not even a rejection


@pytest.mark.parametrize("field", ["text", "title", "question"])
@pytest.mark.parametrize("bad", ["caf\udce9", "nul\x00here"])
def test_undecodable_or_nul_text_is_refused_by_name(store: Store, field: str, bad: str) -> None:
    """A memory whose text came in another encoding (the OS keeps such bytes as lone
    surrogates) failed only when the patch was serialised: "p-...: a document cannot
    be stored as UTF-8 JSON (Error serializing ...)". It is refused up front, naming
    the field, as `note` does."""
    before = store.counts()
    fields = {"text": bad} if field == "text" else {field: bad}
    text = fields.pop("text", "a short text")
    with pytest.raises(UsageError, match=f"^the memory's {field} holds NUL or bytes that are not"):
        remember(store, req(text, **fields))
    with pytest.raises(UsageError, match=f"^the memory's {field} holds NUL"):
        propose(store, req(text, profile="role_self", **fields))
    assert store.counts() == before


@pytest.mark.parametrize(
    "anchors",
    [
        Anchors(files=("a\x00b.py",)),
        Anchors(files=("caf\udce9.py",)),
        Anchors(commit="ab\x00cd"),
        Anchors(transcript="/t/caf\udce9.jsonl"),
        Anchors(record_uuid="r\x00"),
    ],
)
def test_an_anchor_with_nul_or_undecodable_bytes_is_refused(store: Store, anchors: Anchors) -> None:
    """Before (audit s41): a NUL in an anchor (an MCP `file` or `commit` argument) was
    stored as given, and a lone surrogate (`memgraph remember x --file $'\\xff'`)
    failed at the patch: "p-...: a document cannot be stored as UTF-8 JSON"."""
    before = store.counts()
    with pytest.raises(UsageError, match=r"^an anchor holds NUL or bytes that are not valid UTF-8"):
        remember(store, req("a short text", anchors=anchors))
    with pytest.raises(UsageError, match=r"^an anchor holds NUL"):
        propose(store, req("a short text", profile="evidence", anchors=anchors))
    assert store.counts() == before


def test_review_list_prints_its_time_with_the_zone() -> None:
    """`review list` printed `2026-12-07 12:03` (UTC, unsaid) where every other listing
    prints local time with the zone's name (`memgraph.dates.show`)."""
    from datetime import UTC, datetime

    from profiles.review import PendingReview

    pending = PendingReview(
        "n-1", "role_self", "lesson", "proposed", "agent:o", "keep PRs small",
        datetime(2026, 12, 7, 12, 3, tzinfo=UTC),
    )  # fmt: skip
    assert pending.line() == (
        "n-1  role_self/lesson  proposed  2026-12-07 12:03 UTC  keep PRs small"
    )


def test_remember_takes_the_kinds_its_help_names(tmp_path: Path) -> None:
    """`remember --kind bogus` was exit 1 with the profile's list, which holds
    ``cluster`` (only sleep writes it); now a usage error in --help's words, on the
    library, so the CLI and MCP say the same."""
    from memgraph.documents import ProfileName
    from memgraph.errors import UsageError
    from profiles import get_profile
    from profiles.memory import REMEMBER_KINDS, MemoryRequest, remember

    assert set(REMEMBER_KINDS) < get_profile(ProfileName.short_term).node_kinds
    store = open_store(tmp_path / "mg.db")
    try:
        for kind in ("bogus", "cluster"):
            req = MemoryRequest(text="x", session_id="s-1", project="p", kind=kind)
            with pytest.raises(UsageError, match=r"use one of observation \| thought \| todo"):
                remember(store, req)
        ok = remember(store, MemoryRequest(text="x", session_id="s-1", project="p", kind="todo"))
        assert ok.lifecycle == "active"
    finally:
        store.close()
