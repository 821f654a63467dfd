"""The voice index: a side table over voice message nodes, kept in step with them.

``voice_index`` holds one row per live voice message node, keyed by ``nodes.rowid`` (so
it joins 1:1 with ``node_fts``), with the columns the read path filters and ranks
on. It is maintained inside the same transaction as every node write (inserted
rows by ``NEW_NODE_ROWS``, updates and deletes by triggers on ``nodes``), so the
index can never disagree with the canonical store after a commit. ``reindex``
rebuilds it (and the node FTS) from the store; ``import_vault`` rebuilds
message nodes from voice pages alone.

Versions 5-9 are reserved for this module (``memgraph.store.schema``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from memgraph.errors import MemgraphError, NotFound
from memgraph.store.schema import Migration
from profiles.voice.search import connection_of
from profiles.voice.substring import MIGRATION_SQL as SUBSTRING_MIGRATION
from profiles.voice.substring import NEW_NODE_ROW as SUBSTRING_NEW_NODE_ROW
from profiles.voice.substring import REBUILD_SQL as SUBSTRING_REBUILD

if TYPE_CHECKING:
    from memgraph.documents import MemoryNode
    from memgraph.store import Store


def _text(path: str, src: str) -> str:
    # Attributes are free JSON; a non-string value must not poison the index.
    return (
        f"CASE WHEN json_type({src}.doc, '$.attributes.{path}') = 'text' "
        f"THEN json_extract({src}.doc, '$.attributes.{path}') END"
    )


def _columns(src: str) -> str:
    """The index row for node alias ``src`` (``new`` in triggers, ``n`` in reindex)."""
    return f"""{src}.rowid, {src}.id,
        coalesce({_text("session_id", src)}, ''),
        coalesce({_text("constellation", src)}, ''),
        coalesce({_text("project", src)}, ''),
        coalesce({src}.valid_from, ''),
        coalesce(julianday({src}.valid_from), 0.0),
        {src}.ingested_at,
        {_text("classification", src)},
        CASE WHEN json_type({src}.doc, '$.attributes.confidence') IN ('real', 'integer')
             THEN json_extract({src}.doc, '$.attributes.confidence') END,
        {_text("voice_page", src)},
        {src}.lifecycle"""


_INSERT = """INSERT OR REPLACE INTO voice_index(rowid, node_id, session_id, constellation,
    project, ts, day, ingested_at, classification, confidence, voice_page, lifecycle)"""

# Retired messages are withdrawn: they leave the index (smaller, and no filter on
# every query or stats scan).
_IS_MESSAGE = "{0}.profile = 'voice' AND {0}.kind = 'message' AND {0}.lifecycle != 'retired'"

MIGRATIONS: list[Migration] = [
    Migration(
        5,
        "voice_index: voice message side table (filters, ranking) kept by triggers on nodes",
        f"""
        CREATE TABLE voice_index (
            rowid INTEGER PRIMARY KEY,
            node_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            constellation TEXT NOT NULL,
            project TEXT NOT NULL,
            ts TEXT NOT NULL,
            day REAL NOT NULL,
            ingested_at TEXT,
            classification TEXT,
            confidence REAL,
            voice_page TEXT,
            lifecycle TEXT NOT NULL
        );
        CREATE INDEX voice_index_ts ON voice_index(ts);
        CREATE INDEX voice_index_session ON voice_index(session_id, ts);
        CREATE INDEX voice_index_project ON voice_index(project, ts);
        CREATE INDEX voice_index_constellation ON voice_index(constellation, ts);
        CREATE INDEX voice_index_class ON voice_index(classification);
        CREATE INDEX voice_index_page ON voice_index(voice_page);
        CREATE TRIGGER voice_index_ai AFTER INSERT ON nodes
            WHEN {_IS_MESSAGE.format("new")} BEGIN
            {_INSERT} SELECT {_columns("new")};
        END;
        CREATE TRIGGER voice_index_au AFTER UPDATE ON nodes BEGIN
            DELETE FROM voice_index WHERE rowid = old.rowid;
            {_INSERT} SELECT {_columns("new")} WHERE {_IS_MESSAGE.format("new")};
        END;
        CREATE TRIGGER voice_index_ad AFTER DELETE ON nodes BEGIN
            DELETE FROM voice_index WHERE rowid = old.rowid;
        END;
        {_INSERT} SELECT {_columns("n")} FROM nodes AS n WHERE {_IS_MESSAGE.format("n")};
        """,
    ),
    Migration(
        6,
        "voice_index rows for inserted nodes are added set-based by the store",
        "DROP TRIGGER IF EXISTS voice_index_ai;",
    ),
    Migration(
        7,
        "voice_tri: trigram index of voice message text (substring and CJK search)",
        SUBSTRING_MIGRATION,
    ),
]

# Inserted node rows above ``?`` (see memgraph.store.schema.NEW_NODE_ROWS); the
# unary ``+`` keeps the planner on that rowid range, off the profile index.
NEW_NODE_ROWS: tuple[str, ...] = (
    f"""{_INSERT} SELECT {_columns("n")} FROM nodes AS n WHERE n.rowid > ?
        AND +n.profile = 'voice' AND +n.kind = 'message' AND n.lifecycle != 'retired'""",
    SUBSTRING_NEW_NODE_ROW,
)


@dataclass(frozen=True)
class ReindexReport:
    messages: int
    nodes: int


def reindex(store: Store) -> ReindexReport:
    """Rebuild ``voice_index`` and the node FTS from the canonical node rows."""
    with store.transaction() as txn:
        conn = connection_of(txn)
        conn.execute("DELETE FROM voice_index")
        conn.execute(
            f"{_INSERT} SELECT {_columns('n')} FROM nodes AS n WHERE {_IS_MESSAGE.format('n')}"
        )
        # 'rebuild' re-reads the external content table (nodes): an index op, no graph write.
        conn.execute("INSERT INTO node_fts(node_fts) VALUES ('rebuild')")
        for statement in SUBSTRING_REBUILD:
            conn.execute(statement)
        messages = conn.execute("SELECT count(*) FROM voice_index").fetchone()[0]
        nodes = conn.execute("SELECT count(*) FROM nodes").fetchone()[0]
    return ReindexReport(messages=int(messages), nodes=int(nodes))


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
            yield page, PurePosixPath(const_dir.name, "voice", page.name)


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
        try:
            text = path.read_text(encoding="utf-8")
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
        report.failed.append(f"{rel}: {' '.join(str(exc).split())}")
        return
    report.nodes_written += result.nodes_written
    report.pages += 1
    report.messages += _messages(nodes)
