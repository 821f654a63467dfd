"""What the vector store sees of the store: documents as text, in partitions.

- The projection covers nodes, edges (with a claim) and summaries. Each lives in
  the collection of its partition, one per embedding model + dimension
  (``mg_<partition>_<model>_<dim>``): ``voice`` (the operator's words), ``mind``
  (agent memory: short_term, role_self, incubation, agency_pressure,
  candidate_intervention, evidence), ``modeling`` (repo_architecture,
  repo_dataflow) and ``records`` (artifacts, session notes, activity). Physical
  partitions are the design's Mind/Modeling split: a cut queries only the
  partitions of its profiles, and one partition can be rebuilt alone.
- Each store has its own copy of those collections in Qdrant
  (``qdrant_collection``: ``mg_<partition>_<model>_<dim>__<store tag>``, the tag
  ``memgraph.home_dirs.store_tag``: the store's id; ``store_collection`` takes
  over its collection from before the id, tagged by location), so stores sharing
  one Qdrant (a home's ``<home>/qdrant``, a server) never see, crowd or delete
  each other's points.
  The manifests keep the name without the tag (``collection_name``): the same on
  every machine of a store, whatever Qdrant each one uses. Collections named
  without a tag are from before (shared by every store of their Qdrant, so no
  store can claim them): nothing reads them any more (``shared_collection``).
- A document's vector is computed from its ``Projected.text``; the hash of that
  text (``source_hash``) is what its embedding manifest records, so a changed
  text makes the vector stale (``context_cut.vector_sync``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memgraph.ids import content_hash
from memgraph.store.protocol import Store

if TYPE_CHECKING:  # annotations only: projecting what a store returns needs no
    # pydantic model, so a reader (`recall`, a context cut) never loads them here
    from memgraph.documents import MemoryEdge, MemoryNode, MemorySummary
    from memgraph.home_dirs import StoreRef

__all__ = [
    "EMBED_TEXT_LIMIT",
    "PARTITIONS",
    "Projected",
    "collection_name",
    "collections_of",
    "embed_text",
    "partition_of",
    "partitions_for",
    "project",
    "qdrant_collection",
    "shared_collection",
    "source_hash",
    "store_collection",
]

EMBED_TEXT_LIMIT = 4000  # characters per document; long claims are cut, not dropped

PARTITIONS: dict[str, frozenset[str]] = {
    "voice": frozenset({"voice"}),
    "mind": frozenset(
        {
            "short_term",
            "role_self",
            "incubation",
            "agency_pressure",
            "candidate_intervention",
            "evidence",
        }
    ),
    "modeling": frozenset({"repo_architecture", "repo_dataflow"}),
    "records": frozenset({"artifact", "session", "activity"}),
}
_PARTITION_OF = {p: name for name, profiles in PARTITIONS.items() for p in profiles}


def partition_of(profile: str) -> str:
    return _PARTITION_OF.get(profile, "records")


def partitions_for(profiles: Iterable[str] | None) -> list[str]:
    """The partitions holding ``profiles`` (all of them for None)."""
    if profiles is None:
        return list(PARTITIONS)
    return sorted({partition_of(p) for p in profiles})


def collection_name(model: str, dimension: int, partition: str = "voice") -> str:
    """The partition's collection for a model, as manifests record it (no store)."""
    slug = re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_")[:60] or "model"
    return f"mg_{partition}_{slug}_{dimension}"


def qdrant_collection(
    model: str, dimension: int, partition: str = "voice", *, store: StoreRef
) -> str:
    """Where the store's vectors of that collection live in Qdrant: its name and
    ``__`` and the store's tag (``collection_name`` never holds ``__``)."""
    from memgraph.home_dirs import store_tag

    return f"{collection_name(model, dimension, partition)}__{store_tag(store)}"


