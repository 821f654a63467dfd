"""The repo cut over a scanned repository: which modules a task is about.

1. Text match: BM25 over each module's path, title, docstring and public names
   (identifiers split at ``_``/camelCase/``.``/``/``), from the module nodes,
   plus a boost for modules the text names as code (`` `core.py` ``,
   ``pkg.mod``, ``confirm()``, ``@option``, ``snake_name``: ``mentions.py``)
   and BM25 over each module's past commit subjects (``repo_history.py``); the
   words of a leading ``scope:`` prefix weigh more, and a text matching fewer
   than 10 modules is filled up with recently changed ones (``repo_query.py``).
2. Centrality: personalised PageRank over the import graph (edges both ways:
   a module's neighbours in either direction share its relevance), seeded on
   the text matches. ``networkx.pagerank`` needs scipy; this is the same power
   iteration in plain Python (the graph is small: one node per file).
3. Summary-or-descent: a fresh package summary with enough confidence stands in
   for its modules unless the package holds a top match (then its modules are
   shown); a stale summary is never used, and the packet warns about it.
4. Every module comes with file:line anchors (the file, and the lines of the
   public names the task mentions), and, when commits touching it are linked to
   activity windows, the operator's most relevant words from those windows.
"""

from __future__ import annotations

import shlex
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from context_cut.budget import Bundle, Packer, estimate_tokens, node_text
from context_cut.cuts import get_cut
from context_cut.packet import node_caveats
from context_cut.repo_history import history_node
from context_cut.repo_index import ModuleIndex
from context_cut.repo_model import model_scores
from context_cut.repo_nearest import NEAREST_WEIGHT, nearest_files, prime
from context_cut.repo_query import fill_up, recent_notice
from memgraph.documents import (
    AnchorKind,
    CutName,
    MemoryAnchor,
    MemoryContextPacket,
    MemoryContextQuery,
    MemoryNode,
    MemorySummary,
    evolve,
    utcnow,
)
from memgraph.errors import NotFound
from memgraph.ids import anchor_id, edge_id
from memgraph.store.protocol import Store
from memgraph.terminal import plural
from profiles.repo_scan.facts import terms

if TYPE_CHECKING:
    from context_cut.embedders import Embedder

MENTION_WEIGHT = 1.0  # the hand-set cut's mention weight (the offline bench replays that cut)
# A package summary stands in for its modules only when the task's words matched at
# least this share of what it covers: one covering 30 files for the 2 the task matched
# hid their paths and file:line spots behind 28 nobody asked about. Truth files shown
# as modules in a 1,500 / 4,000-token packet (bench/bench_repo_packet.py, newest 150
# qualifying commits, s40): this project 0.809 -> 0.909 / 0.837 -> 0.960, click, httpx,
# rich +1.3 to +2.7 at 4,000, requests -1.3 / +3.9; "shown or covered by a summary"
# -0.2 to -1.8 (requests -4.9 at 4,000: one summary of its whole package covered it all).
SUMMARY_MIN_SHARE = 0.5
# ... and never for one of the cut's top HOT_RANKS modules: the answer recall@5 scores
# was hidden behind its package's summary whenever its score was under 0.8 x the best
# (ky: "retry with exponential backoff on 429 status" ranked core/Ky.ts 3rd and showed
# "package source/core (3 files)"). Shown at 1,500 / 4,000 tokens, same bench: this
# project 0.912 -> 0.927 / 0.968 -> 0.981, httpx 0.742 -> 0.882 / 0.816 -> 0.967, ky
# 0.749 -> 0.863 / 0.824 -> 0.944, clap 0.779 -> 0.830, requests 0.532 -> 0.578; covered
# by a summary or shown -0.6 to -6 (requests), summaries standing in for the tail only.
HOT_RANKS = 5
TEST_WEIGHT = 0.5  # tests are seams (shown through test_seam nodes), rarely the task's target


class RepoCutRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    repo_path: Path | None = None
    repo: str | None = None  # repo key; default from the path's folder name
    budget_tokens: int = Field(default=2000, gt=0)
    # candidates considered (the CLI's --limit; MCP takes this default): the budget, not
    # this, should end a packet (10 left 4,000-token packets at 10 modules)
    limit: int = Field(default=50, gt=0, le=200)
    summary_confidence_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    voice: bool = True


