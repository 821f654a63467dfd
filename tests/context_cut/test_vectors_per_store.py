"""One Qdrant (``<home>/qdrant``, or a server a fleet shares), several stores: each
store's vectors live in collections of its own (``context_cut.vector_projection.
qdrant_collection``), so one store's points neither crowd another's ranking nor are
deleted by another's ``forget``, and a store whose collection is empty is rebuilt
even when another store's points sit in the same Qdrant."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from context_cut.embedders import HashEmbedder
from context_cut.vector_index import VectorIndex
from context_cut.vector_projection import (
    collection_name,
    collections_of,
    qdrant_collection,
    shared_collection,
)
from context_cut.vector_sync import sync_index
from context_cut.vectors import VectorNerve
from memgraph.errors import BackendUnavailable
from memgraph.store import Store
from memgraph.store.sqlite import SQLiteStore
from profiles.voice.forget import ForgetRequest, forget
from tests.profiles.voice.test_forget import OTHER, SECRET, _capture, _search


@pytest.fixture(params=["edge", "qdrant-client"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> VectorIndex:
    """The one embedded Qdrant of a home, run by either engine."""
    opened = VectorIndex.open(path=tmp_path / "qdrant", engine=request.param)
    request.addfinalizer(opened.close)
    return opened


def _stores(tmp_path: Path) -> tuple[SQLiteStore, SQLiteStore]:
    return SQLiteStore(tmp_path / "a.db"), SQLiteStore(tmp_path / "b.db")


def _ids(hits: list[tuple[str, float]]) -> list[str]:
    return [doc for doc, _score in hits]


def _known(store: Store, ids: list[str]) -> set[str]:
    with store.reader() as reader:
        return set(reader.get_nodes(ids))


def test_forget_in_one_store_leaves_the_same_message_in_another(
    index: VectorIndex, tmp_path: Path
) -> None:
    """B holds the same messages as A (a restored copy, a store migrated from A):
    the same ids. Forgetting one in A deleted B's point of that id too, so B's
    vector ranking lost a message B never forgot."""
    a, b = _stores(tmp_path)
    texts = [SECRET, OTHER, "and a third message about tests"]
    _capture(a, tmp_path / "va", texts)
    _capture(b, tmp_path / "vb", texts)
    embedder = HashEmbedder(64)
    nerve = VectorNerve(index, embedder)
    sync_index(a, index, embedder)
    sync_index(b, index, embedder)
    target = _search(a, "quokka")
    assert len(target) == 1 and _search(b, "quokka") == target

    done = forget(a, ForgetRequest(message_ids=tuple(target)), [index.backend])
    assert done.vector_points == 1
    assert target[0] not in _ids(nerve.search(a, SECRET, 5))
    assert target[0] in _ids(nerve.search(b, SECRET, 5))  # B's point is B's
    a.close()
    b.close()


def test_a_stores_vector_ranking_holds_only_its_own_documents(
    index: VectorIndex, tmp_path: Path
) -> None:
    """A's six notes about quokkas filled the top of B's vector ranking (ids B does
    not have, dropped only after the cut), pushing B's own quokka message out."""
    a, b = _stores(tmp_path)
    _capture(a, tmp_path / "va", [f"quokka note number {i}" for i in range(6)], sid="s-a")
    _capture(b, tmp_path / "vb", ["a quokka passed by", OTHER, "unrelated words"], sid="s-b")
    embedder = HashEmbedder(64)
    nerve = VectorNerve(index, embedder)
    sync_index(a, index, embedder)
    sync_index(b, index, embedder)
    hits = _ids(nerve.search(b, "quokka note", 3))
    assert hits and _known(b, hits) == set(hits)  # none of A's ids
    assert _search(b, "quokka")[0] in hits
    assert len(_ids(nerve.search(a, "quokka note", 10))) == 6  # A's own, all of them
    a.close()
    b.close()


def test_an_empty_collection_is_rebuilt_beside_another_stores_points(
    index: VectorIndex, tmp_path: Path
) -> None:
    """B was indexed from another home (its manifests say so) and is now read from a
    home whose Qdrant holds only A's points: the collection was not empty, so B's
    vectors were never rebuilt and B's ranking was A's."""
    a, b = _stores(tmp_path)
    _capture(a, tmp_path / "va", [f"quokka note number {i}" for i in range(3)], sid="s-a")
    _capture(b, tmp_path / "vb", ["a quokka passed by", OTHER], sid="s-b")
    embedder = HashEmbedder(64)
    sync_index(a, index, embedder)
    elsewhere = VectorIndex.open(path=tmp_path / "other-home-qdrant", engine="qdrant-client")
    sync_index(b, elsewhere, embedder)
    elsewhere.close()

    nerve = VectorNerve(index, embedder)
    hits = _ids(nerve.search(b, "quokka", 5))
    assert _search(b, "quokka")[0] in hits and _known(b, hits) == set(hits)
    assert any("was empty; rebuilt" in n for n in nerve.notices), nerve.notices
    a.close()
    b.close()


