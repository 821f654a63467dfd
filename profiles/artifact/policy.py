"""artifact: things that happened (commits, wiki pages, chronicles, devlogs)."""

from __future__ import annotations

from memgraph.documents import ProfileName
from profiles.base import Profile, table

ARTIFACT = Profile(
    name=ProfileName.artifact,
    description="Commits, wiki pages, chronicles and devlogs, with entity anchors.",
    node_kinds=frozenset({"commit", "wiki_page", "chronicle", "devlog"}),
    edge_kinds=frozenset({"touches", "mentions"}),
    states=("observed", "retired"),
    initial=frozenset({"observed"}),
    transitions=table(observed={"retired"}),
    retired_state="retired",
)
