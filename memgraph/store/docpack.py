"""Compact stored documents: graph documents as compressed blobs (issue 22).

Receipts (one per effect) and patches (every op of every applied patch, i.e. a
second copy of each written document) were most of a store's bytes, ~11x the
markdown pages. SQLite keeps them now as ``pack(json_text)``: one format byte,
then raw deflate with a preset dictionary of the JSON both kinds of document
repeat (field names, common values), so even a 400-byte receipt shrinks ~3x and
a patch ~10x (format 1). Format 2, written when ``zstandard`` is installed, is
one zstd frame with the same dictionary: ~4x less CPU, ~10 % larger. ``unpack``
returns the exact JSON text that was packed, so every reader (snapshots
byte-identical, receipts verified by their fields and hashes) sees what it saw
before. A ``str`` value is a row written before migration 104 and is returned as
it is; nothing needs rewriting to be readable. Since migration 105 node and edge
documents (and their history) are packed the same way: SQL that reads a field of
a node document goes through ``mg_doc(doc)`` (``register``), and rows are
encoded by ``memgraph.store.rowcodec``, the one helper every writer calls.

The dictionary is part of the format: never edit ``_DICT_V1``; a better one is a
new format byte with its own dictionary, and ``unpack`` keeps reading both.
Stdlib only at import (the lean ``memgraph note`` path packs through it);
``zstandard`` (format 2) is imported on the first pack or unpack.
"""

from __future__ import annotations

import zlib
from _thread import get_ident
from typing import Any

from memgraph.errors import StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

FORMAT_V1 = b"\x01"
# Small documents (receipts): a 4 KiB window and little hash memory, level 6 --
# the state is built per call, and at zlib's defaults that alone costs ~10x the
# compression of a 400-byte receipt. Large ones (patches): a full window, level 1
# (~340 MB/s for ~9x; level 6 gains ~15 % more at a third of the speed).
# Inflating with the full window reads both.
_SMALL = 4096
# Field names and values as pydantic-core writes them, most frequent last (deflate
# reaches the end of a preset dictionary with the shortest distances).
_DICT_V1 = (
    b'"superseded_by":null}},{"op":"upsert_edge","edge":{"valid_from":null,"valid_to":null,'
    b'"ingested_at":null,"id":"e-","source_id":"n-","target_id":"n-","kind":"in_session",'
    b'"profile":"voice","claim":"","anchors":[],"lifecycle":"captured","confidence":0.5}},'
    b'{"op":"upsert_node","node":{"valid_from":"2026-","valid_to":null,"ingested_at":"2026-",'
    b'"id":"n-","domain_id":"voice:","profile":"voice","kind":"message","title":"","claim":"",'
    b'"question":"","tension":"","action_implication":"","anchors":[{"valid_from":null,'
    b'"valid_to":null,"ingested_at":null,"id":"a-","kind":"transcript","ref":"","line":'
    b',"record_uuid":"","sha":null,"content_hash":null,"label":null}],"source_hashes":[],'
    b'"lifecycle":"captured","salience":0.5,"confidence":0.5,"created_at":"2026-",'
    b'"updated_at":"2026-","attributes":{"session_id":"","record_uuid":"","project":"",'
    b'"constellation":"","branch":null,"cwd":"","harness":"claude-code","origin":"prompt",'
    b'"classification":null,"confidence":null,"topics":[],"voice_page":null},'
    b'"superseded_by":null}}],"status":"applied","created_at":"2026-","rejection":null}'
    b'{"valid_from":null,"valid_to":null,"ingested_at":null,"id":"p-","proposer":"",'
    b'"reason":"","ops":[{"op":"upsert_node","node":{'
    b'"op":"upsert_edge","target_id":"e-","target_type":"edge","details":{}}'
    b'"op":"retire_node","op":"revise_node","op":"mark_stale","target_type":"summary",'
    b'"before":"captured","after":"classified","actor":"voice.capture","reason":"capture '
    b'{"valid_from":null,"valid_to":null,"ingested_at":"2026-12-03T00:00:00.000000Z",'
    b'"id":"r-","patch_id":"p-","op":"upsert_node","target_id":"n-","target_type":"node",'
    b'"profile":"voice","actor":"","at":"2026-12-03T00:00:00.000000Z","before":null,'
    b'"after":"captured","reason":"","details":{"hash":"'
)


# A compressor primed with the dictionary, copied per document: setting the
# dictionary hashes all of it, which cost more than compressing a receipt. The
# copies write exactly what a fresh compressor with the same settings writes.
_PRIMED_SMALL = zlib.compressobj(6, zlib.DEFLATED, -12, 4, zlib.Z_DEFAULT_STRATEGY, _DICT_V1)

