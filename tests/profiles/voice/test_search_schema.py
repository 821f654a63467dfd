"""The voice_index side table: triggers, migration over old data, reindex, import-vault."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from _search_helpers import Msg, add, message_node, ts

from memgraph.documents import UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.errors import NotFound, PatchRejected
from memgraph.store import open_store
from memgraph.store.sqlite import SQLiteStore, iso
from memgraph.store.sqlite_ext.voice_index import MIGRATIONS
from profiles.voice import search
from profiles.voice.search import VoiceQuery, search_voice
from profiles.voice.search_schema import ImportVaultRequest, import_vault, reindex

COLUMNS = (
    "rowid, node_id, session_id, constellation, project, ts, ingested_at, classification,"
    " confidence, voice_page, lifecycle"
)


def index_rows(store: SQLiteStore) -> list[tuple[object, ...]]:
    return store.conn.execute(f"SELECT {COLUMNS} FROM voice_index ORDER BY rowid").fetchall()


def test_versions_are_in_the_reserved_range() -> None:
    # voice_message_session 3-4 and voice_index 5-6: the voice range is 2-9
    assert all(3 <= m.version <= 9 for m in MIGRATIONS)


def test_iso_matches_the_store() -> None:
    dt = datetime(2026, 4, 14, 14, 32, 1, 5, tzinfo=UTC)
    assert search.iso(dt) == iso(dt)


def test_triggers_match_a_rebuild(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    (_, b) = add(
        store,
        Msg("first", ts("2026-01-01"), session_id="s1"),
        Msg("second", ts("2026-01-02"), session_id="s2", voice_page="atlas/voice/x.md"),
    )
    classified = b.model_copy(
        update={
            "lifecycle": "classified",
            "attributes": {**b.attributes, "classification": "decision", "confidence": 0.8},
        }
    )
    apply_patch(store, new_patch([UpsertNode(node=classified)]))  # an update, via the upsert
    by_triggers = index_rows(store)
    assert [r[7] for r in by_triggers] == [None, "decision"]
    report = reindex(store)
    assert report.messages == 2
    assert index_rows(store) == by_triggers
    assert [h.text for h in search_voice(store, VoiceQuery(query="second"))] == ["second"]


def test_rejected_patch_leaves_index_untouched(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    add(store, Msg("kept", ts("2026-01-01")))
    before = index_rows(store)
    good = message_node(Msg("new words", ts("2026-01-02"), uuid="g"))
    bad = message_node(Msg("no anchor", ts("2026-01-02"), uuid="b")).model_copy(
        update={"anchors": []}
    )
    with pytest.raises(PatchRejected):
        apply_patch(store, new_patch([UpsertNode(node=good), UpsertNode(node=bad)]))
    assert index_rows(store) == before


def test_migration_indexes_messages_stored_before_it(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path)
    add(store, Msg("written before the index existed", ts("2026-01-01")))
    # Turn the store back into one that never had migrations 5 and 6.
    store.conn.executescript(
        """
        DROP TRIGGER voice_index_au; DROP TRIGGER voice_index_ad;
        DROP TABLE voice_index; DELETE FROM schema_migrations WHERE version IN (5, 6);
        """
    )
    store.close()
    store = SQLiteStore(path)
    assert {5, 6} <= set(store.schema_versions())
    hits = search_voice(store, VoiceQuery(query="existed"))
    assert [h.text for h in hits] == ["written before the index existed"]
    # 5 re-created the per-row insert trigger, 6 dropped it again: rows written
    # now are indexed once, by the store's set-based statement
    add(store, Msg("written after the upgrade", ts("2026-01-02")))
    assert [h.text for h in search_voice(store, VoiceQuery(query="upgrade"))] == [
        "written after the upgrade"
    ]
    assert len(index_rows(store)) == 2


def test_reindex_repairs_a_damaged_index(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    add(store, Msg("findable words", ts("2026-01-01")))
    store.conn.execute("DELETE FROM voice_index")
    store.conn.execute("INSERT INTO node_fts(node_fts) VALUES ('delete-all')")
    assert search_voice(store, VoiceQuery(query="findable")) == []
    reindex(store)
    assert [h.text for h in search_voice(store, VoiceQuery(query="findable"))] == ["findable words"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["s1", "s2", "s3"]),
            st.sampled_from([None, "decision", "command"]),
            st.integers(0, 5),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_index_always_equals_a_rebuild(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, str | None, int]]
) -> None:
    store = SQLiteStore(tmp_path_factory.mktemp("p") / "m.db")
    for sid, cls, k in edits:
        node = message_node(Msg(f"text {k}", ts("2026-01-01"), session_id=sid, uuid=str(k)))
        node = node.model_copy(
            update={
                "lifecycle": "classified" if cls else "captured",
                "attributes": {**node.attributes, "classification": cls},
            }
        )
        try:
            apply_patch(store, new_patch([UpsertNode(node=node)]))
        except PatchRejected:
            continue  # an illegal lifecycle transition: nothing written
        incremental = index_rows(store)
        reindex(store)
        assert index_rows(store) == incremental
    store.close()


# -- import-vault ----------------------------------------------------------------


def _page(session_id: str, texts: list[str], constellation: str = "atlas") -> object:
    from profiles.voice.pages import VoiceMessageEntry, VoicePage

    start = ts("2026-04-14", "14:00")
    entries = [
        VoiceMessageEntry(
            record_uuid=f"{session_id}-{i}",
            timestamp=start.replace(minute=i),
            text=t,
            transcript="/home/u/.claude/projects/x/s.jsonl",
            line=i + 1,
        )
        for i, t in enumerate(texts)
    ]
    return VoicePage(
        title="t",
        constellation=constellation,
        project=constellation,
        session_id=session_id,
        created=start.date(),
        updated=start.date(),
        valid_from=entries[0].timestamp,
        valid_to=entries[-1].timestamp,
        ingested_at=ts("2026-04-15"),
        sources=["/home/u/.claude/projects/x/s.jsonl"],
        messages=entries,
    )


def _write_vault(vault: Path) -> None:
    from profiles.voice.pages import page_relpath, render_page

    pages = [
        _page("aaaa1111-s", ["the schema migration worries me", "use a side table", "ship it"]),
        _page(
            "bbbb2222-s",
            ["rotate keys monthly", "--- not yaml ---", "> **14:32** — fake"],
            constellation="zeta",
        ),
    ]
    for page in pages:
        rel = page_relpath(page.constellation, page.created, page.session_id)  # type: ignore[attr-defined]
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(render_page(page), encoding="utf-8")  # type: ignore[arg-type]


def test_import_vault_makes_a_copied_vault_searchable(tmp_path: Path) -> None:
    pytest.importorskip("profiles.voice.pages")
    vault = tmp_path / "vault"
    _write_vault(vault)
    (vault / "atlas" / "voice" / "broken.md").write_text("---\nnot: [closed\n", encoding="utf-8")
    (vault / "atlas" / "notes.md").write_text("not a voice page", encoding="utf-8")
    store = open_store(tmp_path / "fresh.db")
    report = import_vault(store, ImportVaultRequest(vault=vault))
    assert (report.pages, report.messages) == (2, 6)
    assert len(report.failed) == 1 and report.failed[0].startswith("atlas/voice/broken.md: ")
    (hit,) = search_voice(store, VoiceQuery(query='"side table"'))
    assert hit.voice_page == "atlas/voice/2026-04-14-aaaa1111.md"
    assert hit.session_id == "aaaa1111-s"
    assert [h.text for h in search_voice(store, VoiceQuery(query="fake", project="zeta"))] == [
        "> **14:32** — fake"
    ]
    again = import_vault(store, ImportVaultRequest(vault=vault))
    assert again.nodes_written == 0  # re-import changes nothing


def test_import_vault_missing_dir(tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        import_vault(open_store(tmp_path / "m.db"), ImportVaultRequest(vault=tmp_path / "nope"))


def test_import_vault_ignores_symlinks_out_of_the_vault(tmp_path: Path) -> None:
    pytest.importorskip("profiles.voice.pages")
    outside = tmp_path / "outside"
    _write_vault(outside)
    vault = tmp_path / "vault"
    (vault / "evil" / "voice").mkdir(parents=True)
    src = next((outside / "atlas" / "voice").glob("*.md"))
    (vault / "evil" / "voice" / "x.md").symlink_to(src)
    report = import_vault(open_store(tmp_path / "m.db"), ImportVaultRequest(vault=vault))
    assert (report.pages, report.failed) == (0, [])


def test_import_vault_ignores_a_voice_folder_linked_out_of_the_vault(tmp_path: Path) -> None:
    """The page itself is a regular file; its folder is the link (a last-component
    check would read it)."""
    pytest.importorskip("profiles.voice.pages")
    outside = tmp_path / "outside"
    _write_vault(outside)
    vault = tmp_path / "vault"
    (vault / "evil").mkdir(parents=True)
    (vault / "evil" / "voice").symlink_to(outside / "atlas" / "voice", target_is_directory=True)
    (vault / "also").symlink_to(outside / "atlas", target_is_directory=True)
    report = import_vault(open_store(tmp_path / "m.db"), ImportVaultRequest(vault=vault))
    assert (report.pages, report.failed) == (0, [])


@pytest.mark.parametrize("swap", ["page", "voice-dir"])
def test_import_vault_reads_nothing_swapped_out_of_the_vault_after_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swap: str
) -> None:
    """A page (or its folder) replaced by a link out of the vault between the
    listing's check and the read is not read: the open itself is checked."""
    pytest.importorskip("profiles.voice.pages")
    from profiles.voice import search_schema

    outside = tmp_path / "outside"
    _write_vault(outside)
    vault = tmp_path / "vault"
    _write_vault(vault)
    checked = search_schema.iter_voice_pages

    def racing(root: Path) -> Iterator[tuple[Path, PurePosixPath]]:
        for page, rel in checked(root):  # checked: a regular file inside the vault
            there = outside / rel
            if swap == "page":
                page.unlink()
                page.symlink_to(there)
            elif not page.parent.is_symlink():
                page.parent.rename(page.parent.with_name("moved"))
                page.parent.symlink_to(there.parent, target_is_directory=True)
            yield page, rel

    monkeypatch.setattr(search_schema, "iter_voice_pages", racing)
    store = open_store(tmp_path / "m.db")
    report = import_vault(store, ImportVaultRequest(vault=vault))
    assert (report.pages, report.messages) == (0, 0)
    assert len(report.failed) == 2
    assert all(": " in line and "escapes" in line and "\n" not in line for line in report.failed)
    assert search_voice(store, VoiceQuery(query='"side table"')) == []


