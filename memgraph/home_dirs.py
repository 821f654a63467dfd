"""What a home keeps per store: the key naming a store, and the store's folder in
each vector cache under ``<home>``.

One home can point at several stores (``MEMGRAPH_STORE``, ``--store``, the config
file). ``store_key`` names one: a file by its real path, a PostgreSQL URL without
its password (``redact``: default port filled in). ``<home>/sleep.json`` keeps a
last run per key (``profiles.sleep.state``); the vector caches keep a folder per
key, so one store's ``memgraph index`` never rewrites the tables another store
reads, and ``memgraph doctor`` judges only the current store's files:

- ``<home>/repo-vectors/<store>/`` (``context_cut.repo_vectors``, ``repo scan``),
- ``<home>/word-vectors/<store>/`` (``context_cut.word_vectors``, ``index``),
- ``<home>/token-vectors/<store>/`` (``context_cut.token_vectors``, ``index``),

``<store>`` being ``store_folder``: a slug of the key's last part (a file's name,
a database's) and 12 hex digits of its digest. They are caches of the store's own
text (never the only copy of anything): deleting one costs a re-embedding. The
Qdrant collections (``<home>/qdrant`` or a server's) carry the same key as
``store_tag`` in their names.

A home from before kept each cache's files flat in the cache folder, for whatever
store it pointed at. They are not thrown away (the token table of a large store
takes minutes to rebuild): until a store has a folder of its own, its readers
read the flat files as before (``cache_dir``); the first write for it
(``prepared_dir``) makes its folder holding hard links to them (a copy where the
file system has none), so that write re-embeds only what changed. The flat files
stay for the other stores of the home; ``legacy_files`` lists them for ``doctor``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

REPO_VECTORS = "repo-vectors"
WORD_VECTORS = "word-vectors"
TOKEN_VECTORS = "token-vectors"
CACHES = (REPO_VECTORS, WORD_VECTORS, TOKEN_VECTORS)
_SEED_SUFFIX = ".seed"
_STALE_SEED_SECONDS = 3600.0


def store_key(location: str | Path) -> str:
    """Which store a state entry or cache folder is for: ``store.location`` or a
    store as configured (a path, or a ``postgresql://`` URL, password or not)."""
    from memgraph.store.postgres import is_store_url, redact

    text = str(location)
    if is_store_url(text):
        return redact(text)
    if text == ":memory:":
        return text
    return os.path.realpath(text)


def store_folder(location: str | Path) -> str:
    """The store's folder name in a cache folder (one path component, no dot first)."""
    from memgraph.ids import digest

    key = store_key(location)
    return f"{_tail(key)[:40] or 'store'}-{digest(key, length=12)}"


def store_tag(location: str | Path) -> str:
    """The store in a name made of ``[a-z0-9_]`` (a Qdrant collection's,
    ``context_cut.vector_projection.qdrant_collection``): a short slug of the key's
    last part and the same 12 hex digits as ``store_folder``. A PostgreSQL store's
    key holds only its URL's user, host, port and database (no password, no query
    string, no local path), so machines that spell the URL alike name the same
    collection on a shared server; spelled otherwise (another host name, another
    user) they get a collection each: a second copy, never a mix of two stores."""
    from memgraph.ids import digest

    key = store_key(location)
    return f"{_tail(key)[:20].strip('_') or 'store'}_{digest(key, length=12)}"


def _tail(key: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", key.rstrip("/").rsplit("/", 1)[-1].lower()).strip("_")


def own_dir(home: Path, cache: str, location: str | Path) -> Path:
    """The store's own folder in ``<home>/<cache>`` (there or not)."""
    return Path(os.fspath(home)) / cache / store_folder(location)


def cache_dir(home: Path, cache: str, location: str | Path) -> Path:
    """Where the store's cache is read: its own folder once it has one; before, the
    cache folder itself (the flat files of a home from before, as they were read)."""
    own = own_dir(home, cache, location)
    return own if os.path.isdir(own) else own.parent


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
    home: Path, cache: str, location: str | Path, keep: Callable[[str], bool] | None = None
) -> Path:
    """The store's own folder in ``<home>/<cache>``, for a write. Made on first use
    holding the cache folder's flat files (``legacy_files``; ``keep``: only the
    names it accepts) as hard links, or copies where links fail; whole or not at
    all (made aside, then renamed). The flat files themselves are left as they are."""
    import shutil
    import tempfile

    own = own_dir(home, cache, location)
    if os.path.isdir(own):
        return own
    folder = own.parent
    folder.mkdir(parents=True, exist_ok=True)
    seeds = [p for p in legacy_files(folder) if keep is None or keep(p.name)]
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
