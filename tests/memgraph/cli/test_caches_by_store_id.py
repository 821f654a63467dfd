"""The home's per-store caches are keyed by the store's id (``memgraph.home_dirs``,
``memgraph.store.identity``): a store moved to another path, or a PostgreSQL URL
spelled otherwise, keeps its word and token tables (nothing embedded again); its
folders, sleep.json entry and Qdrant collection from before the id (keyed by
location) are taken over once, not re-embedded; a copy beside its original gets
folders of its own; a read-only store without an id reads as before; doctor's fix
removes what the store's own folders took over and nothing else."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_cut.embedders import HashEmbedder
from context_cut.vector_index import VectorIndex
from context_cut.vector_projection import qdrant_collection
from context_cut.vector_sync import sync_index
from memgraph import home_dirs
from memgraph.cli.app import app
from memgraph.home_dirs import CACHES, REPO_VECTORS, TOKEN_VECTORS, WORD_VECTORS
from memgraph.store import open_store
from tests.memgraph.cli.test_caches_per_store import (
    A_TEXTS,
    B_TEXTS,
    HashTokens,
    _checks,
    _index,
    add_messages,
    tokens,
)
from tests.memgraph.cli.test_context_cli import T0
from tests.memgraph.test_store_identity import known

__all__ = ["tokens"]  # the fixture, used by name below
runner = CliRunner()
KEPT = [
    "word vectors: 7 words (0 embedded, 7 kept)",
    "token vectors: 2 turns, 24 word pieces (0 turns embedded, 2 kept)",
]


def _move(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{source}{suffix}").exists():
            os.rename(f"{source}{suffix}", f"{target}{suffix}")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_moved_store_keeps_its_caches(
    tokens: list[HashTokens], tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    """Keyed by location, a store moved to another path (or a URL spelled with
    another host name) got new, empty cache folders: its next index embedded every
    text again (minutes of token vectors on a real corpus)."""
    if backend == "postgres":
        first = str(request.getfixturevalue("pg_url"))
        then = first.replace("127.0.0.1", "localhost")
    else:
        first, then = str(tmp_path / "a.db"), str(tmp_path / "moved" / "b.db")
    add_messages(first, *A_TEXTS)
    assert _index(first)[0] == "word vectors: 7 words (7 embedded, 0 kept)"
    if backend == "sqlite":
        _move(Path(first), Path(then))
    assert home_dirs.location_key(then) != home_dirs.location_key(first)
    embedded = len(tokens[-1].token_calls)
    assert _index(then) == KEPT
    assert tokens[-1].token_calls == [] and embedded == 2
    folders = sorted(p.name for p in (tmp_path / "mg" / WORD_VECTORS).iterdir())
    store = open_store(then)
    try:
        assert folders == [store.store_id]  # one folder: the store's, by its id
    finally:
        store.close()


def _as_before_the_id(home: Path, location: str) -> dict[str, Path]:
    """Rename the store's id folders to the names a memgraph from before ids gave
    them (by location); the folders, as they were."""
    earlier = {}
    for cache in CACHES:
        own = home_dirs.own_dir(home, cache, known(location))
        if own.is_dir():
            earlier[cache] = home / cache / home_dirs.location_folder(location)
            own.rename(earlier[cache])
    return earlier


def test_folders_and_sleep_entry_from_before_the_id_are_taken_over_then_removed_by_doctor(
    tokens: list[HashTokens], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A home from before ids: the store's folders named by its location, its
    sleep.json entry under its path, a flat file of another store, another store's
    folder. The store reads its old folders, its first index links them into its id
    folders embedding nothing, its next pass moves the sleep entry; doctor then
    lists the old folders (and nothing else) and its fix removes exactly them."""
    from profiles.sleep.pipeline import SleepRequest, run_sleep
    from profiles.sleep.state import STATE_FILE

    home = tmp_path / "mg"
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    monkeypatch.setenv("MEMGRAPH_STORE", a)
    add_messages(a, *A_TEXTS)
    add_messages(b, *B_TEXTS)
    _index(a)
    _index(b)
    earlier = _as_before_the_id(home, a)
    assert sorted(earlier) == [TOKEN_VECTORS, WORD_VECTORS]
    other = home / REPO_VECTORS / "proj-0123456789abcdef-minilm.vec"  # a flat file, no one's
    other.parent.mkdir(parents=True)
    other.write_bytes(b"x" * 10)
    theirs = home_dirs.own_dir(home, WORD_VECTORS, known(b))
    (home / STATE_FILE).write_text(
        json.dumps({"stores": {home_dirs.location_key(a): {"last_run": "2026-03-01T02:00:00Z"}}})
    )

    from context_cut.word_vectors import words_dir_for

    assert words_dir_for(home, known(a)) == earlier[WORD_VECTORS]  # read as it was
    assert _index(a) == KEPT and tokens[-1].token_calls == []
    mine = home_dirs.own_dir(home, WORD_VECTORS, known(a))
    assert words_dir_for(home, known(a)) == mine
    for path in earlier[WORD_VECTORS].iterdir():  # linked, not copied
        assert (mine / path.name).stat().st_ino == path.stat().st_ino

    store = open_store(a)
    try:
        now = T0 + timedelta(days=400)
        req = SleepRequest(
            now=now, ignore_window=True, discover_repos=False,
            state_path=home / STATE_FILE,
        )  # fmt: skip
        report = run_sleep(store, req)
        assert report.since is not None and report.since.isoformat().startswith("2026-03-01")
        stores = json.loads((home / STATE_FILE).read_text())["stores"]
        assert list(stores) == [f"store-id:{store.store_id}"]
    finally:
        store.close()

    checks = [c for c in _checks() if c["name"] == "vector-caches"]
    taken = next(c for c in checks if "taken over" in c["detail"])
    assert "2 folder(s) of this store from before its id" in taken["detail"]
    left = next(c for c in checks if c is not taken)
    assert str(other) in left["fix"] and str(other) not in taken["fix"]
    argv = shlex.split(taken["fix"])
    assert argv[:3] == ["rm", "-r", "--"] and len(argv) == 5
    assert all(Path(p).is_absolute() for p in argv[3:])
    subprocess.run(argv, check=True, capture_output=True, timeout=60, cwd=tmp_path)
    assert not any(p.exists() for p in earlier.values())
    assert mine.is_dir() and theirs.is_dir() and other.is_file()
    assert sorted(p.name for p in mine.iterdir()) == ["hash_v1_16-16.f32", "hash_v1_16-16.words"]
    assert not [c for c in _checks() if "taken over" in c["detail"]]
    assert _index(a) == KEPT and tokens[-1].token_calls == []  # nothing lost by the fix


