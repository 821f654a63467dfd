"""Rebuilding the voice read path: ``reindex`` and ``import_vault``.

The voice index itself (one row per live voice message node, kept in step with
every node write) is the store's: ``memgraph.store.interfaces.VoiceIndex``,
implemented per backend under ``memgraph/store`` (SQLite:
``memgraph.store.sqlite_ext.voice_index``, schema versions 3-6). ``reindex``
rebuilds it (and the text index) from the store; ``import_vault`` rebuilds
message nodes from voice pages alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from memgraph.errors import MemgraphError, NotFound
from memgraph.inputs import non_utf8_name

if TYPE_CHECKING:
    from memgraph.documents import MemoryNode
    from memgraph.store import Store


@dataclass(frozen=True)
class ReindexReport:
    messages: int
    nodes: int


def reindex(store: Store) -> ReindexReport:
    """Rebuild the voice index and the node text index from the canonical node rows."""
    from memgraph.store.interfaces import indexes

    messages, nodes = indexes(store).voice.reindex()
    return ReindexReport(messages=messages, nodes=nodes)


# -- import-vault --------------------------------------------------------------


@dataclass(frozen=True)
class ImportVaultRequest:
    vault: Path
    batch_pages: int = 200  # pages per patch: one transaction each, bounded memory
    proposer: str = "import-vault"
    now: datetime | None = None


@dataclass
class ImportVaultReport:
    pages: int = 0
    messages: int = 0
    nodes_written: int = 0
    failed: list[str] = field(default_factory=list)  # "relpath: reason", one per bad page
    forgotten: int = 0  # messages `memgraph forget` removed: an old page does not restore them


def iter_voice_pages(vault: Path) -> Iterator[tuple[Path, PurePosixPath]]:
    """``<vault>/<constellation>/voice/*.md`` in a stable order, with vault-relative paths.

    Symlinks that leave the vault are not followed: a copied vault must not make
    us read arbitrary files.
    """
    root = vault.resolve()
    for const_dir in sorted(p for p in vault.iterdir() if p.is_dir()):
        voice_dir = const_dir / "voice"
        if not voice_dir.is_dir():
            continue
        for page in sorted(voice_dir.glob("*.md")):
            if not page.is_file() or not page.resolve().is_relative_to(root):
                continue
            if page.name.endswith(".conflict.md"):
                continue  # memgraph's render waiting beside a hand-edited page
            yield page, PurePosixPath(const_dir.name, "voice", page.name)


def _read_page(path: Path, vault: Path) -> str:
    """The text of a page ``iter_voice_pages`` found in the vault, read through
    ``open_under``: that listing checked where the page resolves, but a page (or a
    folder on its way) swapped for a link out of the vault after that check must
    not be read there. Newlines as ``Path.read_text`` gives them."""
    from memgraph.beneath import open_under

    with open(open_under(path, vault, what="voice pages"), encoding="utf-8") as fh:
        return fh.read()


def import_vault(
    store: Store,
    request: ImportVaultRequest,
    progress: Callable[[int], None] | None = None,
) -> ImportVaultReport:
    """Rebuild voice message (and session) nodes from the pages under ``request.vault``.

    Every page is parsed with the page parser (``profiles.voice.pages``); a page
    that does not parse, or whose nodes validation rejects, is listed in
    ``failed`` and skipped. Nothing else is touched; re-importing the same vault
    changes nothing.
    """
    from memgraph.documents import UpsertNode
    from memgraph.engine import apply_patch, new_patch
    from memgraph.errors import PatchRejected
    from profiles.voice.pages import parse_page
    from profiles.voice.views import nodes_from_page, session_node_from_page

    if not request.vault.is_dir():
        raise NotFound(f"no vault directory at {request.vault}")
    if request.batch_pages < 1:
        raise MemgraphError("batch_pages must be >= 1")
    report = ImportVaultReport()
    batch: list[tuple[PurePosixPath, list[MemoryNode]]] = []

    def flush() -> None:
        if not batch:
            return
        batch[:] = _without_forgotten(store, batch, report)  # one read for the batch
        nodes = [n for _, ns in batch for n in ns]
        ops = [UpsertNode(node=n) for n in nodes]
        patch = new_patch(list(ops), proposer=request.proposer, reason="import-vault")
        try:
            result = apply_patch(store, patch, request.now)
        except PatchRejected:
            # One bad page must not sink its batch: retry page by page.
            for rel, ns in batch:
                _apply_one(store, request, rel, ns, report)
        else:
            report.nodes_written += result.nodes_written
            report.pages += len(batch)
            report.messages += sum(_messages(ns) for _, ns in batch)
        if progress is not None:
            progress(len(batch))
        batch.clear()

    for path, rel in iter_voice_pages(request.vault):
        shown = non_utf8_name(rel)  # the nodes keep the page path: JSON cannot hold it
        if shown is not None:
            report.failed.append(f"{shown}: the page name is not UTF-8 (rename it)")
            continue
        try:
            text = _read_page(path, request.vault)
            page = parse_page(text, source=str(rel))
            # the session node too: it carries the page path and activity_window
            nodes = [*nodes_from_page(page, rel), session_node_from_page(page, rel)]
        except (OSError, UnicodeDecodeError, MemgraphError) as exc:
            report.failed.append(f"{rel}: {' '.join(str(exc).split())}")
            continue
        batch.append((rel, nodes))
        if len(batch) >= request.batch_pages:
            flush()
    flush()
    return report


def _without_forgotten(
    store: Store, batch: list[tuple[PurePosixPath, list[MemoryNode]]], report: ImportVaultReport
) -> list[tuple[PurePosixPath, list[MemoryNode]]]:
    """Each page's nodes minus the messages the store keeps as forgotten tombstones:
    a page from before `memgraph forget` (a backup, another machine's vault) must
    not bring their text back, nor lose the page's other messages to the profile
    law that refuses ``forgotten -> captured``."""
    with store.reader() as reader:
        stored = reader.get_nodes([n.id for _, ns in batch for n in ns])
    gone = {i for i, n in stored.items() if n.lifecycle == "forgotten"}
    if not gone:
        return batch
    report.forgotten += sum(1 for _, ns in batch for n in ns if n.id in gone)
    return [(rel, [n for n in ns if n.id not in gone]) for rel, ns in batch]


def _messages(nodes: list[MemoryNode]) -> int:
    return sum(1 for n in nodes if n.kind == "message")


def _apply_one(
    store: Store,
    request: ImportVaultRequest,
    rel: PurePosixPath,
    nodes: list[MemoryNode],
    report: ImportVaultReport,
) -> None:
    from memgraph.documents import UpsertNode
    from memgraph.engine import apply_patch, new_patch
    from memgraph.errors import PatchRejected

    patch = new_patch(
        [UpsertNode(node=n) for n in nodes], proposer=request.proposer, reason="import-vault"
    )
    try:
        result = apply_patch(store, patch, request.now)
    except PatchRejected as exc:
        said = [_page_problem(p, nodes) for p in exc.problems] or [str(exc)]
        more = f" (+{len(said) - 1} more)" if len(said) > 1 else ""
        report.failed.append(f"{rel}: {' '.join(said[0].split())}{more}")
        return
    report.nodes_written += result.nodes_written
    report.pages += 1
    report.messages += _messages(nodes)


def _page_problem(problem: str, nodes: list[MemoryNode]) -> str:
    """A page's rejection in the words of the page: without the engine's ``ops[1]
    upsert_node: n-...:`` path, and an edited message named by its time. Before:
    "ops[1] upsert_node: n-...: voice message text is verbatim and cannot be revised"."""
    import re

    law = re.sub(r"^ops\[\d+\] \w+: ", "", problem)
    node_id, _, why = law.partition(": ")
    node = next((n for n in nodes if n.id == node_id), None)
    if node is None:
        return law
    if "verbatim" in why and node.valid_from is not None:
        from memgraph.dates import show

        session = str(node.attributes.get("session_id") or "")
        return (
            f"the message of {show(node.valid_from)} differs from the stored one; voice "
            "messages stay verbatim, so the stored text stands (`memgraph render "
            f"{session[:8]}` writes the page from it)"
        )
    return why or law