def test_a_stores_collections_are_named_alike_on_every_machine(tmp_path: Path) -> None:
    """On a shared Qdrant server the name is all that tells stores apart: machines on
    one PostgreSQL store (password or not, port spelled or not) name one collection,
    two databases two; a file store is named by its real path; no password and
    nothing outside ``[a-z0-9_]`` (Edge's rule) in any of them, and never a name
    taken for a shared one from before."""
    from memgraph.home_dirs import StoreAt

    url = StoreAt("postgresql://me:secret@db.example:5432/mem")  # (keyed by location)
    same = qdrant_collection("m", 384, "voice", store=StoreAt("postgresql://me@db.example/mem"))
    assert qdrant_collection("m", 384, "voice", store=url) == same
    assert same.startswith("mg_voice_m_384__mem_") and "secret" not in same
    other = qdrant_collection("m", 384, "voice", store=StoreAt("postgresql://me@db.example/other"))
    db = tmp_path / "x" / "memgraph.db"
    db.parent.mkdir()
    (tmp_path / "link").symlink_to(db.parent)
    linked = qdrant_collection(
        "m", 384, "voice", store=StoreAt(str(tmp_path / "link" / "memgraph.db"))
    )
    assert qdrant_collection("m", 384, "voice", store=StoreAt(str(db))) == linked
    long = qdrant_collection("x" * 80, 4096, "records", store=StoreAt(str(tmp_path / ("y" * 200))))
    names = [same, other, linked, long]
    assert len(set(names)) == 4
    assert all(re.fullmatch(r"[a-z0-9_]{1,120}", n) for n in names)
    assert not any(shared_collection(n) for n in names)
    assert shared_collection(collection_name("m", 384, "voice"))
    assert collections_of([same, other, "mg_voice_m_384", "unrelated"], url) == [
        same,
        "mg_voice_m_384",
    ]


def test_a_store_is_named_by_its_own_id_not_by_the_last_store_opened_at_its_path(
    tmp_path: Path,
) -> None:
    """A store object outlives its file: another store is made at the path and opened
    in the same process (a server holding a store across a restore). The held store
    still names its own collection. Keyed by a process-wide map of the id last
    opened at each path, it named the newcomer's (its writes and ``forget`` would
    have gone there)."""
    db = tmp_path / "mg.db"
    held = SQLiteStore(db)
    held.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    newcomer = SQLiteStore(db)
    newcomer.close()
    assert held.store_id and newcomer.store_id and newcomer.store_id != held.store_id
    index = VectorIndex.open(path=":memory:")
    try:
        named = VectorNerve(index, HashEmbedder(64)).collection_for("voice", held)
    finally:
        index.close()
    assert named.endswith("__id_" + held.store_id.replace("-", ""))


def test_a_search_after_the_upgrade_leaves_the_re_embedding_to_index(
    index: VectorIndex, tmp_path: Path
) -> None:
    """The home's Qdrant holds the shared collection from before per-store ones: the
    store's own is empty, but filling it means embedding the whole store again
    (minutes with MiniLM), so a search says to run `memgraph index` instead of
    doing it; `sync_index` then fills it without writing a manifest."""
    store = SQLiteStore(tmp_path / "a.db")
    _capture(store, tmp_path / "va", ["a quokka passed by", OTHER], sid="s-a")
    embedder = HashEmbedder(64)
    elsewhere = VectorIndex.open(path=":memory:")
    sync_index(store, elsewhere, embedder)  # the manifests: indexed before
    elsewhere.close()
    shared = collection_name(embedder.name, 64, "voice")
    index.ensure_collection(shared, 64)
    index.upsert(shared, ["n-0000000000000001"], embedder.embed(["a quokka passed by"]))

    nerve = VectorNerve(index, embedder)
    with pytest.raises(BackendUnavailable, match="run `memgraph index`"):
        nerve.search(store, "quokka", 5)
    assert any(shared in n and "memgraph index" in n for n in nerve.notices), nerve.notices
    own = qdrant_collection(embedder.name, 64, "voice", store=store)
    assert index.count(own) == 0 and index.count(shared) == 1  # neither touched
    report = sync_index(store, index, embedder)
    assert report.embedded == 3 and report.manifests == 0
    assert _search(store, "quokka")[0] in _ids(
        VectorNerve(index, embedder).search(store, "quokka", 5)
    )
    store.close()