@dataclass
class RepoCut:
    packet: MemoryContextPacket
    ranked: list[tuple[str, float]] = field(default_factory=list)  # (path, score), best first


@dataclass(frozen=True)
class RankOptions:
    """How ``ranked_matches`` ranks. ``mentions`` / ``history`` False switch those
    signals off (the benches' ablations); ``fallback`` False leaves out every module
    no word matched instead of answering a text that matches nothing with the most
    recently changed modules; a MiniLM ``embedder`` adds the files of the past
    commits worded like the text (``repo_nearest.py``)."""

    mentions: bool = True
    history: bool = True
    fallback: bool = True
    embedder: Embedder | None = None


def rank_modules(
    modules: dict[str, MemoryNode] | ModuleIndex, text: str, options: RankOptions | None = None
) -> list[tuple[str, float]]:
    """(path, score) best first (``ranked_matches`` without the matched set)."""
    return ranked_matches(modules, text, options)[0]


def ranked_matches(
    modules: dict[str, MemoryNode] | ModuleIndex, text: str, options: RankOptions | None = None
) -> tuple[list[tuple[str, float]], set[str]]:
    """(path, score) best first by the fitted model (``repo_model.py``: text,
    clause, PageRank, mentions, symbol names, history and the recency/size
    priors), and the modules some word of ``text`` matched. A text matching
    nothing is answered with the most recently changed modules (score 0,
    ``repo_query.py``) unless ``options.fallback`` is off. With a MiniLM
    ``options.embedder``, plus ``NEAREST_WEIGHT x`` the files of the past commits
    worded like ``text`` (``repo_nearest.py``)."""
    opts = options or RankOptions()
    fallback, embedder = opts.fallback, opts.embedder
    index = modules if isinstance(modules, ModuleIndex) else ModuleIndex.of(modules)
    if not index.tf:
        return [], set()
    scores, matched = model_scores(index, text, opts.mentions, opts.history)
    if not matched:
        return (fill_up([], index.recent) if fallback else []), set()
    near = nearest_files(embedder, text, index.commits, set(index.tf)) if embedder else {}
    matched |= set(near)
    ranked = []
    for p in index.tf:
        if not fallback and p not in matched:
            continue
        s = (scores.get(p, 0.0) + NEAREST_WEIGHT * near.get(p, 0.0)) * (
            TEST_WEIGHT if p in index.tests else 1.0
        )
        if s > 0:
            ranked.append((p, s))
    ranked.sort(key=lambda ps: (-ps[1], ps[0]))
    return ranked, matched


_INDEX_CACHE: dict[tuple[int, str, str, str, str], ModuleIndex] = {}


def _index(store: Store, repo: str, repo_node: MemoryNode, paths: list[str]) -> ModuleIndex:
    """The module index for this version of the repo and history nodes (cached)."""
    from profiles.repo_scan.graph import module_id

    past = history_node(store, repo)
    moved = past.updated_at.isoformat() if past is not None else ""
    key = (id(store), store.location, repo_node.id, repo_node.updated_at.isoformat(), moved)
    found = _INDEX_CACHE.get(key)
    if found is None:
        with store.reader() as reader:
            nodes = reader.get_nodes([module_id(repo, p) for p in paths])
        modules = {str(n.attributes["path"]): n for n in nodes.values() if n.lifecycle != "retired"}
        commits = list(past.attributes.get("commits") or []) if past is not None else None
        found = ModuleIndex.of(modules, commits)
        if len(_INDEX_CACHE) >= 8:
            _INDEX_CACHE.pop(next(iter(_INDEX_CACHE)))
        _INDEX_CACHE[key] = found
    return found


def _slim(node: MemoryNode) -> MemoryNode:
    """The module node as a packet shows it (no stored facts)."""
    keep = {k: v for k, v in node.attributes.items() if k in ("repo", "path", "lang", "lines")}
    return evolve(node, {"attributes": keep})


def _slim_summary(summary: MemorySummary) -> MemorySummary:
    """A package summary as a packet shows it: without ``source_hashes`` (the covered
    id -> content hash map the store's staleness check reads; its verdict is the
    summary's ``freshness``). In a --json packet the map was ~40 % of a package
    summary's tokens or more (this project's 43-file tests/profiles/voice: 2,164 -> 961)."""
    return summary.model_copy(update={"source_hashes": {}})


