"""session: session-bound spark notes (one timeline per session)."""

from __future__ import annotations

from collections.abc import Iterable

from memgraph.documents import MemoryNode, ProfileName
from profiles.base import Profile, RuleContext, table


def _note_belongs_to_a_session(
    before: MemoryNode | None, after: MemoryNode, ctx: RuleContext
) -> Iterable[str]:
    # A note without its session would be invisible to every view and to wake.
    if after.kind != "note":
        return []
    sid = after.attributes.get("session_id")
    if not isinstance(sid, str) or not sid:
        return [f"{after.id}: a session note needs attributes.session_id"]
    if not after.claim.strip():
        return [f"{after.id}: a session note needs text"]
    from profiles.session.records import session_node_id

    if ctx.node(session_node_id(sid)) is None:
        return [f"{after.id}: session {sid} is not started"]
    return []


SESSION = Profile(
    name=ProfileName.session,
    description="Session-bound spark notes; a YAML file per session is their view.",
    node_kinds=frozenset({"note", "session"}),
    edge_kinds=frozenset({"in_session"}),
    states=("active", "retired"),
    initial=frozenset({"active"}),
    transitions=table(active={"retired"}),
    retired_state="retired",
    node_rules=(_note_belongs_to_a_session,),
)
