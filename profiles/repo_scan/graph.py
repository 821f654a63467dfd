"""One file's nodes and edges, from its facts and the context it sees.

Every node and edge belongs to exactly one file (its owner): a changed file
revises only its own, a deleted file retires only its own. Ids come from
natural keys (repo + path + symbol). Every node carries a file anchor (path,
line span in the label, content hash, commit sha) and the file's content hash
in ``source_hashes``; every edge is anchored at the code line it comes from.

Public symbols are attributes (and claim text) of their module node, not
nodes: a node per function would multiply the graph ~10x for a packet that
is module-granular anyway, and the names stay searchable in the claim.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryEdge, MemoryNode, ProfileName
from memgraph.ids import anchor_id, edge_id, node_id
from profiles.repo_scan.context import RepoContext, python_target
from profiles.repo_scan.facts import FileFacts
from profiles.repo_scan.keys import ARCH as ARCH
from profiles.repo_scan.keys import EPOCH as EPOCH
from profiles.repo_scan.keys import FLOW as FLOW
from profiles.repo_scan.keys import module_id as module_id
from profiles.repo_scan.keys import repo_node_id as repo_node_id

MAX_PUBLIC_IN_CLAIM = 40


@dataclass
class FileGraph:
    nodes: list[MemoryNode] = field(default_factory=list)
    edges: list[MemoryEdge] = field(default_factory=list)


class _Builder:
    def __init__(self, facts: FileFacts, seen: dict[str, Any], ctx: RepoContext) -> None:
        self.f = facts
        self.seen = seen
        self.ctx = ctx
        self.repo = ctx.repo
        self.domain = ctx.domain
        self.graph = FileGraph()
        self.module = module_id(self.repo, facts.path)

    def anchor(self, line: int, end: int | None = None) -> MemoryAnchor:
        f = self.f
        span = f"{f.path}:{line}" if end is None or end == line else f"{f.path}:{line}-{end}"
        return MemoryAnchor(
            id=anchor_id("file", self.repo, f.path, str(line), str(end or line), f.digest),
            kind=AnchorKind.file,
            ref=f.path,
            line=line,
            content_hash=f.digest,
            sha=f.sha,
            label=span,
        )

    def node(
        self,
        nid: str,
        kind: str,
        title: str,
        claim: str,
        line: int,
        end: int | None,
        profile: ProfileName = ARCH,
        **attributes: Any,
    ) -> MemoryNode:
        node = MemoryNode(
            id=nid,
            domain_id=self.domain,
            profile=profile,
            kind=kind,
            title=title[:200],
            claim=claim[:4000],
            anchors=[self.anchor(line, end)],
            source_hashes=[self.f.digest],
            lifecycle="observed",
            confidence=0.9 if self.f.parsed else 0.4,
            created_at=EPOCH,
            updated_at=EPOCH,
            attributes=dict(sorted({"repo": self.repo, "path": self.f.path, **attributes}.items())),
        )
        self.graph.nodes.append(node)
        return node

    def edge(
        self,
        kind: str,
        source: str,
        target: str,
        line: int,
        profile: ProfileName = ARCH,
        lazy: bool = False,
    ) -> None:
        attributes: dict[str, Any] = {"repo": self.repo, "path": self.f.path, "line": line}
        if lazy:  # named as text, loaded at run time (lazy.py); others keep their attributes
            attributes["lazy"] = True
        self.graph.edges.append(
            MemoryEdge(
                id=edge_id(kind, source, target),
                source_id=source,
                target_id=target,
                kind=kind,
                profile=profile,
                anchors=[self.anchor(line)],
                lifecycle="observed",
                confidence=0.9,
                attributes=attributes,
            )
        )

    def child(self, kind: str, *key: str, profile: ProfileName = ARCH) -> str:
        return node_id(profile.value, kind, self.repo, self.f.path, *key)


def _lines(items: list[list[Any]]) -> str:
    return ", ".join(str(i[-1]) for i in items[:12]) + (" …" if len(items) > 12 else "")


def _module(b: _Builder) -> None:
    f, seen = b.f, b.seen
    public = [s[0] for s in f.symbols]
    parts = [f.doc] if f.doc else []
    if public:
        shown = ", ".join(public[:MAX_PUBLIC_IN_CLAIM])
        more = (
            f" (+{len(public) - MAX_PUBLIC_IN_CLAIM})" if len(public) > MAX_PUBLIC_IN_CLAIM else ""
        )
        parts.append(f"Public: {shown}{more}")
    if not f.parsed:
        parts.append(f"Not parsed: {f.error}")
    module = b.node(
        b.module,
        "module",
        f.path,
        "\n".join(parts) or f"{f.lang} module {f.path}",
        1,
        max(f.lines, 1),
        lang=f.lang,
        lines=f.lines,
        parsed=f.parsed,
        test=seen["test"],
        public=public[:200],
        facts=f.as_json(),
        derived=seen,
    )
    module.tension = "; ".join(f"line {t[0]} {t[1]}" for t in f.todos[:5])
    lazy = set(seen.get("lazy") or ())
    for target, line in seen["imports"]:
        b.edge("imports", b.module, module_id(b.repo, target), line, lazy=target in lazy)
    if seen["package"]:
        b.edge("contains", package_id(b.repo, seen["package"]), b.module, 1)


def _is_test_target(path: str) -> bool:
    from profiles.repo_scan.context import is_test

    return is_test(path)


def package_id(repo: str, owner: str) -> str:
    return node_id(ARCH.value, "package", repo, owner)


def _package(b: _Builder) -> None:
    f = b.f
    name = PurePosixPath(f.path).name
    if name == "__init__.py":
        dotted = ".".join(PurePosixPath(f.path).parent.parts) or b.repo
        title = f"package {dotted}"
    elif f.package or name in ("Cargo.toml", "package.json", "go.mod"):
        title = f"package {f.package or PurePosixPath(f.path).parent.as_posix()} ({name})"
    else:
        return
    nid = package_id(b.repo, f.path)
    b.node(nid, "package", title, f.doc or title, 1, max(f.lines, 1))
    b.edge("defines", b.module, nid, 1)


def _binaries(b: _Builder) -> None:
    f = b.f
    for name, target, line in f.binaries:
        nid = b.child("binary", name)
        b.node(
            nid,
            "binary",
            f"binary {name} -> {target}",
            f"console script {name} runs {target}",
            line,
            line,
            binary=name,
            target=target,
        )
        b.edge("defines", b.module, nid, line)
        module = target.split(":", 1)[0]
        hit = python_target(b.ctx, f.path, module, "") if f.path.endswith(".toml") else None
        if hit is None and target in b.ctx.paths:
            hit = target
        if hit is not None:
            b.edge("depends_on", nid, module_id(b.repo, hit), line)
    if f.main and not b.seen["test"]:
        stem = PurePosixPath(f.path)
        how = (
            f"python -m {'.'.join(stem.parent.parts)}"
            if stem.name == "__main__.py"
            else f"run {f.path}"
        )
        nid = b.child("binary", "main")
        b.node(
            nid,
            "binary",
            f"binary {how}",
            f"{f.path} runs as a program ({how})",
            1,
            None,
            binary=how,
            target=f.path,
        )
        b.edge("defines", b.module, nid, 1)


def _schemas(b: _Builder) -> None:
    f = b.f
    wanted = set(b.seen["schemas"])
    for name, line, end, bases, decos in f.classes:
        if name not in wanted:
            continue
        how = ", ".join(bases) or ", ".join(decos) or "schema"
        nid = b.child("schema", name)
        b.node(
            nid,
            "schema",
            f"schema {name}",
            f"{name}({how}) in {f.path}:{line}",
            line,
            end,
            schema=name,
            bases=bases,
        )
        b.edge("defines", b.module, nid, line)
    for name, line in f.tables:
        nid = b.child("schema", "table:" + name)
        if any(n.id == nid for n in b.graph.nodes):
            continue
        b.node(
            nid,
            "schema",
            f"table {name}",
            f"SQL table {name} created in {f.path}:{line}",
            line,
            None,
            schema=name,
            bases=["TABLE"],
        )
        b.edge("defines", b.module, nid, line)


def _contracts(b: _Builder) -> None:
    f = b.f
    env: dict[str, list[list[Any]]] = {}
    for var, line in f.env:
        env.setdefault(var, []).append([var, line])
    for var, hits in sorted(env.items()):
        nid = b.child("runtime_contract", "env:" + var)
        b.node(
            nid,
            "runtime_contract",
            f"env {var}",
            f"{f.path} reads environment variable {var} (lines {_lines(hits)})",
            hits[0][1],
            None,
            contract="env",
            name=var,
        )
        b.edge("defines", b.module, nid, hits[0][1])
    cmds: dict[str, int] = {}
    for name, line in f.commands:
        cmds.setdefault(name, line)
    for name, line in sorted(cmds.items()):
        nid = b.child("runtime_contract", "cli:" + name)
        b.node(
            nid,
            "runtime_contract",
            f"command {name}",
            f"CLI command {name!r} in {f.path}:{line}",
            line,
            None,
            contract="cli",
            name=name,
        )
        b.edge("defines", b.module, nid, line)


_FLOW_EDGE = {"input": "reads", "output": "writes", "store": "persists"}


def _dataflow(b: _Builder) -> None:
    f = b.f
    groups: dict[tuple[str, str], list[list[Any]]] = {}
    for kind, channel, line in f.io:
        groups.setdefault((kind, channel), []).append([kind, channel, line])
    if f.env:
        groups[("input", "env")] = [["input", "env", line] for _v, line in f.env]
    made: dict[str, list[str]] = {"input": [], "output": [], "store": []}
    for (kind, channel), hits in sorted(groups.items()):
        nid = b.child(kind, channel, profile=FLOW)
        line = min(h[-1] for h in hits)
        verb = {"input": "reads", "output": "writes", "store": "persists to"}[kind]
        b.node(
            nid,
            kind,
            f"{kind} {channel}: {f.path}",
            f"{f.path} {verb} {channel} (lines {_lines(sorted(hits, key=lambda h: h[-1]))})",
            line,
            None,
            profile=FLOW,
            channel=channel,
        )
        b.edge(_FLOW_EDGE[kind], b.module, nid, line, profile=FLOW)
        made[kind].append(nid)
    for out in made["output"] + made["store"]:
        for src in made["input"]:
            b.edge("derives", out, src, 1, profile=FLOW)


def _test_seam(b: _Builder) -> None:
    if not b.seen["test"]:
        return
    targets = [t for t, _line in b.seen["imports"] if not _is_test_target(t)]
    if not targets:
        return
    nid = b.child("test_seam")
    shown = ", ".join(targets[:10]) + (" …" if len(targets) > 10 else "")
    b.node(
        nid,
        "test_seam",
        f"tests {b.f.path}",
        f"{b.f.path} exercises {shown}",
        1,
        max(b.f.lines, 1),
        targets=targets,
    )
    b.edge("defines", b.module, nid, 1)
    for target, line in b.seen["imports"]:
        if target in targets:
            b.edge("tests", nid, module_id(b.repo, target), line)


def file_graph(facts: FileFacts, seen: dict[str, Any], ctx: RepoContext) -> FileGraph:
    """Every node and edge owned by ``facts.path`` (module node first)."""
    b = _Builder(facts, seen, ctx)
    _module(b)
    _package(b)
    _binaries(b)
    _schemas(b)
    _contracts(b)
    _dataflow(b)
    _test_seam(b)
    # one node per id (a repeated key keeps its first, earliest-line version)
    nodes: dict[str, MemoryNode] = {}
    for n in b.graph.nodes:
        nodes.setdefault(n.id, n)
    edges: dict[str, MemoryEdge] = {}
    for e in b.graph.edges:
        edges.setdefault(e.id, e)
    return FileGraph(list(nodes.values()), list(edges.values()))