def _symbol_anchors(node: MemoryNode, words: set[str]) -> list[MemoryAnchor]:
    facts: dict[str, Any] = node.attributes.get("facts") or {}
    path = str(node.attributes.get("path"))
    out = []
    for name, _kind, line, end in facts.get("symbols", []):
        if words & set(terms(str(name))):
            out.append(
                MemoryAnchor(
                    id=anchor_id("file", path, str(line), str(end)),
                    kind=AnchorKind.file,
                    ref=path,
                    line=int(line),
                    content_hash=facts.get("digest"),
                    sha=facts.get("sha"),
                    label=f"{path}:{line}-{end} {name}",
                )
            )
    return out[:3]


def _folder(path: str) -> str:
    folder = PurePosixPath(path).parent.as_posix()
    return "" if folder == "." else folder


def _load(store: Store, request: RepoCutRequest) -> tuple[str, MemoryNode]:
    from profiles.repo_scan.graph import repo_node_id

    where = "PATH"
    if request.repo:
        repo = request.repo
    elif request.repo_path is not None:
        from profiles.repo_scan.files import check_root
        from profiles.repo_scan.keys import find_repo_key

        root = check_root(request.repo_path)
        repo = find_repo_key(store, root)
        where = shlex.quote(str(root))  # the command to copy, as `repo status` names it
    else:
        raise NotFound("the repo cut needs --repo PATH (a scanned repository)")
    rid = repo_node_id(repo)
    with store.reader() as reader:
        node = reader.get_nodes([rid]).get(rid)
    if node is None:
        raise NotFound(
            f"repo {repo!r} has not been scanned: run `memgraph repo scan {where}` first"
        )
    return repo, node


