"""``scan_repo(request)``: a repository's files -> repo_architecture and
repo_dataflow nodes and edges, incrementally, through ``apply_patch``.

1. List the files (``files.list_files``) and read every source (bounded, inside
   the root); compare content hashes with the manifest on the repo node.
2. Parse only changed files. Rebuild a file's nodes when its content changed,
   or (after files were added/removed or a class hierarchy changed) when the
   context it sees changed; everything else is left alone.
3. A changed file's nodes are upserted (the store keeps the old version in
   history; an ``accepted`` node goes ``stale`` and needs review again); nodes
   and edges it no longer has are retired; a deleted file's are retired.
   Summaries covering a changed node go stale through the engine
   (``mark_stale`` law, propagating to summaries of summaries).
4. Summaries (``summaries.py``) are written for a repo that has none, and
   rewritten on ``refresh``; commit nodes get ``touches`` edges (``links.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from memgraph.errors import UsageError
from memgraph.inputs import printable_path
from memgraph.terminal import plural
from profiles.repo_scan import reread
from profiles.repo_scan.context import RepoContext, build_context, cache_of, derived
from profiles.repo_scan.files import (
    MAX_BYTES,
    Folders,
    LedgerLine,
    SourceFile,
    check_root,
    list_files,
    read_source,
)
from profiles.repo_scan.history import HISTORY_COMMITS, history_ops
from profiles.repo_scan.keys import find_repo_key, module_id, repo_node_id

if TYPE_CHECKING:  # the documents and the engine load only when there is something to write
    from memgraph.documents import GraphOp
    from memgraph.documents.views import NodeView
    from memgraph.store.protocol import Store  # annotations only: never imported by a scan
    from profiles.repo_scan.facts import FileFacts  # with the parsers: only for changed files

BATCH = 4000
MAX_HISTORY = 100_000


@dataclass
class ScanRequest:
    """What to scan. A plain dataclass, checked here: building a pydantic model
    would load pydantic in a rescan that has nothing to write."""

    path: Path
    name: str | None = None  # repo key (default: folder name)
    max_bytes: int = MAX_BYTES
    summaries: bool = True  # write summaries where none exist yet
    refresh: bool = False  # rewrite every summary (stale ones become fresh)
    link_commits: bool = True  # commit artifact nodes -> touches -> module nodes
    # subjects of the last N commits per file (history.py); 0 = none
    history: int = HISTORY_COMMITS

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        if self.name is not None and not isinstance(self.name, str):
            raise UsageError(f"repo name must be text, not {type(self.name).__name__}")
        for flag in ("summaries", "refresh", "link_commits"):
            if not isinstance(getattr(self, flag), bool):
                raise UsageError(f"{flag} must be true or false")
        if type(self.max_bytes) is not int or self.max_bytes <= 0:
            raise UsageError(f"max_bytes must be a positive integer, not {self.max_bytes!r}")
        if type(self.history) is not int or not 0 <= self.history <= MAX_HISTORY:
            raise UsageError(f"history must be an integer 0-{MAX_HISTORY}, not {self.history!r}")


@dataclass
class ScanResult:
    repo: str
    root: str
    domain: str
    git: bool
    head: str | None
    files: int = 0
    not_source: int = 0
    parsed_now: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    # unchanged files read again because the scanner now reads them differently
    reread: list[str] = field(default_factory=list)
    rebuilt: list[str] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)
    ledger: list[LedgerLine] = field(default_factory=list)
    receipts: int = 0
    nodes_written: int = 0
    edges_written: int = 0
    summaries_written: int = 0
    touches: int = 0
    stale_summaries: list[str] = field(default_factory=list)
    stale_targets: dict[str, str] = field(default_factory=dict)  # id -> what it covers
    notices: list[str] = field(default_factory=list)

    def line(self) -> str:
        stale = len(self.stale_summaries)
        return (
            f"repo {printable_path(self.repo)}: {plural(self.files, 'file')} "
            f"({len(self.added)} added, "
            f"{len(self.changed)} changed, {len(self.deleted)} deleted, "
            f"{len(self.parsed_now)} parsed), {len(self.unparsed)} unparsed, "
            f"{len(self.ledger)} skipped, {plural(self.receipts, 'receipt')}, "
            f"{stale} stale {'summary' if stale == 1 else 'summaries'}"
            + (f", {len(self.reread)} revised by a newer scanner" if self.reread else "")
        )

    def stale_lines(self) -> list[str]:
        """One line per stale summary (what it covers) and the command that rewrites them."""
        if not self.stale_summaries:
            return []
        out = [
            f"stale    {sid} «{printable_path(self.stale_targets.get(sid, '?'))}»"
            for sid in self.stale_summaries
        ]

        from shlex import quote

        fix = f"memgraph repo scan {quote(self.root)} --refresh"
        return [*out, f"(the cut shows their modules instead; rewrite them: {fix})"]

    def as_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "ledger"}
        out["ledger"] = [{"path": x.path, "reason": x.reason} for x in self.ledger]
        return out


def extract(src: SourceFile, sha: str | None) -> tuple[FileFacts, LedgerLine | None]:
    """Facts of one file; a file that cannot be parsed still gets facts (unparsed)."""
    # parsers imported for the file's language only: a one-file Python rescan
    # loads neither the manifest/JSON/tree-sitter readers nor tree-sitter itself
    from profiles.repo_scan.facts import FileFacts

    facts = FileFacts(path=src.path, lang=src.lang, digest=src.digest, sha=sha)
    try:
        text = src.data.decode("utf-8")
    except UnicodeDecodeError:
        text = src.data.decode("utf-8", "replace")
        facts.lines = text.count("\n") + 1
        facts.parsed = False
        facts.error = "not UTF-8: not parsed"
        return facts, LedgerLine(src.path, facts.error)
    if src.lang == "python":
        from profiles.repo_scan.python import parse_python

        parse_python(src.path, text, facts)
    elif src.lang == "manifest":
        from profiles.repo_scan.other import parse_manifest

        parse_manifest(src.path, text, facts)
    elif src.lang == "json_schema":
        from profiles.repo_scan.other import parse_json_schema

        parse_json_schema(src.path, text, facts)
    else:
        from profiles.repo_scan.other import TREE_SITTER, parse_tree_sitter

        if src.lang in TREE_SITTER:
            parse_tree_sitter(src.path, text, src.data, facts)
        else:  # sql: tables and TODOs only
            from profiles.repo_scan.facts import scan_text

            scan_text(facts, text)
    return facts, (LedgerLine(src.path, facts.error) if not facts.parsed else None)


def _signature(facts: FileFacts) -> list[Any]:
    """What other files' graphs may depend on: classes (schema closure), manifests."""
    return [facts.classes, facts.package if facts.lang == "manifest" else ""]


