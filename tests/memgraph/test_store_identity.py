"""``memgraph.store.identity``: a store's id, a uuid made once and kept in its own
tables (``store_meta``, schema 106), on SQLite and PostgreSQL alike. A store from
before gets one from its first writer (readers leave it without); a moved file
or a URL spelled otherwise keeps it; a copy beside its original, or a copied
database, gets its own; concurrent first writers agree on one; a malformed row
is never used as a name."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from memgraph import home_dirs
from memgraph.home_dirs import StoreAt
from memgraph.store import open_store
from memgraph.store.identity import valid_id
from memgraph.store.sqlite import SQLiteStore


def _pg_exec(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for sql in statements:
            conn.execute(sql.encode())


def _to_105(location: str) -> None:
    """The store as a memgraph from before 106 left it."""
    statements = ("DROP TABLE store_meta", "DELETE FROM schema_migrations WHERE version = 106")
    if location.startswith("postgresql://"):
        _pg_exec(location, *statements)
        return
    conn = sqlite3.connect(location)
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()


def _location(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return str(tmp_path / "mg.db")


def _opened(location: str, **kw: Any) -> Any:
    """The store at ``location`` opened (``readonly=True``: as a reader) and closed
    again; its ``location`` and ``store_id`` stay, as ``memgraph.home_dirs`` takes them."""
    if location.startswith("postgresql://"):
        from memgraph.store.postgres import open_postgres

        pg = open_postgres(location, **kw)
        pg.close()
        return pg
    store = SQLiteStore(location, **kw)
    store.close()
    return store


def known(location: str) -> Any:
    """The store at ``location`` as a reader finds it (its id unchanged): what a
    test passes to ``memgraph.home_dirs`` for a store the CLI wrote."""
    return _opened(location, readonly=True)


def _id(location: str, **kw: Any) -> str | None:
    found: str | None = _opened(location, **kw).store_id
    return found


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_store_from_before_gets_its_id_from_its_first_writer(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    location = _location(backend, tmp_path, request)
    open_store(location).close()
    _to_105(location)
    reader = _opened(location, readonly=True)
    assert reader.store_id is None  # a reader neither fails nor makes one
    assert home_dirs.store_key(reader) == home_dirs.location_key(location)
    writer = _opened(location)
    made = writer.store_id
    assert valid_id(made)
    assert home_dirs.store_key(writer) == f"store-id:{made}"
    assert _id(location) == made and _id(location, readonly=True) == made
    store = open_store(location)
    try:
        assert 106 in store.schema_versions() and store.store_id == made
    finally:
        store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_concurrent_first_writers_agree_on_one_id(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Eight processes' first opens at once (threads, a connection each) of a store
    from before the id: each would make one; every one of them reads the same."""
    location = _location(backend, tmp_path, request)
    open_store(location).close()
    _to_105(location)
    start = threading.Barrier(8)
    found: list[str | None] = []
    errors: list[BaseException] = []

    def first_open() -> None:
        try:
            start.wait()
            found.append(_id(location))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=first_open) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(found) == 8 and len(set(found)) == 1 and valid_id(found[0])
    assert _id(location) == found[0]


def test_a_moved_file_keeps_its_id_and_a_copy_beside_it_gets_its_own(tmp_path: Path) -> None:
    a = tmp_path / "a.db"
    first = _id(str(a))
    moved = tmp_path / "elsewhere" / "moved.db"
    moved.parent.mkdir()
    os.rename(a, moved)
    assert _id(str(moved)) == first
    copy = tmp_path / "copy.db"
    shutil.copyfile(moved, copy)
    assert _id(str(copy), readonly=True) is None  # a reader beside the original: no id
    own = _id(str(copy))
    assert valid_id(own) and own != first
    assert _id(str(copy)) == own and _id(str(moved)) == first  # both settled
    link = tmp_path / "link.db"
    os.link(moved, link)  # the same file by another name: the same store
    assert _id(str(link)) == first and _id(str(moved)) == first
    restored = tmp_path / "restored.db"
    shutil.copyfile(moved, restored)
    os.unlink(moved)  # the original is gone: the copy is the store, moved
    assert _id(str(restored)) == first


def test_a_copied_database_gets_its_own_and_a_url_spelled_otherwise_keeps_it(
    pg_server: Any,
) -> None:
    url = str(pg_server.create_database())
    first = _id(url)
    name = f"mg_copy_{os.getpid()}"
    _pg_exec(pg_server.url(), f'CREATE DATABASE "{name}" TEMPLATE "{url.rsplit("/", 1)[1]}"')
    copy = pg_server.url(name)
    assert _id(copy, readonly=True) is None
    own = _id(copy)
    assert valid_id(own) and own != first and _id(url) == first
    other = url.replace("127.0.0.1", "localhost")  # another host name, the same database
    assert home_dirs.location_key(other) != home_dirs.location_key(url)
    assert _id(other) == first
    named = [home_dirs.store_folder(StoreAt(where, first)) for where in (other, url)]
    assert named == [first, first]


HOSTILE = ["../../etc", "ID-" + "x" * 5000, "", "0" * 36, "A" * 8 + "-0000-0000-0000-" + "0" * 12]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_malformed_id_is_never_a_name(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A hand-edited or hostile ``store_id`` row: a reader keys the store by its
    location (no folder or tag is made of the row), a writer replaces it."""
    location = _location(backend, tmp_path, request)
    open_store(location).close()
    for bad in HOSTILE:
        sql = f"UPDATE store_meta SET value = '{bad}' WHERE key = 'store_id'"
        if backend == "postgres":
            _pg_exec(location, sql)
        else:
            conn = sqlite3.connect(location)
            conn.execute(sql)
            conn.commit()
            conn.close()
        assert _id(location, readonly=True) is None
        folder = home_dirs.store_folder(StoreAt(location, bad))  # the row, were it taken
        assert folder == home_dirs.location_folder(location) and (not bad or bad not in folder)
        assert valid_id(_id(location))


def test_a_hostile_seat_is_not_opened(tmp_path: Path) -> None:
    """The seat names where the store last sat; a FIFO there (or a path no file
    system takes) is not opened: the store counts as moved and keeps its id."""
    db = tmp_path / "mg.db"
    first = _id(str(db))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for seat in (str(fifo), "/no\x00where", str(tmp_path), "relative/x.db"):
        conn = sqlite3.connect(db)
        conn.execute("UPDATE store_meta SET value = ? WHERE key = 'seat'", (seat,))
        conn.commit()
        conn.close()
        assert _id(str(db), readonly=True) == first
        assert _id(str(db)) == first


def test_an_in_memory_store_has_an_id_but_no_folder_of_it() -> None:
    a, b = open_store(":memory:"), open_store(":memory:")
    assert valid_id(a.store_id) and a.store_id != b.store_id
    assert home_dirs.store_key(a) == home_dirs.store_key(b) == ":memory:"
