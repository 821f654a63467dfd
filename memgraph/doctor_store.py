"""``memgraph doctor``'s checks of the store and of what it holds: the store (a
SQLite file or a PostgreSQL server) opens read-only (never created or migrated
here), a file passes SQLite's ``quick_check``, and it has this memgraph's schema;
the vault is there when the store has pages; the capture registry and the ingest
ledger's drops; subject-vector files of repos the store no longer has (in its own
folder), the vector caches of a home from before per-store folders and the Qdrant
collections of a home from before per-store collections. Each adds
its ``Check`` to the report (``memgraph.doctor``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memgraph.doctor import OK, PROBLEM, WARN, DoctorReport, one_line, shown_time


def check_store(report: DoctorReport, location: str) -> Any:
    """The store at ``location``, opened read-only for the checks below (None when it
    cannot be: the reason is reported)."""
    from memgraph.config import is_url
    from memgraph.errors import MemgraphError

    if is_url(location):
        return _check_postgres(report, location)
    path = Path(location)
    if not path.exists():
        folder = path.parent
        if folder.exists() and not folder.is_dir():  # the fix below could not create it
            report.add(
                "store",
                PROBLEM,
                f"{folder} (the store's folder) is not a directory",
                "set MEMGRAPH_HOME / home (or --home) to a directory",
            )
            return None
        report.add("store", WARN, f"no store yet at {path}", "memgraph voice --backfill")
        return None
    from memgraph.store.schema import all_migrations
    from memgraph.store.sqlite import SQLiteStore

    move = f"restore a copy made by `memgraph backup`, or move {path} away and rerun "
    move += "`memgraph voice --backfill`"
    try:
        store = SQLiteStore(path, readonly=True)  # read-only: never migrated here
    except (MemgraphError, OSError, Exception) as exc:
        report.add("store", PROBLEM, f"{path} cannot be opened: {one_line(exc)}", move)
        return None
    try:
        verdict = store.integrity()
        have = max(store.schema_versions(), default=0)
    except Exception as exc:
        store.close()
        report.add("store", PROBLEM, f"{path} cannot be read: {one_line(exc)}", move)
        return None
    latest = max(m.version for m in all_migrations())
    if verdict != "ok":
        report.add("store", PROBLEM, f"{path}: quick_check: {verdict}", move)
    elif have < latest:
        report.add(
            "store",
            WARN,
            f"{path}: schema {have}, this memgraph writes {latest} (migrated on the next write)",
            "memgraph voice --backfill",
        )
    else:
        report.add("store", OK, f"{path}: quick_check ok, schema {have}")
    return store


def check_vault(report: DoctorReport, vault: Path, store: Any) -> None:
    if vault.is_dir():
        report.add("vault", OK, str(vault))
        if store is not None:
            _check_pages(report, vault, store)
        return
    pages = 0
    if store is not None:
        try:
            from profiles.voice.search import voice_stats

            pages = voice_stats(store).pages
        except Exception:
            pages = 0
    if vault.exists():
        report.add("vault", PROBLEM, f"{vault} is not a directory", "set MEMGRAPH_VAULT or vault")
    elif pages:
        report.add(
            "vault",
            PROBLEM,
            f"{vault} is missing but the store has {pages} voice page(s)",
            "memgraph render  (or point MEMGRAPH_VAULT / vault at the vault)",
        )
    else:
        report.add("vault", WARN, f"{vault} does not exist yet", "memgraph voice --backfill")


def _check_pages(report: DoctorReport, vault: Path, store: Any) -> None:
    """Voice pages the store wrote that are gone from the vault (a person deleted one,
    a sync tool lost it): ``render`` writes them again. A page ``forget`` removed is
    no loss (its session is a tombstone), and a registry path that is not a plain
    relative one is not looked up outside the vault."""
    from pathlib import PurePosixPath

    from memgraph.store.interfaces import indexes
    from profiles.voice.nodes import session_node_id

    gone: dict[str, str] = {}  # session id -> page
    for row in indexes(store).registry.rows():
        rel = PurePosixPath(row.page or "")
        if row.status != "paged" or not row.session_id or rel.is_absolute() or ".." in rel.parts:
            continue
        if str(rel) not in ("", ".") and not (vault / rel).is_file():
            gone[row.session_id] = str(rel)
    if not gone:
        return
    with store.reader() as reader:
        sessions = reader.get_nodes([session_node_id(s) for s in gone])
    lost = sorted(
        page
        for sid, page in gone.items()
        if (node := sessions.get(session_node_id(sid))) is None or node.lifecycle != "forgotten"
    )
    if lost:
        report.add(
            "pages",
            WARN,
            f"{len(lost)} voice page(s) the store wrote are gone from the vault: "
            + ", ".join(lost[:3])
            + (" ..." if len(lost) > 3 else ""),
            "memgraph render  (writes them again from the store)",
        )


def check_capture(report: DoctorReport, store: Any) -> None:
    if store is None:
        return
    from memgraph.errors import MemgraphError
    from profiles.voice.backfill import registry_rows
    from profiles.voice.ledger import ledger_entries, summary_line, totals_of

    try:
        rows = registry_rows(store)
        totals = totals_of(ledger_entries(store))
    except (MemgraphError, Exception) as exc:
        report.add("capture", PROBLEM, f"cannot read the registry: {one_line(exc)}")
        return
    if not rows:
        report.add("capture", WARN, "nothing captured yet", "memgraph voice --backfill")
    else:
        last = max(rows, key=lambda r: r.processed_at)
        paged = sum(1 for r in rows if r.status == "paged")
        report.add(
            "capture",
            OK,
            f"last capture {shown_time(last.processed_at)} ({Path(last.path).name}, "
            f"{last.status}); {paged}/{len(rows)} transcripts paged",
        )
    errors = [r for r in rows if r.status == "error"]
    if errors:
        report.add(
            "capture",
            WARN,
            f"{len(errors)} transcript(s) failed to capture, e.g. {errors[-1].path}: "
            f"{errors[-1].reason}",
            "memgraph voice --backfill  (retries them)",
        )
    line = summary_line(totals).removeprefix("ledger: ")  # the check's name says it
    if totals.get("dropped") or totals.get("files_not_read"):
        report.add("ledger", WARN, line, "memgraph probe --json  (lists them)")
    elif rows:
        report.add("ledger", OK, line)


def check_repo_vectors(report: DoctorReport, home: Path, store: Any) -> None:
    """Subject-vector files (``memgraph repo scan``) of repos the store no longer has,
    in the store's own folder only (by its id, or its folder from before the id
    while that is the one it reads): another store's files (or the flat files of a
    home from before, which any store of the home may still read) are not its to judge."""
    import shlex

    from context_cut.repo_vectors import orphaned_files
    from memgraph.home_dirs import REPO_VECTORS, store_dir

    mine = store_dir(home, REPO_VECTORS, store) if store is not None else None
    found = orphaned_files(store, mine) if mine is not None else []
    if found:
        sizes = ", ".join(f"{p.name} ({n:,} bytes)" for p, n in found[:5])
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        report.add(
            "repo-vectors",
            WARN,
            f"{len(found)} subject-vector file(s) of repos no longer in the store, "
            f"{sum(n for _p, n in found):,} bytes: {sizes}{more}",
            "rm -- " + " ".join(shlex.quote(str(p)) for p, _n in found),
        )


def check_flat_caches(report: DoctorReport, home: Path, store: Any) -> None:
    """What the vector caches under ``home`` keep from before (``memgraph.home_dirs``):
    flat files from before each store had its own folder, and this store's folders
    from before it had an id. What this store's own folder has taken over (a file
    of the same name there: linked, or rewritten since) is listed with its removal;
    nothing of this store reads it. A flat file no folder of this store holds is
    only pointed at: a store of the home without a folder yet still reads it."""
    import shlex

    from memgraph.home_dirs import CACHES, earlier_dir, legacy_files, own_dir

    taken: list[Path] = []
    folders: list[Path] = []
    left: list[Path] = []
    for cache in CACHES:
        own = own_dir(home, cache, store) if store is not None else None
        mine = own if own is not None and own.is_dir() and not own.is_symlink() else None
        for path in legacy_files(home / cache):
            (taken if mine is not None and (mine / path.name).is_file() else left).append(path)
        earlier = earlier_dir(home, cache, store) if mine is not None else None
        if earlier is not None and earlier.is_dir() and not earlier.is_symlink():
            folders.append(earlier)
    if taken or folders:
        size = sum(p.lstat().st_size for p in taken) + sum(_size(f) for f in folders)
        what = [f"{len(taken)} flat file(s)"] if taken else []
        what += [f"{len(folders)} folder(s) of this store from before its id"] if folders else []
        fixes = ["rm -- " + " ".join(shlex.quote(str(p)) for p in taken)] if taken else []
        if folders:
            fixes.append("rm -r -- " + " ".join(shlex.quote(str(f)) for f in folders))
        report.add(
            "vector-caches",
            WARN,
            f"{' and '.join(what)} from before, {size:,} bytes, that this store's own cache "
            "folders have taken over (nothing of this store reads them; a store of this home "
            "without a folder yet, or an older memgraph, would embed again)",
            "; ".join(fixes),
        )
    if not left:
        return
    where = ", ".join(sorted({str(p.parent) for p in left}))
    report.add(
        "vector-caches",
        WARN,
        f"{len(left)} file(s) from before each store had its own cache folder, "
        f"{sum(p.lstat().st_size for p in left):,} bytes, in {where}: a store without a "
        "folder yet still reads them, and its next `memgraph index` / `memgraph repo scan` "
        "takes them over",
        "rm -- "
        + " ".join(shlex.quote(str(p)) for p in left)
        + "  (once every store this home is pointed at has run `memgraph index` "
        "and `memgraph repo scan`)",
    )


def check_shared_collections(report: DoctorReport, home: Path, settings: Any) -> None:
    """Qdrant collections of an embedded Qdrant (``qdrant_path``, default
    ``<home>/qdrant``) named before each store had its own
    (``context_cut.vector_projection.shared_collection``): every store of the home
    wrote to them, so none can claim them and nothing reads them any more. Found by
    their files (an Edge shard and its record, a qdrant-client collection folder),
    so no engine is imported or opened. A server's (``qdrant_url``) are listed by
    asking it: ``check_server_collections``."""
    import shlex

    from context_cut.vector_projection import shared_collection

    if settings.qdrant_url:
        check_server_collections(report, settings.qdrant_url)
        return
    root = Path(settings.qdrant_path or home / "qdrant")
    edge = [
        n
        for n in _names(root, lambda p: p.suffix == ".json" and p.is_file())
        if shared_collection(n) and (root / n).is_dir()
    ]
    local = [n for n in _names(root / "collection", Path.is_dir) if shared_collection(n)]
    if not edge and not local:
        return
    paths = [p for n in edge for p in (root / n, root / f"{n}.json", root / f".{n}.lock")]
    size = sum(_size(p) for p in [*paths, *(root / "collection" / n for n in local)])
    fixes = []
    if edge:
        fixes.append("rm -r -- " + " ".join(shlex.quote(str(p)) for p in paths if p.exists()))
    if local:
        code = (
            f"from qdrant_client import QdrantClient; c = QdrantClient(path={str(root)!r}); "
            f"[c.delete_collection(n) for n in {local!r}]"
        )
        fixes.append(f"python3 -c {shlex.quote(code)}")
    report.add(
        "qdrant",
        WARN,
        f"{len(edge) + len(local)} collection(s) in {root} from before each store had its "
        f"own, {size:,} bytes: {', '.join(sorted({*edge, *local}))}; no store reads them "
        "any more (`memgraph index` fills the store's own, re-embedding its documents); "
        "remove them with no memgraph command running on this home",
        "; ".join(fixes),
    )


def _names(folder: Path, keep: Any) -> list[str]:
    try:
        return sorted(p.stem for p in folder.iterdir() if not p.is_symlink() and keep(p))
    except OSError:
        return []


def _size(path: Path) -> int:
    try:
        if path.is_symlink() or not path.is_dir():
            return path.lstat().st_size if path.exists() else 0
        return sum(f.lstat().st_size for f in path.rglob("*") if f.is_file())
    except OSError:
        return 0


def _check_postgres(report: DoctorReport, url: str) -> Any:
    """A PostgreSQL store, opened read-only: reachable, holds a store, its schema.
    (The server keeps its own pages sound: there is no ``quick_check`` to run.)"""
    from memgraph.errors import MemgraphError, StoreMissing
    from memgraph.store.postgres import open_postgres, redact
    from memgraph.store.postgres.schema import all_migrations

    where = redact(url)
    try:
        store = open_postgres(url, readonly=True)  # never created or migrated here
    except StoreMissing:
        report.add("store", WARN, f"no memgraph store yet in {where}", "memgraph voice --backfill")
        return None
    except MemgraphError as exc:
        fix = "check MEMGRAPH_STORE (or store in the config file) and that the server is up"
        report.add("store", PROBLEM, one_line(exc), fix)
        return None
    try:
        have = max(store.schema_versions(), default=0)
    except MemgraphError as exc:
        store.close()
        report.add("store", PROBLEM, one_line(exc), "memgraph stats  (names the failing query)")
        return None
    latest = max(m.version for m in all_migrations())
    if have < latest:
        report.add(
            "store",
            WARN,
            f"{where}: schema {have}, this memgraph writes {latest} (migrated on the next write)",
            "memgraph voice --backfill",
        )
    else:
        report.add("store", OK, f"{where}: schema {have}")
    return store


def check_server_collections(report: DoctorReport, url: str) -> None:
    """The Qdrant server's collections named before each store had its own (every
    store of the fleet wrote to them; nothing of this version reads them): listed,
    with the HTTP call that deletes each, to run once every machine of the fleet
    runs this version (an older one still reads and writes them). The server is
    asked once (qdrant-client, its timeout); not reached, a warning says so."""
    import shlex
    from urllib.parse import urlsplit, urlunsplit

    from context_cut.vector_index import VectorIndex
    from context_cut.vector_projection import shared_collection
    from memgraph.errors import MissingExtra

    parts = urlsplit(url)
    shown = urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1], query=""))
    try:
        index = VectorIndex.open(url=url)
    except MissingExtra:
        return  # the extras check says what to install
    except Exception as exc:
        report.add("qdrant", WARN, f"Qdrant server {shown} not opened: {one_line(exc)}")
        return
    try:
        names = index.backend.collections()
    except Exception as exc:
        report.add(
            "qdrant",
            WARN,
            f"Qdrant server {shown} not reached ({one_line(exc)}): its collections from "
            "before each store had its own were not looked for",
        )
        return
    finally:
        index.close()
    shared = [n for n in names if shared_collection(n)]  # [a-z0-9_] only: safe in a command
    if not shared:
        return
    base = shown.rstrip("/")
    report.add(
        "qdrant",
        WARN,
        f"{len(shared)} collection(s) on the Qdrant server {shown} from before each store "
        f"had its own: {', '.join(shared)}; no store of this memgraph reads them (an older "
        "memgraph on another machine of the fleet still does: upgrade every machine first)",
        "; ".join(f"curl -X DELETE {shlex.quote(f'{base}/collections/{n}')}" for n in shared),
    )
