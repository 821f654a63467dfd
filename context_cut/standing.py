"""Standing material as packet units for the role, persona and coordinator cuts.

Whatever the query, a role packet should carry the project's accepted role
memory, the operator's directives, short-term memory and the latest notes (and
the persona/coordinator theirs): ``profiles.wakeup.standing`` reads them with
indexed queries; here they become ``Unit``s packed ahead of the query's hits,
and each empty section becomes a notice saying why.
"""

from __future__ import annotations

from context_cut.select import Unit
from memgraph.store.protocol import GraphReader, Store

STANDING_CUTS = frozenset({"role", "persona", "coordinator"})


def standing_units(
    store: Store, reader: GraphReader, cut: str, project: str, limit: int = 8
) -> tuple[list[Unit], list[str]]:
    """(units in section order, one notice per empty section); ``reader`` is the
    caller's open read snapshot (the standing reads run inside it)."""
    from memgraph.store.interfaces import indexes
    from profiles.wakeup.standing import gather

    if cut not in STANDING_CUTS:
        return [], []
    reads = indexes(store).standing
    if reads is None:
        return [], [f"this store backend has no standing {cut} material; query hits only"]
    sections = gather(reads, cut, project, limit)
    node_ids = [i.id for s in sections for i in s.items if i.kind in ("node", "note")]
    summary_ids = [i.id for s in sections for i in s.items if i.kind == "summary"]
    nodes = reader.get_nodes(node_ids)
    summaries = reader.get_summaries(summary_ids)
    units: list[Unit] = []
    seen: set[str] = set()
    for s in sections:
        for item in s.items:
            if item.id in seen:
                continue
            seen.add(item.id)
            if item.id in nodes:
                units.append(Unit(score=1.0, node=nodes[item.id]))
            elif item.id in summaries:
                units.append(Unit(score=1.0, summary=summaries[item.id]))
    notices = [f"empty: {s.title}: {s.empty}" for s in sections if not s.items]
    return units, notices