def test_a_flat_file_this_store_took_over_is_removed_by_doctors_fix_and_no_other(
    tokens: list[HashTokens], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flat files of a home from before per-store folders: the ones the store's
    own folder holds (linked) are listed for removal; a flat file of a name no
    folder of the store holds stays (another store of the home may read it)."""
    from context_cut.token_vectors import sync_tokens, voice_texts
    from context_cut.word_vectors import message_texts, sync_words

    home = tmp_path / "mg"
    a = str(tmp_path / "a.db")
    monkeypatch.setenv("MEMGRAPH_STORE", a)
    add_messages(a, *A_TEXTS)
    store = open_store(a)
    try:  # what an index before per-store folders wrote
        sync_words(message_texts(store), HashTokens(), home / WORD_VECTORS)
        sync_tokens(voice_texts(store), HashTokens(), home / TOKEN_VECTORS)
    finally:
        store.close()
    assert _index(a) == KEPT
    stranger = home / WORD_VECTORS / "other_model-384.words"  # flat, after the takeover
    stranger.write_text("another model's table\n")
    (check,) = [c for c in _checks() if "taken over" in c["detail"]]
    argv = shlex.split(check["fix"])
    assert argv[:2] == ["rm", "--"] and str(stranger) not in argv
    flat = [Path(p) for p in argv[2:]]
    assert flat and all(p.is_absolute() and p.parent.parent == home for p in flat)
    subprocess.run(argv, check=True, capture_output=True, timeout=60, cwd=tmp_path)
    assert stranger.is_file() and not any(p.exists() for p in flat)
    assert _index(a) == KEPT  # the store's own links are whole


def test_a_copy_beside_its_original_gets_folders_of_its_own(
    tokens: list[HashTokens], tmp_path: Path
) -> None:
    """A copied store file holds its original's id; it takes one of its own on its
    first write, so its index never rewrites the original's tables (it embeds its
    texts once, into its own)."""
    home = tmp_path / "mg"
    a, c = tmp_path / "a.db", tmp_path / "c.db"
    add_messages(str(a), *A_TEXTS)
    _index(str(a))
    mine = home_dirs.own_dir(home, WORD_VECTORS, known(str(a)))
    before = {p.name: p.stat().st_mtime_ns for p in mine.iterdir()}
    shutil.copyfile(a, c)
    add_messages(str(c), *B_TEXTS)
    assert _index(str(c))[0] == "word vectors: 15 words (15 embedded, 0 kept)"
    theirs = home_dirs.own_dir(home, WORD_VECTORS, known(str(c)))
    assert theirs != mine and {p.name: p.stat().st_mtime_ns for p in mine.iterdir()} == before
    assert _index(str(a)) == KEPT


def test_a_read_only_store_from_before_the_id_reads_its_caches_as_before(
    tokens: list[HashTokens], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store that cannot be written and has no id yet (older schema): recall does
    not fail, makes no id and reads the folder the store had by location."""
    import sqlite3

    import memgraph.store as store_module

    home = tmp_path / "mg"
    a = str(tmp_path / "a.db")
    add_messages(a, *A_TEXTS)
    _index(a)
    earlier = _as_before_the_id(home, a)
    conn = sqlite3.connect(a)
    conn.execute("DROP TABLE store_meta")
    conn.execute("DELETE FROM schema_migrations WHERE version = 106")
    conn.commit()
    conn.close()
    monkeypatch.setattr(store_module, "_writable", lambda _path: False)
    hits = runner.invoke(app, ["recall", "cache tokens", "--store", a])
    assert hits.exit_code == 0 and "cache the tokens" in hits.stdout
    assert tokens[-1].token_calls == ["cache tokens"]  # the token table from before was read
    conn = sqlite3.connect(a)
    assert conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] < 106
    conn.close()
    assert sorted(p.name for p in (home / WORD_VECTORS).iterdir()) == [earlier[WORD_VECTORS].name]


class Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__(64)
        self.texts: list[str] = []

    def embed(self, texts: Any) -> Any:
        self.texts += list(texts)
        return super().embed(texts)


@pytest.mark.parametrize("engine", ["edge", "qdrant-client"])
def test_a_collection_from_before_the_id_is_taken_over_not_embedded_again(
    tmp_path: Path, engine: str
) -> None:
    """The store's Qdrant collection named by its location (before ids) is the one
    it keeps using: no collection by id is filled beside it, nothing is embedded."""
    a = str(tmp_path / "a.db")
    add_messages(a, *A_TEXTS)
    index = VectorIndex.open(path=tmp_path / "qdrant", engine=engine)
    store = open_store(a)
    try:
        sid, store.store_id = store.store_id, None  # what a memgraph from before ids named
        first = sync_index(store, index, Counting())
        store.store_id = sid
        (named,) = first.collections
        assert named.endswith(home_dirs.location_tag(a)) and first.embedded == 2
        again = Counting()
        report = sync_index(store, index, again)
        assert report.collections == [named] and report.embedded == 0 and again.texts == []
        own = qdrant_collection(again.name, 64, "voice", store=store)
        assert own != named and index.dimension_of(own) is None
        rebuilt = sync_index(store, index, again, rebuild=True)  # anew: by id
        assert rebuilt.collections == [own] and index.dimension_of(named) is None
    finally:
        store.close()
        index.close()