def repo_cut(
    store: Store,
    request: RepoCutRequest,
    embedder: Embedder | None = None,
    vectors_dir: Path | None = None,
) -> RepoCut:
    """The repo cut's packet and ranking; ``embedder`` (the configured one, if any)
    adds the nearest-past-commit signal when it is MiniLM (``repo_nearest.py``),
    with the subject vectors the scan stored in ``vectors_dir`` (``repo_vectors.py``)."""
    from profiles.repo_scan.graph import module_id
    from profiles.repo_scan.summaries import package_summary_id

    repo, repo_node = _load(store, request)
    paths = sorted(repo_node.attributes.get("manifest") or {})
    summary_ids = list(repo_node.attributes.get("summaries") or [])
    index = _index(store, repo, repo_node, paths)
    ignored = prime(embedder, index.commits, vectors_dir, repo) if vectors_dir else None
    ranked, matched = ranked_matches(index, request.text, RankOptions(embedder=embedder))
    top = ranked[: request.limit]
    with store.reader() as reader:
        found = reader.get_nodes([module_id(repo, p) for p, _s in top])
        summaries = reader.get_summaries(summary_ids)
    modules = {str(n.attributes["path"]): n for n in found.values()}
    query = MemoryContextQuery(
        text=request.text,
        cut=CutName.repo,
        budget_tokens=request.budget_tokens,
        domain_id=f"repo:{repo}",
        summary_confidence_threshold=request.summary_confidence_threshold,
        limit=request.limit,
    )
    packet = MemoryContextPacket(query=query, ingested_at=utcnow())
    packer = Packer(packet, request.budget_tokens)
    best = top[0][1] if top else 0.0
    answer = {p for p, _s in top[:HOT_RANKS]}  # shown as themselves, whatever the score
    by_folder: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for p, s in top:
        by_folder[_folder(p)].append((p, s))
    warnings: list[str] = []
    units: list[tuple[float, MemorySummary | None, str | None]] = []
    files_in = Counter(p.rpartition("/")[0] for p in paths)  # a package summary's files
    for folder, members in by_folder.items():
        summary = summaries.get(package_summary_id(repo, folder))
        hot = max(s for _p, s in members) >= 0.8 * best or any(p in answer for p, _s in members)
        usable = (
            summary is not None
            and summary.freshness.state.value == "fresh"
            and summary.confidence >= request.summary_confidence_threshold
        )
        if summary is not None and summary.freshness.state.value == "stale":
            warnings.append(
                f"stale summary: {summary.id} «{summary.target}» covers changed sources "
                f"({', '.join(summary.freshness.stale_ids[:3]) or summary.freshness.reason}); "
                "its modules are shown instead"
            )
        if (
            usable
            and summary is not None
            and not hot
            and len(members) > 1
            and sum(p in matched for p, _s in members) >= SUMMARY_MIN_SHARE * files_in[folder]
        ):
            units.append((max(s for _p, s in members), summary, None))
        else:
            units += [(s, None, p) for p, s in members]
    fallback_at = len(packet.notices)  # said once the modules that made it in are known
    if ignored:
        packet.notices.append(ignored)
    unparsed = list(repo_node.attributes.get("unparsed") or [])
    if unparsed:
        packet.notices.append(
            f"{plural(len(unparsed), 'file')} not parsed (module nodes only): "
            + ", ".join(unparsed[:8])
        )
    spec = get_cut(CutName.repo)
    words = set(terms(request.text))
    shown: list[str] = []
    for rank, (_score, summary, path) in enumerate(sorted(units, key=lambda u: -u[0])):
        if rank == 1:  # after the top-ranked unit (see _stale_warnings)
            _stale_warnings(packer, warnings)
        if summary is not None:
            packer.add(Bundle(key=f"summary:{summary.id}", summary=_slim_summary(summary)))
            continue
        assert path is not None
        node = _slim(modules[path])
        if estimate_tokens(node_text(node)) > packer.left:
            packet.omitted.append(f"node:{node.id} ({path})")
            continue
        b = node_caveats(node, spec, [], {})
        b.seams = [s for s in b.seams if "not reviewed" in s][:1]
        b.anchors = [*node.anchors, *_symbol_anchors(modules[path], words)]
        if packer.add(b):
            shown.append(path)
    _stale_warnings(packer, warnings)  # fewer than two units: still said
    _moved_notice(packet, repo_node, shown)
    # Only the fallback modules that were packed: one the budget left out is not "shown".
    packet.notices[fallback_at:fallback_at] = recent_notice([p for p in shown if p not in matched])
    _import_edges(store, packer, repo, shown)
    if request.voice and shown and repo_node.attributes.get("touches"):
        from context_cut.repo_voice import operator_words

        for path, msg in operator_words(store, [module_id(repo, p) for p in shown[:5]], words):
            b = Bundle(key=f"voice:{msg.id}", node=msg)
            b.warnings.append(f"operator words linked to {path} through commits that touched it")
            packer.add(b)
    return RepoCut(packer.finish(), ranked)


def _stale_warnings(packer: Packer, warnings: list[str]) -> None:
    """Pack the stale-summary warnings after the top-ranked unit, so at a small budget
    they never take the place of every module; one that does not fit is said as a
    notice (stderr on the CLI, ``notices`` over MCP) instead of nowhere."""
    for i, w in enumerate(warnings):
        if not packer.add(Bundle(key=f"warning:{i}", warnings=[w])):
            packer.packet.notices.append(f"{w} (not in the packet: over the budget)")
    warnings.clear()


def _moved_notice(packet: MemoryContextPacket, repo_node: MemoryNode, shown: list[str]) -> None:
    """A notice naming the shown files whose content is no longer what the scan read:
    their file:line anchors came from that read. Before, a file edited (or committed)
    since the scan was shown with its old lines and nothing said so."""
    from profiles.repo_scan.status import changed_since_scan

    root = repo_node.attributes.get("root")
    if not root or not shown:
        return
    moved = changed_since_scan(str(root), dict(repo_node.attributes.get("manifest") or {}), shown)
    if moved:
        packet.notices.append(
            f"{plural(len(moved), 'file')} changed since the last scan, its file:line spots "
            f"may have moved: {', '.join(moved[:8])} (run `memgraph repo scan {root}`)"
        )


def _import_edges(store: Store, packer: Packer, repo: str, shown: list[str]) -> None:
    from profiles.repo_scan.graph import module_id

    ids = [module_id(repo, p) for p in shown]
    wanted = [edge_id("imports", a, b) for a in ids for b in ids if a != b]
    with store.reader() as reader:
        edges = reader.get_edges(wanted)
    for e in sorted(edges.values(), key=lambda e: e.id):
        if e.lifecycle != "retired":
            packer.add_edge(e)