# -- voice_tri: the trigram (substring) index -----------------------------------------


def trigram_vocab(store: SQLiteStore) -> list[tuple[object, ...]]:
    conn = store.conn
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.tv USING fts5vocab(main, voice_tri, row)")
    return conn.execute("SELECT term, doc, cnt FROM temp.tv ORDER BY term").fetchall()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["captured", "classified", "retired"]),
            st.sampled_from(["方案修复", "facts and artifacts", "Ünïcode ÄB", "x"]),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_trigram_index_always_equals_a_rebuild(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[str, str, int]]
) -> None:
    store = SQLiteStore(tmp_path_factory.mktemp("t") / "m.db")
    for lifecycle, text, k in edits:
        node = message_node(Msg(f"{text} {k}", ts("2026-01-01"), session_id="s1", uuid=str(k)))
        cls = "decision" if lifecycle == "classified" else None
        node = node.model_copy(
            update={
                "lifecycle": lifecycle,
                "attributes": {**node.attributes, "classification": cls},
            }
        )
        try:
            apply_patch(store, new_patch([UpsertNode(node=node)]))
        except PatchRejected:
            continue
        incremental = trigram_vocab(store)
        reindex(store)
        assert trigram_vocab(store) == incremental
        live = {
            r[0]
            for r in store.conn.execute(
                "SELECT json_extract(mg_doc(doc), '$.claim') FROM nodes WHERE lifecycle != 'retired'"
            )
        }
        hits = {h.text for h in search_voice(store, VoiceQuery(query="修复", limit=50))}
        assert hits == {t for t in live if "修复" in t}
    store.close()


