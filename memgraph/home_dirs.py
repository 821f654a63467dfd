"""What a home keeps per store: the key naming a store, and the store's folder in
each vector cache under ``<home>``.

One home can point at several stores (``MEMGRAPH_STORE``, ``--store``, the config
file). ``store_key`` names one by its id, a random uuid kept in the store's own
tables (``memgraph.store.identity``), so a store moved to another path, or a
PostgreSQL URL spelled another way, is the same store. Every function here takes
the store itself (``StoreRef``: its ``location`` and ``store_id``, as it was
opened), never a location alone: which store a location holds is known only by
opening it. A store without an id it may use (a read-only store from before the
id, a copy beside its original), or one that could not be opened (``StoreAt``
with no id), is keyed by its location as before (``location_key``: a file's real
path, a URL without its password). ``<home>/sleep.json`` keeps a last run per
key (``profiles.sleep.state``); the vector caches keep a folder per key, so one
store's ``memgraph index`` never rewrites the tables another store reads, and
``memgraph doctor`` judges only the current store's files:

- ``<home>/repo-vectors/<store>/`` (``context_cut.repo_vectors``, ``repo scan``),
- ``<home>/word-vectors/<store>/`` (``context_cut.word_vectors``, ``index``),
- ``<home>/token-vectors/<store>/`` (``context_cut.token_vectors``, ``index``),

``<store>`` being ``store_folder``: the id; keyed by location, a slug of the
key's last part and 12 hex digits of its digest (``location_folder``). They are
caches of the store's own text (never the only copy of anything): deleting one
costs a re-embedding. The Qdrant collections (``<home>/qdrant`` or a server's)
carry the same key as ``store_tag`` in their names.

Upgrades are taken over, never re-embedded. A home from before per-store folders
kept each cache's files flat in the cache folder, for whatever store it pointed
at; a home from before ids kept a folder per location. Until a store has its own
(id) folder, its readers read its location folder, else the flat files
(``cache_dir``); the first write for it (``prepared_dir``) makes its folder
holding hard links to them (a copy where the file system has none), so that
write re-embeds only what changed. What was linked from stays (another store of
the home, an older memgraph may read it); ``doctor`` lists it with its removal.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

REPO_VECTORS = "repo-vectors"
WORD_VECTORS = "word-vectors"
TOKEN_VECTORS = "token-vectors"
CACHES = (REPO_VECTORS, WORD_VECTORS, TOKEN_VECTORS)
_SEED_SUFFIX = ".seed"
_STALE_SEED_SECONDS = 3600.0
ID_PREFIX = "store-id:"


class StoreRef(Protocol):
    """What the home needs of a store: every ``memgraph.store`` store is one."""

    @property
    def location(self) -> str: ...

    @property
    def store_id(self) -> str | None: ...


@dataclass(frozen=True)
class StoreAt:
    """A store by its location (and id) when the store itself is not at hand: one
    that could not be opened is keyed by its location (no id)."""

    location: str
    store_id: str | None = None


def location_key(location: str | Path) -> str:
    """A store's location as one key: a file by its real path, a PostgreSQL URL
    without its password; what ``store_key`` was before stores had an id."""
    from memgraph.store.postgres import is_store_url, redact

    text = str(location)
    if is_store_url(text):
        return redact(text)
    if text == ":memory:":
        return text
    return os.path.realpath(text)


def store_id_of(store: StoreRef) -> str | None:
    """The id ``store`` is keyed by: its ``store_id`` when it is a canonical uuid
    (a hand-edited row is none); never an in-memory store's (every one of them has
    the location ``:memory:``, so their caches share that key)."""
    from memgraph.store.identity import valid_id

    found = store.store_id
    if not valid_id(found) or location_key(store.location) == ":memory:":
        return None
    return found


def store_key(store: StoreRef) -> str:
    """Which store a state entry or cache folder is for: ``store-id:<uuid>`` when
    the store has an id; else its ``location_key``."""
    found = store_id_of(store)
    return ID_PREFIX + found if found else location_key(store.location)


def store_keys(store: StoreRef) -> tuple[str, ...]:
    """``store_key`` and, when that is the id, the location key from before (a
    sleep.json entry under it is the store's, adopted by its next pass)."""
    key, before = store_key(store), location_key(store.location)
    return (key,) if key == before else (key, before)


def store_folder(store: StoreRef) -> str:
    """The store's folder name in a cache folder (one path component, no dot
    first): its id; a store without one, ``location_folder``."""
    found = store_id_of(store)
    return found if found else location_folder(store.location)


def location_folder(location: str | Path) -> str:
    """The folder of a store keyed by location (before ids): a slug of the key's
    last part (a file's name, a database's) and 12 hex digits of its digest."""
    from memgraph.ids import digest

    key = location_key(location)
    return f"{_tail(key)[:40] or 'store'}-{digest(key, length=12)}"


def store_tag(store: StoreRef) -> str:
    """The store in a name made of ``[a-z0-9_]`` (a Qdrant collection's,
    ``context_cut.vector_projection.qdrant_collection``): ``id_`` and the id's 32
    hex digits, so every machine, path or spelling of a URL names the same
    collection; a store without an id, ``location_tag``."""
    found = store_id_of(store)
    return "id_" + found.replace("-", "") if found else location_tag(store.location)


def location_tag(location: str | Path) -> str:
    """The tag of a store keyed by location (before ids): a short slug of the key's
    last part and the same 12 hex digits as ``location_folder``. A PostgreSQL
    store's key holds only its URL's user, host, port and database (no password,
    no query string, no local path)."""
    from memgraph.ids import digest

    key = location_key(location)
    return f"{_tail(key)[:20].strip('_') or 'store'}_{digest(key, length=12)}"


def _tail(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", key.rstrip("/").rsplit("/", 1)[-1].lower()).strip("_")


def own_dir(home: Path, cache: str, store: StoreRef) -> Path:
    """The store's own folder in ``<home>/<cache>`` (there or not)."""
    return Path(os.fspath(home)) / cache / store_folder(store)


def earlier_dir(home: Path, cache: str, store: StoreRef) -> Path | None:
    """The folder the store had before it had an id (``location_folder``), when it
    has an id now (there or not); None for a store keyed by its location."""
    if store_id_of(store) is None:
        return None
    return Path(os.fspath(home)) / cache / location_folder(store.location)


def store_dir(home: Path, cache: str, store: StoreRef) -> Path | None:
    """The store's own folder that is there: by its id, else its folder from
    before the id; None when it has neither yet."""
    own = own_dir(home, cache, store)
    if os.path.isdir(own):
        return own
    earlier = earlier_dir(home, cache, store)
    return earlier if earlier is not None and os.path.isdir(earlier) else None


def cache_dir(home: Path, cache: str, store: StoreRef) -> Path:
    """Where the store's cache is read: its own folder once it has one; before,
    its folder from before its id, or the cache folder itself (the flat files of
    a home from before per-store folders, as they were read)."""
    found = store_dir(home, cache, store)
    return found if found is not None else Path(os.fspath(home)) / cache


def legacy_files(folder: Path) -> list[Path]:
    """The flat files of a cache folder from before per-store folders: regular
    files (not links, not folders) whose name does not start with a dot (the
    temporaries of ``atomic_write_bytes``, a seed in progress)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [
        Path(e.path)
        for e in entries
        if not e.name.startswith(".") and e.is_file(follow_symlinks=False)
    ]


def prepared_dir(
    home: Path, cache: str, store: StoreRef, keep: Callable[[str], bool] | None = None
) -> Path:
    """The store's own folder in ``<home>/<cache>``, for a write. Made on first use
    holding the files of its folder from before its id (``earlier_dir``) or, without
    one, the cache folder's flat files (``legacy_files``; ``keep``: only the names
    it accepts) as hard links, or copies where links fail; whole or not at all
    (made aside, then renamed). The files linked from are left as they are."""
    import shutil
    import tempfile

    own = own_dir(home, cache, store)
    if os.path.isdir(own):
        return own
    folder = own.parent
    folder.mkdir(parents=True, exist_ok=True)
    earlier = earlier_dir(home, cache, store)
    source = earlier if earlier is not None and os.path.isdir(earlier) else folder
    seeds = [p for p in legacy_files(source) if keep is None or keep(p.name)]
    if not seeds:
        own.mkdir(exist_ok=True)
        return own
    _sweep(folder, own.name)
    aside = Path(tempfile.mkdtemp(prefix=f".{own.name}.", suffix=_SEED_SUFFIX, dir=folder))
    try:
        for path in seeds:
            _link_or_copy(path, aside / path.name)
        os.rename(aside, own)
    except OSError:
        shutil.rmtree(aside, ignore_errors=True)
        if not os.path.isdir(own):  # not another process's folder, made meanwhile
            raise
    return own


def _link_or_copy(source: Path, target: Path) -> None:
    import shutil
    import stat

    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:  # a file system without hard links, or at its link limit
        st = os.lstat(source)
        if not stat.S_ISREG(st.st_mode):
            raise
        shutil.copyfile(source, target, follow_symlinks=False)


def _sweep(folder: Path, name: str) -> None:
    """Seeds of ``name`` a killed process left aside (only links or copies)."""
    import contextlib
    import shutil
    import time

    cutoff = time.time() - _STALE_SEED_SECONDS
    for path in folder.glob(f".{name}.*{_SEED_SUFFIX}"):
        with contextlib.suppress(OSError):
            if path.is_dir() and not path.is_symlink() and path.stat().st_mtime < cutoff:
                shutil.rmtree(path)