def store_collection(
    dimension_of: Callable[[str], int | None],
    model: str,
    dimension: int,
    partition: str = "voice",
    *,
    store: StoreRef,
) -> str:
    """The store's collection in a Qdrant (``dimension_of``: that Qdrant's): its
    ``qdrant_collection``, or, when only that is there, the one it had before
    its id (tagged by location, ``memgraph.home_dirs.location_tag``): taken over
    as it is, its points not embedded again."""
    from memgraph.home_dirs import location_tag, store_tag

    name = qdrant_collection(model, dimension, partition, store=store)
    if store_tag(store) == location_tag(store.location) or dimension_of(name) is not None:
        return name
    before = f"{collection_name(model, dimension, partition)}__{location_tag(store.location)}"
    return before if dimension_of(before) is not None else name


_SHARED = re.compile(rf"^mg_({'|'.join(PARTITIONS)})_[a-z0-9_]+_[0-9]+$")


def shared_collection(name: str) -> bool:
    """A collection named before each store had its own (no store tag): every
    store of its Qdrant wrote to it, so it belongs to none of them."""
    return "__" not in name and _SHARED.match(name) is not None


def collections_of(names: Iterable[str], store: StoreRef) -> list[str]:
    """The collections among ``names`` that hold the store's points: its own (and
    its own from before its id, tagged by location), and the shared ones from
    before (what ``forget`` must clean: it may hold the store's vectors of
    forgotten text, and nothing reads it any more)."""
    from memgraph.home_dirs import location_tag, store_tag

    # its own, and its own from before ids
    tails = (f"__{store_tag(store)}", f"__{location_tag(store.location)}")
    return [n for n in names if n.endswith(tails) or shared_collection(n)]


def _join(*parts: str) -> str:
    return "\n".join(p for p in parts if p)[:EMBED_TEXT_LIMIT]


def embed_text(node: MemoryNode) -> str:
    """What a node's vector is computed from."""
    return _join(node.title, node.claim, node.question, node.tension, node.action_implication)


def source_hash(node: MemoryNode) -> str:
    return content_hash(embed_text(node))


@dataclass(frozen=True)
class Projected:
    """One document as the vector store sees it: id, type, filter fields, text."""

    doc_id: str
    doc: str  # node | edge | summary
    profile: str
    partition: str
    text: str

    @property
    def source_hash(self) -> str:
        return content_hash(self.text)


def _edge(edge: MemoryEdge) -> Projected | None:
    if not edge.claim.strip():
        return None  # a bare relation has no text of its own to embed
    text = _join(f"{edge.kind.replace('_', ' ')}: {edge.claim}")
    p = edge.profile.value
    return Projected(edge.id, "edge", p, partition_of(p), text)


def _summary(summary: MemorySummary, profiles: dict[str, str]) -> Projected | None:
    text = _join(
        summary.target,
        summary.claim,
        summary.question,
        summary.tension,
        summary.action_implication,
    )
    if not text:
        return None
    # a summary lives with what it covers: the profile most of its nodes have
    covered = [profiles[i] for i in summary.covers_node_ids if i in profiles]
    profile = max(sorted(set(covered)), key=covered.count) if covered else "session"
    return Projected(summary.id, "summary", profile, partition_of(profile), text)


def project(store: Store, profiles: Iterable[str] | None = None) -> list[Projected]:
    """Every document with text, in id order, limited to ``profiles`` if given."""
    wanted = set(profiles) if profiles is not None else None
    out: list[Projected] = []
    node_profiles: dict[str, str] = {}
    for n in store.iter_nodes():
        node_profiles[n.id] = n.profile.value
        text = embed_text(n)
        if text and (wanted is None or n.profile.value in wanted):
            out.append(
                Projected(n.id, "node", n.profile.value, partition_of(n.profile.value), text)
            )
    for e in store.iter_edges():
        pe = _edge(e)
        if pe is not None and (wanted is None or pe.profile in wanted):
            out.append(pe)
    for s in store.iter_summaries():
        ps = _summary(s, node_profiles)
        if ps is not None and (wanted is None or ps.profile in wanted):
            out.append(ps)
    return out