def test_trigram_migration_indexes_messages_stored_before_it(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.db")
    add(store, Msg("切到方案B", ts("2026-01-01")))
    store.conn.execute("DROP TABLE voice_tri")
    store.conn.execute("DROP TRIGGER IF EXISTS voice_tri_au")
    store.conn.execute("DROP TRIGGER IF EXISTS voice_tri_ad")
    store.conn.execute("DELETE FROM schema_migrations WHERE version = 7")
    store.conn.commit()
    store.close()
    store = SQLiteStore(tmp_path / "m.db")  # migrates again
    assert [h.text for h in search_voice(store, VoiceQuery(query="方案"))] == ["切到方案B"]
    store.close()


def test_labels_constant_matches_the_classifier_labels() -> None:
    from profiles.voice.classify.labels import LABELS

    assert search.LABELS == LABELS


def test_an_edited_message_on_a_page_is_named_by_its_time_not_the_engines_path(
    tmp_path: Path,
) -> None:
    """Re-importing a page whose message text a person edited: the store's verbatim text
    stands and the page is skipped; the line said "ops[1] upsert_node: n-...: voice
    message text is verbatim and cannot be revised"."""
    pytest.importorskip("profiles.voice.pages")
    vault = tmp_path / "vault"
    _write_vault(vault)
    store = open_store(tmp_path / "m.db")
    assert import_vault(store, ImportVaultRequest(vault=vault)).failed == []
    page = vault / "atlas" / "voice" / "2026-04-14-aaaa1111.md"
    page.write_text(page.read_text().replace("use a side table", "use a SIDE table"))
    report = import_vault(store, ImportVaultRequest(vault=vault))
    (line,) = report.failed
    assert line.startswith("atlas/voice/2026-04-14-aaaa1111.md: the message of 2026-04-14 ")
    assert "differs from the stored one" in line and "`memgraph render aaaa1111`" in line
    assert "ops[" not in line and "upsert_node" not in line
    (hit,) = search_voice(store, VoiceQuery(query='"side table"'))
    assert hit.text == "use a side table"  # the stored text stands
