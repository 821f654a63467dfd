"""Conservative, extractive summaries of a scanned repo (no LLM).

- one per folder holding source files (a package), covering its module nodes
  and its package node;
- one per import-graph community (networkx Louvain, fixed seed) of 3+ modules;
- one for the repo, covering the package and community summaries (a summary of
  summaries: staleness propagates to it).

Claims are copied from docstrings and public names, tension from TODO/FIXME/XXX,
import cycles and untested modules, the action implication from dependents;
known omissions name unparsed files and the dynamic imports whose module is not
known (a literal name of a repo module is an import edge: ``lazy.py``).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath
from typing import Any

from memgraph.documents import MemorySummary
from memgraph.ids import stable_id, summary_id
from memgraph.terminal import plural
from profiles.repo_scan.context import RepoContext, is_test, unresolved_dynamic
from profiles.repo_scan.facts import FileFacts
from profiles.repo_scan.graph import module_id, package_id

MIN_COMMUNITY = 3
CLAIM_CHARS = 700


def package_summary_id(repo: str, folder: str) -> str:
    return stable_id("s", f"repo:{repo}", "package", folder)


def repo_summary_id(repo: str) -> str:
    return stable_id("s", f"repo:{repo}", "repo")


def _folder(path: str) -> str:
    folder = PurePosixPath(path).parent.as_posix()
    return "" if folder == "." else folder


def _cut(text: str, limit: int = CLAIM_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_sentence(text: str) -> str:
    return text.split(". ", 1)[0].rstrip(".")[:140]


class _Graph:
    def __init__(self, facts: dict[str, FileFacts], seen: dict[str, dict[str, Any]]) -> None:
        import networkx as nx

        self.g = nx.DiGraph()
        self.g.add_nodes_from(sorted(facts))
        for path in sorted(seen):
            for target, _line in seen[path]["imports"]:
                self.g.add_edge(path, target)
        self.cyclic: dict[str, list[str]] = {}
        for comp in nx.strongly_connected_components(self.g):
            if len(comp) > 1:
                members = sorted(comp)
                for m in members:
                    self.cyclic[m] = members
        self.tested = {
            t for p, s in seen.items() if s["test"] for t, _line in s["imports"] if not is_test(t)
        }
        self.test = {p for p, s in seen.items() if s["test"]}

    def communities(self) -> list[list[str]]:
        import networkx as nx

        core = self.g.subgraph(p for p in self.g if p not in self.test).to_undirected()
        if core.number_of_edges() == 0:
            return []
        found = nx.community.louvain_communities(core, seed=0)
        groups = [sorted(c) for c in found if len(c) >= MIN_COMMUNITY]
        return sorted(groups)


def _tension(paths: list[str], facts: dict[str, FileFacts], graph: _Graph) -> str:
    parts: list[str] = []
    todos = [(p, t) for p in paths for t in facts[p].todos]
    if todos:
        shown = "; ".join(f"{p}:{t[0]} {t[1]}" for p, t in todos[:3])
        parts.append(f"{len(todos)} TODO/FIXME/XXX ({shown})")
    cycles = sorted({tuple(graph.cyclic[p]) for p in paths if p in graph.cyclic})
    for cycle in cycles[:2]:
        parts.append("import cycle: " + " <-> ".join(cycle[:5]) + (" …" if len(cycle) > 5 else ""))
    untested = [p for p in paths if p not in graph.test and p not in graph.tested]
    if untested:
        shown = ", ".join(PurePosixPath(p).name for p in untested[:6])
        parts.append(f"{plural(len(untested), 'module')} no test imports: {shown}")
    return "; ".join(parts)


def _implication(paths: list[str], graph: _Graph) -> str:
    inside = set(paths)
    dependents: dict[str, int] = defaultdict(int)
    outside: set[str] = set()
    for p in paths:
        for src in graph.g.predecessors(p):
            if src not in inside:
                dependents[p] += 1
                outside.add(src)
    if not outside:
        return "no module outside imports it: changes stay local"
    top = max(sorted(dependents), key=lambda p: dependents[p])
    return (
        f"{plural(len(outside), 'module')} outside import it (most: {top}, {dependents[top]}): "
        "check them when changing its public names"
    )


def _omissions(paths: list[str], facts: dict[str, FileFacts], unknown: set[str]) -> list[str]:
    """``unknown``: files with a dynamic import whose module was not resolved."""
    out = [f"{p}: {facts[p].error}" for p in paths if not facts[p].parsed]
    dynamic = [p for p in paths if p in unknown]
    if dynamic:
        out.append("dynamic imports not followed in: " + ", ".join(dynamic[:5]))
    out.append("public names listed per module, not as nodes; bodies not summarised")
    return out


def _claim(head: str, paths: list[str], facts: dict[str, FileFacts]) -> str:
    lines = [head] if head else []
    for p in paths:
        f = facts[p]
        what = _first_sentence(f.doc) if f.doc else ", ".join(s[0] for s in f.symbols[:4])
        lines.append(f"{PurePosixPath(p).name}: {what}" if what else PurePosixPath(p).name)
    return _cut("\n".join(lines))


def _confidence(paths: list[str], facts: dict[str, FileFacts]) -> float:
    conf = 0.85
    if any(not facts[p].parsed for p in paths):
        conf -= 0.25
    if not any(facts[p].doc for p in paths):
        conf -= 0.1
    return round(conf, 2)


def plan_summaries(
    ctx: RepoContext, facts: dict[str, FileFacts], seen: dict[str, dict[str, Any]]
) -> list[MemorySummary]:
    """Package, community and repo summaries for the whole scanned repo."""
    graph = _Graph(facts, seen)
    domain = ctx.domain
    unknown = {p for p, f in facts.items() if f.dynamic_imports and unresolved_dynamic(f, ctx)}
    by_folder: dict[str, list[str]] = defaultdict(list)
    for p in sorted(facts):
        by_folder[_folder(p)].append(p)
    out: list[MemorySummary] = []
    for folder, paths in sorted(by_folder.items()):
        owner = ctx.packages.get(folder)
        covers = [module_id(ctx.repo, p) for p in paths]
        if owner is not None and owner in facts:
            covers.append(package_id(ctx.repo, owner))
        head = facts[owner].doc if owner and owner in facts else ""
        out.append(
            MemorySummary(
                id=package_summary_id(ctx.repo, folder),
                domain_id=domain,
                covers_node_ids=sorted(covers),
                target=f"package {folder or '.'} ({plural(len(paths), 'file')})",
                claim=_claim(head, paths, facts),
                tension=_tension(paths, facts, graph),
                action_implication=_implication(paths, graph),
                confidence=_confidence(paths, facts),
                known_omissions=_omissions(paths, facts, unknown),
            )
        )
    for members in graph.communities():
        hub = max(members, key=lambda p: (graph.g.in_degree(p), p))
        out.append(
            MemorySummary(
                id=summary_id(domain, "community", *members),
                domain_id=domain,
                covers_node_ids=sorted(module_id(ctx.repo, p) for p in members),
                target=f"import community around {hub} ({plural(len(members), 'module')})",
                claim=_claim("", members[:12], facts),
                tension=_tension(members, facts, graph),
                action_implication=_implication(members, graph),
                confidence=round(_confidence(members, facts) - 0.1, 2),
                known_omissions=[
                    *_omissions(members, facts, unknown),
                    "community found by Louvain (seed 0) over imports; membership may shift",
                ],
            )
        )
    if not out:  # no source file: nothing to summarise (a summary must cover something)
        return []
    top = sorted(by_folder, key=lambda f: (-len(by_folder[f]), f))[:8]
    out.append(
        MemorySummary(
            id=repo_summary_id(ctx.repo),
            domain_id=domain,
            covers_summary_ids=sorted(s.id for s in out),
            target=(
                f"repo {ctx.repo} ({plural(len(facts), 'file')}, "
                f"{plural(len(by_folder), 'folder')})"
            ),
            claim=_cut(
                "Largest folders: " + ", ".join(f"{f or '.'} ({len(by_folder[f])})" for f in top)
            ),
            tension=(
                plural(len({tuple(c) for c in graph.cyclic.values()}), "import cycle")
                if graph.cyclic
                else ""
            ),
            action_implication="descend into the package summaries for a task",
            confidence=0.7,
            known_omissions=[
                f"{p}: {facts[p].error}" for p in sorted(facts) if not facts[p].parsed
            ][:20],
        )
    )
    return out
