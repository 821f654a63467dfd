"""session: session-bound spark notes (one timeline per session)."""

from __future__ import annotations

from memgraph.documents import ProfileName
from profiles.base import Profile, table

SESSION = Profile(
    name=ProfileName.session,
    description="Session-bound spark notes; a YAML file per session is their view.",
    node_kinds=frozenset({"note", "session"}),
    edge_kinds=frozenset({"in_session"}),
    states=("active", "retired"),
    initial=frozenset({"active"}),
    transitions=table(active={"retired"}),
    retired_state="retired",
)
