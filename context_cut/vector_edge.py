"""The Qdrant Edge backend (``qdrant-edge-py``): one in-process shard per
collection under a local directory; the embedded default engine of
``context_cut.vector_backends``.

Layout 2 (``EDGE_LAYOUT``, 2026-12-04): a shard has no write-ahead log (Edge
replayed up to ~64 MB of it on every load, half a 100k-point shard's load) and is
flushed after every write instead; one process holds it at a time through
``.<collection>.lock``; it searches with one thread and indexes only the payload
field queries filter on. Older shards open as they are, and ``relayout`` (run by
``memgraph index``) copies them into the current layout without re-embedding.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from context_cut.vector_backends import (
    _COLLECTION,
    OPTIMIZE_AT,
    VectorPoint,
    VectorQuery,
    _checked,
    _mismatch,
    _present,
    _reason,
    doc_id_of,
    point_id,
)
from memgraph.errors import BackendUnavailable, MemgraphError, MissingExtra

# payload fields an Edge shard indexes: only what queries filter on (an index on
# `doc` cost a reader ~15 ms of load at 100k points and served no query)
EDGE_INDEXED = ("profile",)
# the on-disk layout new Edge shards get; older ones are rewritten by `relayout`:
# 1 = default config (WAL, keyword indexes on doc and profile), 2 = WAL-less,
# one search thread, `profile` indexed only
EDGE_LAYOUT = 2


class EdgeBackend:
    """Qdrant Edge: ``<root>/<collection>/`` is one shard, ``<collection>.json``
    beside it records its dimension and layout (written atomically after the shard
    exists), ``.<collection>.lock`` is flocked while a process has it open.
    Shards are made in layout ``EDGE_LAYOUT`` (WAL-less, flushed after every
    write); older ones open as they are until ``relayout`` rewrites them."""

    def __init__(self, root: Path) -> None:
        import qdrant_edge

        self.q = qdrant_edge
        self.root = root
        self.location = str(root)
        self._shards: dict[str, Any] = {}
        self._written: set[str] = set()  # shards to flush on close
        self._wal: dict[str, bool] = {}  # whether a shard keeps a write-ahead log
        self._locks: dict[str, int] = {}  # collection -> fd holding its flock

    @classmethod
    def open(cls, root: Path) -> EdgeBackend:
        try:
            import qdrant_edge  # noqa: F401
        except ImportError:
            raise MissingExtra("qdrant", "qdrant-edge-py") from None
        if root.is_symlink() or (root.exists() and not root.is_dir()):
            raise BackendUnavailable(f"qdrant edge at {root}: not a directory")
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise BackendUnavailable(f"qdrant edge at {root}: {_reason(exc)}") from None
        return cls(root)

    def _dir(self, collection: str) -> Path:
        if not _COLLECTION.match(collection):
            raise MemgraphError(f"bad collection name {collection[:80]!r}")
        return self.root / collection

    def _meta(self, collection: str) -> Path:
        return self.root / f"{collection}.json"

    def _record(self, collection: str) -> dict[str, Any] | None:
        meta = self._meta(collection)
        if not meta.is_file() or meta.is_symlink() or not self._dir(collection).is_dir():
            return None
        try:
            record = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def dimension_of(self, collection: str) -> int | None:
        record = self._record(collection)
        value = record.get("dimension") if record is not None else None
        return int(value) if isinstance(value, int) and value > 0 else None

    def layout_of(self, collection: str) -> int:
        """The layout a shard was made with (1 when its record names none)."""
        layout = (self._record(collection) or {}).get("layout", 1)
        return layout if isinstance(layout, int) else 1

    def _keeps_wal(self, collection: str) -> bool:
        """Shards made before the WAL-less layout (no ``"wal"`` in their record)
        keep their log; new ones have none and are flushed after every write."""
        if collection not in self._wal:
            record = self._record(collection) or {}
            self._wal[collection] = record.get("wal") is not False
        return self._wal[collection]

    def _write(self, collection: str, what: str, op: Any) -> None:
        """Apply one update; durable when it returns: a shard with a WAL logged it,
        a WAL-less shard is flushed (so `sync_index` writes its manifests only
        after the vectors they describe are on disk)."""
        shard = self._shard(collection)
        self._written.add(collection)
        _checked(self.location, what, shard.update, op)
        if not self._keeps_wal(collection):
            _checked(self.location, "flush", shard.flush)

    def collections(self) -> list[str]:
        names = (p.stem for p in self.root.glob("*.json") if _COLLECTION.match(p.stem))
        return sorted(n for n in names if self.dimension_of(n) is not None)

    def _lock(self, collection: str) -> None:
        """Hold ``.<collection>.lock`` exclusively while the shard is open: one
        process per shard, as Edge's WAL lock gave (a WAL-less shard has none).
        Another holder makes this BackendUnavailable, so readers degrade to BM25."""
        if collection in self._locks:
            return
        try:
            import fcntl
        except ImportError:  # no flock on this platform: Edge's own locking only
            return
        where = self.root / f".{collection}.lock"
        try:
            fd = os.open(where, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            reason = _reason(exc)
            raise BackendUnavailable(f"qdrant at {self.location}: lock failed: {reason}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise BackendUnavailable(
                f"qdrant at {self.location}: load failed: shard {collection} is held "
                "by another process (a running `memgraph index`?)"
            ) from None
        self._locks[collection] = fd

    def _unlock(self, collection: str) -> None:
        fd = self._locks.pop(collection, None)
        if fd is not None:
            os.close(fd)  # releases the flock

    def _shard(self, collection: str) -> Any:
        shard = self._shards.get(collection)
        if shard is None:
            path = str(self._dir(collection))
            self._lock(collection)
            try:
                shard = _checked(self.location, "load", self.q.EdgeShard.load, path)
            except BaseException:
                self._unlock(collection)
                raise
            self._shards[collection] = shard
        return shard

    def ensure_collection(self, collection: str, dimension: int) -> None:
        have = self.dimension_of(collection)
        if have == dimension:
            return
        if have is not None:
            raise _mismatch(collection, have, dimension)
        path = self._dir(collection)
        self._lock(collection)
        if path.exists():  # a shard without its record: a crash between the two steps
            shutil.rmtree(path)
        self._shards[collection] = self._new_shard(path, dimension)
        self._wal[collection] = False
        self._written.add(collection)
        from memgraph.fileio import atomic_write_text

        record = {"dimension": dimension, "wal": False, "layout": EDGE_LAYOUT}
        atomic_write_text(self._meta(collection), json.dumps(record) + "\n")

    def count(self, collection: str, exact: bool = True) -> int:
        if self.dimension_of(collection) is None:
            return 0
        shard = self._shard(collection)
        request = self.q.CountRequest(exact=exact)
        return int(_checked(self.location, "count", shard.count, request))

    def present(self, collection: str, doc_ids: Sequence[str]) -> set[str]:
        if self.dimension_of(collection) is None:
            return set()
        shard = self._shard(collection)
        return _present(
            doc_ids,
            lambda ids: _checked(self.location, "retrieve", shard.retrieve, ids, False, False),
        )

    def upsert(self, collection: str, points: Sequence[VectorPoint]) -> None:
        if not points:
            return
        q = self.q
        batch = [
            q.Point(id=point_id(p.doc_id), vector=p.vector, payload=p.payload()) for p in points
        ]
        self._write(collection, "upsert", q.UpdateOperation.upsert_points(batch))

    def delete(self, collection: str, doc_ids: Sequence[str]) -> None:
        if not doc_ids or self.dimension_of(collection) is None:
            return
        op = self.q.UpdateOperation.delete_points([point_id(d) for d in doc_ids])
        self._write(collection, "delete", op)

    def drop(self, collection: str) -> None:
        self._wal.pop(collection, None)
        shard = self._shards.pop(collection, None)
        if shard is not None:
            with contextlib.suppress(Exception):
                shard.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._meta(collection))  # first: a half-dropped shard reads as absent
        path = self._dir(collection)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        self._unlock(collection)

    def query(self, collection: str, query: VectorQuery) -> tuple[list[tuple[str, float]], int]:
        q = self.q
        shard = self._shard(collection)
        must = [
            q.FieldCondition(key=key, match=q.MatchAny(list(values)))
            for key, values in sorted(query.where.items())
        ]
        request = q.QueryRequest(
            limit=query.limit,
            query=q.Query.Nearest(query.vector),
            filter=q.Filter(must=must) if must else None,
            with_payload=False,
        )
        points = _checked(self.location, "query", shard.query, request)
        # A stable node id is its point id; only the hashed ids (edges, summaries,
        # odd node ids) need the payload that vouches for them. Reading every hit's
        # payload cost a fresh process ~10 ms CPU (cold mmap pages) at 300 hits.
        hashed = [p.id for p in points if not isinstance(p.id, int)]
        payloads: dict[str, Any] = {}
        if hashed:
            records = _checked(self.location, "retrieve", shard.retrieve, hashed, True, False)
            payloads = {str(r.id): r.payload for r in records}
        hits: list[tuple[str, float]] = []
        rejected = 0
        for p in points:
            payload = payloads.get(str(p.id))
            doc = doc_id_of(p.id, payload if isinstance(payload, dict) else None)
            if doc is None:
                rejected += 1
            else:
                hits.append((doc, float(p.score)))
        return hits, rejected

    def _new_shard(self, path: Path, dimension: int) -> Any:
        """A WAL-less shard at ``path`` with the keyword indexes (flushed).

        One search thread: a query here is one vector, and Edge's default pool
        made the first query of a fresh process cost 15-30 ms CPU (70-200 ms wall
        under load) against 2-3 ms (20 ms) with one thread, same answers."""
        q = self.q
        config = q.EdgeConfig(
            vectors=q.EdgeVectorParams(size=dimension, distance=q.Distance.Cosine),
            wal_enabled=False,
            max_search_threads=1,
        )
        shard = _checked(self.location, "create", q.EdgeShard.create, str(path), config)
        try:
            for name in EDGE_INDEXED:
                op = q.UpdateOperation.create_field_index(name, q.PayloadSchemaType.Keyword)
                _checked(self.location, "index field", shard.update, op)
            _checked(self.location, "flush", shard.flush)
        except BaseException:
            shard.close()
            raise
        return shard

    def relayout(self, collection: str) -> bool:
        """Copy a shard of an older layout (``EDGE_LAYOUT``; layout 1 keeps a
        write-ahead log that every reader replays on load, ~70 ms CPU at 100k
        points) into a new shard of the current one, then swap it in. Vectors
        and payloads are copied, not re-embedded; the HNSW graph is rebuilt when
        the old shard had one. A crash before the swap
        leaves the old shard in place (the half-made copy is removed next time);
        between the two renames, the collection reads as absent and the next
        sync re-embeds it."""
        dimension = self.dimension_of(collection)
        if dimension is None or self.layout_of(collection) >= EDGE_LAYOUT:
            return False
        q = self.q
        old = self._shard(collection)
        fresh = self.root / f".{collection}.relayout"
        if fresh.is_dir() and not fresh.is_symlink():
            shutil.rmtree(fresh)
        new = self._new_shard(fresh, dimension)
        try:
            offset: Any = None
            while True:
                request = q.ScrollRequest(
                    offset=offset, limit=2000, with_payload=True, with_vector=True
                )
                records, offset = _checked(self.location, "scroll", old.scroll, request)
                points = [q.Point(id=r.id, vector=r.vector, payload=r.payload) for r in records]
                if points:
                    op = q.UpdateOperation.upsert_points(points)
                    _checked(self.location, "upsert", new.update, op)
                if offset is None:
                    break
            info = _checked(self.location, "info", old.info)
            if int(info.indexed_vectors_count) > 0:
                _checked(self.location, "optimize", new.optimize)
            _checked(self.location, "flush", new.flush)
        finally:
            new.close()
        self._shards.pop(collection, None)
        with contextlib.suppress(Exception):
            old.close()
        aside = self.root / f".{collection}.old"
        if aside.is_dir() and not aside.is_symlink():
            shutil.rmtree(aside)
        path = self._dir(collection)
        os.rename(path, aside)
        os.rename(fresh, path)
        from memgraph.fileio import atomic_write_text

        record = {"dimension": dimension, "wal": False, "layout": EDGE_LAYOUT}
        atomic_write_text(self._meta(collection), json.dumps(record) + "\n")
        self._wal[collection] = False
        shutil.rmtree(aside, ignore_errors=True)
        return True

    def needs_optimize(self, collection: str) -> bool:
        if self.dimension_of(collection) is None:
            return False
        info = _checked(self.location, "info", self._shard(collection).info)
        return int(info.points_count) - int(info.indexed_vectors_count) >= OPTIMIZE_AT

    def optimize(self, collection: str) -> bool:
        if self.dimension_of(collection) is None:
            return False
        shard = self._shard(collection)
        self._written.add(collection)
        done = bool(_checked(self.location, "optimize", shard.optimize))
        if not self._keeps_wal(collection):
            _checked(self.location, "flush", shard.flush)
        return done

    def close(self) -> None:
        """Flush the shards this backend wrote to (a reader's flush is a no-op that
        still costs a sync), then close every shard."""
        shards, self._shards = self._shards, {}
        written, self._written = self._written, set()
        for name, shard in shards.items():
            with contextlib.suppress(Exception):
                if name in written:
                    shard.flush()
                shard.close()
        for name in list(self._locks):
            self._unlock(name)
