"""activity: activity windows, stored as typed edges between a window node
and the artifacts/messages it groups."""

from __future__ import annotations

from memgraph.documents import ProfileName
from profiles.base import Profile, table

ACTIVITY = Profile(
    name=ProfileName.activity,
    description="Activity windows linking operator messages to the artifacts they motivated.",
    node_kinds=frozenset({"window"}),
    edge_kinds=frozenset({"in_window"}),
    states=("current", "superseded"),
    initial=frozenset({"current"}),
    transitions=table(current={"superseded"}, superseded={"current"}),
    retired_state="superseded",
)
