"""Voice meets code: the operator's words behind changes to a module.

module <-touches- commit <-in_window- activity window -in_window-> message:
for each selected module, the commits that touched it (``touches`` edges from
the repo scanner), the current activity windows holding those commits, and of
the operator messages in those windows the one sharing most words with the task.
"""

from __future__ import annotations

from memgraph.documents import MemoryNode
from memgraph.store.protocol import Store

MAX_COMMITS = 5


def _overlap(node: MemoryNode, words: set[str]) -> int:
    from profiles.repo_scan.facts import terms

    return len(words & set(terms(node.claim)))


def operator_words(
    store: Store, module_ids: list[str], words: set[str]
) -> list[tuple[str, MemoryNode]]:
    """(module path, message node) per module that has linked words."""
    out: list[tuple[str, MemoryNode]] = []
    taken: set[str] = set()
    for mid in module_ids:
        hood = store.neighbourhood(mid, 1)
        module = hood.nodes.get(mid)
        commits = [
            e.source_id for e in hood.edges.values() if e.kind == "touches" and e.target_id == mid
        ]
        if module is None or not commits:
            continue
        messages: set[str] = set()
        for cid in sorted(commits)[-MAX_COMMITS:]:
            around = store.neighbourhood(cid, 1)
            for e in around.edges.values():
                window = around.nodes.get(e.source_id)
                if e.kind != "in_window" or window is None or window.lifecycle != "current":
                    continue
                members = window.attributes.get("members") or []
                arts = window.attributes.get("artifacts") or []
                for member, art in zip(members, arts, strict=False):
                    if isinstance(art, dict) and art.get("type") == "message":
                        messages.add(str(member))
        if not messages:
            continue
        with store.reader() as reader:
            found = reader.get_nodes(sorted(messages))
        ranked = sorted(
            (n for n in found.values() if n.id not in taken),
            key=lambda n: (-_overlap(n, words), n.id),
        )
        if ranked:
            taken.add(ranked[0].id)
            out.append((str(module.attributes.get("path", mid)), ranked[0]))
    return out