# Format 2: one zstd frame (content size, no checksum, no dictionary id) with the
# same bytes as a raw-content dictionary. ~4x less CPU than deflate for a node
# document on this project's machines (6 vs 23 us, notes/benchmarks.md), ~10 %
# larger. Written whenever ``zstandard`` is importable; format 1 otherwise. Its
# objects are per thread (zstandard's are not thread safe): the store's index
# helper thread inflates documents through mg_doc while the writer packs.
FORMAT_V2 = b"\x02"
_ZSTD_LEVEL = 3
_ZSTD: dict[int, tuple[Any, Any, Any]] = {}
_ZSTD_MISSING = False


def _zstd() -> tuple[Any, Any, Any] | None:
    """This thread's (compressor, decompressor, error class), or None without ``zstandard``."""
    global _ZSTD_MISSING
    found = _ZSTD.get(get_ident())
    if found is not None or _ZSTD_MISSING:
        return found
    try:
        import zstandard
    except ImportError:
        _ZSTD_MISSING = True
        return None
    d = zstandard.ZstdCompressionDict(_DICT_V1, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
    found = (
        zstandard.ZstdCompressor(
            level=_ZSTD_LEVEL,
            dict_data=d,
            write_checksum=False,
            write_content_size=True,
            write_dict_id=False,
        ),
        zstandard.ZstdDecompressor(dict_data=d),
        zstandard.ZstdError,
    )
    _ZSTD[get_ident()] = found
    return found


def pack(text: str | bytes) -> bytes:
    """The stored form of one document's JSON text (``str``, or its UTF-8 bytes)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    z = _zstd()
    if z is not None:
        return FORMAT_V2 + z[0].compress(data)  # type: ignore[no-any-return]
    if len(data) < _SMALL:
        c = _PRIMED_SMALL.copy()
    else:
        c = zlib.compressobj(1, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, _DICT_V1)
    return FORMAT_V1 + c.compress(data) + c.flush()


def pack_sql(value: str | bytes | None) -> str | bytes | None:
    """``mg_pack(doc)`` for migrations 104-105: text packed, anything else kept."""
    return pack(value) if isinstance(value, str) else value


_LAST: tuple[bytes, str] = (b"", "")


def doc_sql(value: str | bytes | None) -> str | None:
    """``mg_doc(doc)``: the JSON text of a stored document, for ``json_extract``.

    An index statement reads several fields of one row (``json_extract(mg_doc(doc),
    ...)`` each), so the last document inflated is remembered: one inflate per row.
    The pair is one tuple, read and replaced whole (safe across threads)."""
    if value is None or isinstance(value, str):
        return value
    global _LAST
    last = _LAST
    if last[0] == value:
        return last[1]
    text = unpack(value)
    _LAST = (value, text)
    return text


def register(conn: sqlite3.Connection) -> None:
    """Make ``mg_doc`` and ``mg_pack`` known on ``conn``. Every connection that
    writes node rows or reads their fields in SQL needs them: index statements
    and the AFTER UPDATE triggers on ``nodes`` call ``mg_doc``."""
    conn.create_function("mg_doc", 1, doc_sql, deterministic=True)
    conn.create_function("mg_pack", 1, pack_sql, deterministic=True)


def unpack(value: str | bytes) -> str:
    """The JSON text of a stored document (``str``: stored before packing existed)."""
    if isinstance(value, str):
        return value
    if value[:1] == FORMAT_V1:
        try:
            d = zlib.decompressobj(-15, zdict=_DICT_V1)
            text = (d.decompress(value[1:]) + d.flush()).decode("utf-8")
            if not d.eof or d.unused_data:
                raise zlib.error("truncated or trailing bytes")
            return text
        except (zlib.error, UnicodeDecodeError) as exc:
            raise StoreError(f"damaged stored document: {exc}") from None
    if value[:1] == FORMAT_V2:
        z = _zstd()
        if z is None:
            raise StoreError(
                "stored document packed with zstd: install the zstandard package "
                "(a dependency of memgraph)"
            )
        try:
            return z[1].decompress(value[1:]).decode("utf-8")  # type: ignore[no-any-return]
        except (z[2], UnicodeDecodeError) as exc:
            raise StoreError(f"damaged stored document: {exc}") from None
    raise StoreError(f"stored document in an unknown format (first byte {value[:1]!r})")


__all__ = ["FORMAT_V1", "FORMAT_V2", "doc_sql", "pack", "pack_sql", "register", "unpack"]
