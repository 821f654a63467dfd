"""``memgraph.home_dirs``: a store's folder in each vector cache of a home, read
before it exists (the flat files of a home from before) and made, whole, for a write."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from memgraph import home_dirs
from memgraph.home_dirs import (
    WORD_VECTORS,
    StoreAt,
    cache_dir,
    legacy_files,
    own_dir,
    prepared_dir,
    store_folder,
)


def _at(location: str | Path) -> StoreAt:
    """A store without an id (never opened here): keyed by its location."""
    return StoreAt(str(location))


def test_a_store_has_one_folder_however_it_is_named(tmp_path: Path) -> None:
    db = _at(tmp_path / "x" / "memgraph.db")
    Path(db.location).parent.mkdir()
    (tmp_path / "link").symlink_to(Path(db.location).parent)
    assert store_folder(db) == store_folder(_at(tmp_path / "link" / "memgraph.db"))
    assert store_folder(db).startswith("memgraph_db-")
    url = _at("postgresql://me:secret@db.example:5432/mem")
    assert store_folder(url) == store_folder(_at("postgresql://me@db.example/mem"))  # no password
    assert store_folder(url).startswith("mem-") and "secret" not in store_folder(url)
    names = {store_folder(db), store_folder(_at(tmp_path / "y.db")), store_folder(url)}
    names.add(store_folder(_at("postgresql://me@db.example:5432/other")))
    assert len(names) == 4
    assert all(os.sep not in n and not n.startswith(".") for n in names)


def test_reads_use_the_flat_folder_until_the_store_has_its_own(tmp_path: Path) -> None:
    store = _at(tmp_path / "a.db")
    assert cache_dir(tmp_path, WORD_VECTORS, store) == tmp_path / WORD_VECTORS
    made = prepared_dir(tmp_path, WORD_VECTORS, store)
    assert made == own_dir(tmp_path, WORD_VECTORS, store) and made.is_dir()
    assert cache_dir(tmp_path, WORD_VECTORS, store) == made
    assert list(made.iterdir()) == []  # nothing flat to take over


def test_the_first_write_links_the_flat_files_and_leaves_them(tmp_path: Path) -> None:
    flat = tmp_path / WORD_VECTORS
    flat.mkdir()
    (flat / "m-4.words").write_text("words\n")
    (flat / "m-4.f32").write_bytes(b"1234")
    (flat / ".m-4.words.abc.tmp").write_text("a temporary\n")
    (flat / "elsewhere").symlink_to(tmp_path)
    assert [p.name for p in legacy_files(flat)] == ["m-4.f32", "m-4.words"]
    made = prepared_dir(
        tmp_path, WORD_VECTORS, _at(tmp_path / "a.db"), keep=lambda n: n != "m-4.f32"
    )
    assert [p.name for p in made.iterdir()] == ["m-4.words"]
    assert (made / "m-4.words").stat().st_ino == (flat / "m-4.words").stat().st_ino
    assert (flat / "m-4.f32").is_file() and (flat / "m-4.words").is_file()
    assert not [p for p in flat.iterdir() if p.name.endswith(".seed")]
    # the second store of the home takes them over as well
    other = prepared_dir(tmp_path, WORD_VECTORS, _at(tmp_path / "b.db"))
    assert sorted(p.name for p in other.iterdir()) == ["m-4.f32", "m-4.words"]


def test_where_links_fail_the_flat_files_are_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flat = tmp_path / WORD_VECTORS
    flat.mkdir()
    (flat / "m-4.words").write_text("words\n")

    def no_links(*_a: object, **_k: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    made = prepared_dir(tmp_path, WORD_VECTORS, _at(tmp_path / "a.db"))
    assert (made / "m-4.words").read_text() == "words\n"
    assert (made / "m-4.words").stat().st_ino != (flat / "m-4.words").stat().st_ino


def test_a_folder_another_process_made_meanwhile_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two first writes at once: one seeded folder wins, the other's aside copy goes."""
    flat = tmp_path / WORD_VECTORS
    flat.mkdir()
    (flat / "m-4.words").write_text("words\n")
    own = own_dir(tmp_path, WORD_VECTORS, _at(tmp_path / "a.db"))
    real = home_dirs._link_or_copy

    def racing(source: Path, target: Path) -> None:
        real(source, target)
        if not own.exists():  # the other process renames its seed in first
            own.mkdir()
            (own / "m-4.words").write_text("theirs\n")

    monkeypatch.setattr(home_dirs, "_link_or_copy", racing)
    assert prepared_dir(tmp_path, WORD_VECTORS, _at(tmp_path / "a.db")) == own
    assert (own / "m-4.words").read_text() == "theirs\n"
    assert sorted(p.name for p in flat.iterdir()) == sorted([own.name, "m-4.words"])


def test_a_store_with_an_id_is_keyed_by_it_wherever_it_is(tmp_path: Path) -> None:
    """The id the caller passes with the store names its folder, key and tag (no
    process-wide memory of what was opened where); a hostile id, or an in-memory
    store's, counts as none."""
    sid = "0b7e4a52-3f0c-4c1e-9f3a-5d6c7b8a9e01"
    here, moved = StoreAt(str(tmp_path / "a.db"), sid), StoreAt(str(tmp_path / "b.db"), sid)
    assert store_folder(here) == store_folder(moved) == sid
    assert home_dirs.store_keys(here) == (f"store-id:{sid}", home_dirs.location_key(here.location))
    assert home_dirs.store_tag(moved) == "id_" + sid.replace("-", "")
    assert home_dirs.earlier_dir(tmp_path, WORD_VECTORS, here) == tmp_path / WORD_VECTORS / (
        home_dirs.location_folder(here.location)
    )
    for none in (StoreAt(str(tmp_path / "a.db"), "../../etc"), StoreAt(":memory:", sid)):
        assert home_dirs.store_key(none) == home_dirs.location_key(none.location)
        assert home_dirs.earlier_dir(tmp_path, WORD_VECTORS, none) is None