class _Scan:
    def __init__(self, store: Store, request: ScanRequest) -> None:
        self.store = store
        self.request = request
        self.root = check_root(request.path)
        self.repo = find_repo_key(store, self.root, request.name)
        self.listing = list_files(self.root)
        self.result = ScanResult(
            repo=self.repo,
            root=str(self.root),
            domain=f"repo:{self.repo}",
            git=self.listing.git,
            head=self.listing.head,
            not_source=self.listing.not_source,
        )
        self.node_ops: list[GraphOp] = []
        self.edge_ops: list[GraphOp] = []
        self.modules: dict[str, NodeView] = {}  # path -> stored module node

    def _writer(self) -> ModuleType:
        """``write.py`` (pydantic, the documents, the engine), loaded on the first
        write. A store its owner marked for plain reads (``use_plain``: a
        no-change rescan decodes nothing into pydantic) decodes documents again
        from here on: the ops evolve stored documents, the engine validates."""
        from memgraph.store.decode import use_documents
        from profiles.repo_scan import write

        use_documents(self.store)
        return write

    def _load_modules(self, paths: list[str]) -> None:
        wanted = [module_id(self.repo, p) for p in paths if p not in self.modules]
        with self.store.reader() as reader:
            for n in reader.get_nodes(wanted).values():
                self.modules[str(n.attributes["path"])] = n

    def run(self) -> ScanResult:
        r = self.result
        rid = repo_node_id(self.repo)
        with self.store.reader() as reader:
            repo_node = reader.get_nodes([rid]).get(rid)
        state: dict[str, Any] = dict(repo_node.attributes) if repo_node else {}
        manifest: dict[str, str] = dict(state.get("manifest") or {})
        sources: dict[str, SourceFile] = {}
        with Folders(self.root) as folders:
            for rel in self.listing.paths:
                got = read_source(folders, rel, self.request.max_bytes)
                if isinstance(got, SourceFile):
                    sources[rel] = got
                elif isinstance(got, LedgerLine):
                    r.ledger.append(got)
        r.files = len(sources)
        r.added = sorted(p for p in sources if p not in manifest)
        r.changed = sorted(p for p in sources if p in manifest and manifest[p] != sources[p].digest)
        r.deleted = sorted(p for p in manifest if p not in sources)
        todo = r.added + r.changed
        facts: dict[str, FileFacts] = {}
        for rel in todo:
            facts[rel], ledger = extract(sources[rel], self.listing.head)
            if ledger is not None:
                r.ledger.append(ledger)
        again = reread.paths_to_reread(state, sources, set(todo))
        self._load_modules(again)
        sha = self.listing.head
        for rel, (fresh, ledger) in reread.read_again(again, sources, self.modules, sha).items():
            facts[rel] = fresh
            r.reread.append(rel)
            if ledger is not None:
                r.ledger.append(ledger)
        todo += r.reread
        r.parsed_now = sorted(todo)
        self._load_modules(r.changed + r.deleted)
        # decoded for the revised files only (after an upgrade every module is loaded)
        revised = [p for p in r.changed + r.reread if p in self.modules]
        full = bool(r.added or r.deleted) or any(
            _signature(facts[p]) != _signature(_facts_of(self.modules[p])) for p in revised
        )
        summarise = self.request.refresh or (self.request.summaries and not state.get("summaries"))
        if full or summarise:
            unchanged = [p for p in sources if p not in facts]
            self._load_modules(unchanged)
            for p in unchanged:
                node = self.modules.get(p)
                if node is not None and "facts" in node.attributes:
                    facts[p] = _facts_of(node)
                else:  # listed in the manifest but no node: read it again
                    facts[p], _ = extract(sources[p], self.listing.head)
            ctx = build_context(self.repo, set(sources), facts)
        elif todo or "context" not in state:
            ctx = build_context(self.repo, set(sources), None, state.get("context"))
        else:  # nothing to rebuild: unused, the stored context is kept as it is
            ctx = RepoContext(repo=self.repo, paths=set(sources))
        rebuild = {p: derived(facts[p], ctx) for p in todo}
        if full:
            for p in sorted(set(facts) - set(todo)):
                seen = derived(facts[p], ctx)
                node = self.modules.get(p)
                if node is None or node.attributes.get("derived") != seen:
                    rebuild[p] = seen
        r.rebuilt = sorted(rebuild)
        for p in r.rebuilt:
            nodes, edges = self._writer().file_ops(
                self.store, facts[p], rebuild[p], ctx, self.modules.get(p)
            )
            self.node_ops += nodes
            self.edge_ops += edges
        for p in r.deleted:
            node = self.modules.get(p)
            if node is not None:
                nodes, edges = self._writer().retire_file(self.store, node, p)
                self.node_ops += nodes
                self.edge_ops += edges
        unparsed = set(state.get("unparsed") or []) - set(todo) - set(r.deleted)
        unparsed |= {p for p in todo if not facts[p].parsed}
        r.unparsed = sorted(unparsed)
        ops: list[GraphOp] = [*self.node_ops, *self.edge_ops]
        summary_ids = list(state.get("summaries") or [])
        if summarise:
            from profiles.repo_scan.summaries import plan_summaries

            summaries = plan_summaries(ctx, facts, {p: derived(f, ctx) for p, f in facts.items()})
            ops += self._writer().summary_ops(summaries)
            summary_ids = [s.id for s in summaries]
        elif r.added and summary_ids:
            ops += self._writer().stale_for_new(self.repo, r.added, set(summary_ids))
        touches = 0
        if self.request.link_commits and self.listing.git:
            from profiles.repo_scan.links import touches_ops

            links = touches_ops(self.store, self.root, self.repo, set(sources))
            ops += links
            touches = r.touches = len(links)
        revive = repo_node is not None and repo_node.lifecycle == "retired"
        if ops or repo_node is None or revive or state.get("extractor") != reread.EXTRACTOR:
            new_state = {
                **state,
                "extractor": reread.EXTRACTOR,
                "repo": self.repo,
                "root": str(self.root),
                "git": self.listing.git,
                "manifest": {p: sources[p].digest for p in sorted(sources)},
                "context": (
                    cache_of(ctx)
                    if (full or summarise or "context" not in state)
                    else state["context"]
                ),
                "summaries": summary_ids,
                "unparsed": r.unparsed,
                "head": self.listing.head,
                "touches": int(state.get("touches") or 0) + touches,
            }
            new_state = dict(sorted(new_state.items()))  # hashing needs no re-sort
            before = repo_node.lifecycle if repo_node is not None else None
            node_op = self._writer().repo_node(
                self.repo, str(self.root), new_state, len(sources), before
            )
            ops.insert(0, node_op)
        # keyed on HEAD: written only when HEAD moved, never forces the repo node
        head = self.listing.head if self.listing.git else None
        ops += history_ops(self.store, self.repo, self.root, head, self.request.history)
        if ops:
            result = self._writer().apply(self.store, ops, self.repo)
            r.receipts += len(result.receipts)
            r.nodes_written += result.nodes_written
            r.edges_written += result.edges_written
            r.summaries_written += result.summaries_written
        stale = _stale_docs(self.store, summary_ids)  # the repo node's, as written
        r.stale_summaries = sorted(stale)
        r.stale_targets = stale
        if r.unparsed:
            r.notices.append(
                f"{plural(len(r.unparsed), 'file')} not parsed: " + ", ".join(r.unparsed[:10])
            )
        return r


def _facts_of(node: NodeView) -> FileFacts:
    from profiles.repo_scan.facts import FileFacts

    return FileFacts.from_json(node.attributes["facts"])


def stale_summaries(store: Store, repo: str) -> list[str]:
    rid = repo_node_id(repo)
    with store.reader() as reader:
        node = reader.get_nodes([rid]).get(rid)
    return _stale(store, list(node.attributes.get("summaries") or []) if node else [])


def _stale(store: Store, summary_ids: list[str]) -> list[str]:
    return sorted(_stale_docs(store, summary_ids))


def _stale_docs(store: Store, summary_ids: list[str]) -> dict[str, str]:
    """The stale ones of ``summary_ids``: id -> target."""
    with store.reader() as reader:
        found = reader.get_summaries(summary_ids)
    return {s.id: s.target for s in found.values() if s.freshness.state.value == "stale"}


def scan_repo(store: Store, request: ScanRequest) -> ScanResult:
    """Scan ``request.path`` into ``store`` (incremental; see the module doc)."""
    return _Scan(store, request).run()
