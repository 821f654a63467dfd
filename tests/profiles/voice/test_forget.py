"""``memgraph forget``: the text leaves the store, FTS, history, pages, snapshots and vectors."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memgraph.documents import to_json
from memgraph.errors import PatchRejected
from memgraph.store import Store
from memgraph.store.interfaces import indexes
from memgraph.store.sqlite import SQLiteStore
from memgraph.store.voice_rows import VoiceSearch
from profiles.voice.capture import CaptureRequest, capture_messages
from profiles.voice.forget import ForgetRequest, find_targets, forget
from profiles.voice.policy import FORGOTTEN
from tests.memgraph.conftest import open_backend
from tests.profiles.voice._capture_helpers import SID, op_msg

SECRET = "the vault combination is quokka-7731-marmalade"
OTHER = "keep this one: the retry loop needs jitter"


def _capture(store: Store, vault: Path, texts: list[str], sid: str = SID) -> None:
    msgs = [op_msg(t, i, sid=sid) for i, t in enumerate(texts)]
    capture_messages(store, msgs, CaptureRequest(transcript=Path("/t/x.jsonl"), vault=vault))


def _snapshot_json(store: Store) -> str:
    return to_json(store.export_snapshot())


def _search(store: Store, words: str) -> list[str]:
    return [r.node_id for r in indexes(store).voice.search(VoiceSearch(query=words, limit=50))]


@pytest.fixture(params=["sqlite", "memory", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    store = open_backend(request.param, tmp_path, request)
    yield store
    store.close()


def test_forget_a_message_leaves_a_tombstone_and_no_text(backend: Store, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _capture(backend, vault, [SECRET, OTHER, "and a third message about tests", "yes"])
    target = _search(backend, "quokka")
    assert len(target) == 1 and "quokka" in _snapshot_json(backend)
    page = next(p for p in vault.rglob("*.md") if p.name != "log.md")
    assert "quokka" in page.read_text() and "quokka" in (vault / "log.md").read_text()

    result = forget(
        backend, ForgetRequest(message_ids=(target[0],), reason="pasted", by="ada", vault=vault)
    )
    assert [n.id for n in result.messages] == target
    with backend.reader() as r:
        node = r.get_nodes(target)[target[0]]
    assert node.lifecycle == "forgotten" and node.claim == FORGOTTEN == node.title
    assert node.attributes["forgotten_by"] == "ada" and node.attributes["forgotten_at"]
    receipt = [x for x in backend.receipts(target_id=target[0]) if x.after == "forgotten"]
    assert len(receipt) == 1 and receipt[0].reason == "forget by ada: pasted"
    assert receipt[0].actor == "voice.forget" and receipt[0].at
    # store rows, history, patches, receipts: the snapshot is all of them
    dump = _snapshot_json(backend)
    assert "quokka" not in dump and "marmalade" not in dump
    assert OTHER in dump and '"yes"' in dump  # nothing else touched
    assert _search(backend, "quokka") == [] and _search(backend, "marmalade") == []
    assert _search(backend, "jitter")  # the index still works
    text = page.read_text()
    assert "quokka" not in text and "jitter" in text
    assert "quokka" not in (vault / "log.md").read_text()  # it quoted the page title
    # exported afterwards: a snapshot file carries no trace either
    out = tmp_path / "snap.json"
    out.write_text(dump)
    assert b"quokka" not in out.read_bytes()


def test_recapture_does_not_bring_the_text_back(backend: Store, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    texts = [SECRET, OTHER, "third message here"]
    _capture(backend, vault, texts)
    forget(backend, ForgetRequest(query="quokka", vault=vault))
    _capture(backend, vault, texts)  # the transcript still holds it
    assert "quokka" not in _snapshot_json(backend)
    assert _search(backend, "quokka") == []


def test_forget_a_session_removes_its_page(backend: Store, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _capture(backend, vault, [SECRET, OTHER, "third message here"])
    other = "90000000-aaaa-bbbb-cccc-000000000002"
    _capture(backend, vault, ["a different session", "with its own page", "ok then"], sid=other)
    pages = sorted(p for p in vault.rglob("*.md") if p.name != "log.md")
    result = forget(backend, ForgetRequest(session_ids=(SID,), vault=vault))
    assert len(result.messages) == 3 and result.pages_removed
    assert result.session_nodes
    dump = _snapshot_json(backend)
    assert "quokka" not in dump and "jitter" not in dump
    assert "a different session" in dump
    left = sorted(p for p in vault.rglob("*.md") if p.name != "log.md")
    assert len(left) == len(pages) - 1
    _capture(backend, vault, [SECRET, OTHER, "third message here"])  # captured again: no
    assert "quokka" not in _snapshot_json(backend)
    assert sorted(p for p in vault.rglob("*.md") if p.name != "log.md") == left
    assert all("quokka" not in p.read_text() for p in vault.rglob("*") if p.is_file())


def test_dry_run_writes_nothing(backend: Store, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _capture(backend, vault, [SECRET, OTHER, "third message here"])
    before = _snapshot_json(backend)
    plan = forget(backend, ForgetRequest(query="quokka marmalade", dry_run=True, vault=vault))
    assert len(plan.messages) == 1 and plan.dry_run
    assert _snapshot_json(backend) == before


def test_short_text_is_scrubbed_only_where_it_belongs(backend: Store, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    _capture(backend, vault, ["yes", "a longer message one", "a longer message two"])
    _capture(backend, vault, ["yes", "other session text", "more of it"], sid="9" + SID[1:])
    plan = find_targets(backend, ForgetRequest(session_ids=(SID,)))
    yes = next(n.id for n in plan.messages if n.claim == "yes")
    forget(backend, ForgetRequest(message_ids=(yes,)))
    survivors = [r.text for r in indexes(backend).voice.search(VoiceSearch(limit=50))]
    assert survivors.count("yes") == 1  # the other session's "yes" is untouched


def test_tombstone_law(tmp_path: Path) -> None:
    from memgraph.engine import apply_patch, new_patch
    from memgraph.store.memory import MemoryStore

    store = MemoryStore()
    _capture(store, tmp_path / "vault", [SECRET, OTHER, "x y z"])
    node = next(iter(store.iter_nodes(profile="voice", kind="message")))
    from memgraph.documents import UpsertNode

    bad = node.model_copy(update={"lifecycle": "forgotten"})  # keeps its text
    with pytest.raises(PatchRejected, match="keeps no text"):
        apply_patch(store, new_patch([UpsertNode(node=bad)]))
    edited = node.model_copy(update={"claim": "rewritten"})  # the verbatim law still holds
    with pytest.raises(PatchRejected, match="verbatim"):
        apply_patch(store, new_patch([UpsertNode(node=edited)]))


def test_sqlite_file_bytes_hold_no_trace(tmp_path: Path) -> None:
    db = tmp_path / "mg.db"
    store = SQLiteStore(db)
    vault = tmp_path / "vault"
    _capture(store, vault, [SECRET, OTHER, "third message here"])

    def raw() -> bytes:
        return b"".join(
            p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("mg.db") and p.is_file()
        )

    assert b"quokka" in raw()
    result = forget(store, ForgetRequest(query="quokka", vault=vault))
    assert result.scrubbed["node_history"] >= 1 or result.scrubbed["patches"] >= 1
    store.close()
    assert b"quokka" not in raw() and b"marmalade" not in raw()
    assert not any(b"quokka" in p.read_bytes() for p in vault.rglob("*") if p.is_file())
    reopened = SQLiteStore(db)  # still a healthy store; receipts still append-only
    assert reopened.integrity() == "ok"
    import sqlite3

    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        reopened.conn.execute("UPDATE receipts SET op = 'x'")
    reopened.close()


def test_postgres_data_files_hold_no_trace(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    import psycopg

    from memgraph.store.postgres import open_postgres

    server = request.getfixturevalue("pg_server")
    url = server.create_database()
    store = open_postgres(url)
    vault = tmp_path / "vault"
    _capture(store, vault, [SECRET, OTHER, "third message here"])

    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
        oid = row.fetchone()[0]  # type: ignore[index]

    def on_disk() -> list[str]:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CHECKPOINT")
        base = Path(server.datadir) / "base" / str(oid)  # this database's files
        return [
            p.name
            for p in base.rglob("*")
            if p.is_file() and os.access(p, os.R_OK) and b"quokka" in p.read_bytes()
        ]

    assert on_disk()
    forget(store, ForgetRequest(query="quokka", vault=vault))
    store.close()
    assert on_disk() == []
    with psycopg.connect(url, autocommit=True) as conn, pytest.raises(psycopg.Error):
        conn.execute("UPDATE receipts SET op = 'x'")


@pytest.mark.parametrize("engine", ["edge", "qdrant-client"])
def test_vector_points_are_removed(tmp_path: Path, engine: str) -> None:
    from context_cut.embedders import HashEmbedder
    from context_cut.vector_index import VectorIndex
    from context_cut.vector_projection import qdrant_collection
    from context_cut.vector_sync import sync_index

    store = SQLiteStore(tmp_path / "mg.db")
    _capture(store, tmp_path / "vault", [SECRET, OTHER, "third message here"])
    index = VectorIndex.open(path=tmp_path / "qdrant", engine=engine)
    embedder = HashEmbedder(64)
    sync_index(store, index, embedder)
    target = _search(store, "quokka")
    collection = qdrant_collection(embedder.name, embedder.dimension, store=store)
    assert index.present(collection, target) == set(target)
    result = forget(store, ForgetRequest(message_ids=tuple(target)), [index.backend])
    assert result.vector_points == 1 and result.manifests == 1
    assert index.present(collection, target) == set()
    assert index.count(collection) >= 2  # the others stay
    index.close()
    store.close()


def test_tombstones_are_never_search_hits(backend: Store, tmp_path: Path) -> None:
    """A forgotten message is not a keyword hit, a listing row, nor a recall turn."""
    from context_cut.turns import TurnScope

    vault = tmp_path / "vault"
    _capture(backend, vault, [SECRET, OTHER, "and a third message about tests"])
    forget(backend, ForgetRequest(query="quokka", vault=vault))
    assert _search(backend, "forgotten") == []
    listing = indexes(backend).voice.search(VoiceSearch(query="", limit=50))
    assert len(listing) == 2 and all(r.text != FORGOTTEN for r in listing)
    with backend.reader() as r:
        nodes = list(r.get_nodes([n.id for n in backend.iter_nodes(profile="voice")]).values())
    tomb = [n for n in nodes if n.lifecycle == "forgotten"]
    assert len(tomb) == 1 and not TurnScope().admits(tomb[0])


def test_stats_count_tombstones_apart(backend: Store, tmp_path: Path) -> None:
    """``voice --stats``: a forgotten message is counted as forgotten, in no other line;
    a session whose every message is forgotten is no longer a session."""
    vault = tmp_path / "vault"
    _capture(backend, vault, [SECRET, OTHER, "and a third message about tests"])
    _capture(backend, vault, ["quokka only, in a session of its own"], sid="s-two")
    before = indexes(backend).voice.stats()
    assert (before.messages, before.sessions, before.forgotten) == (4, 2, 0)
    forget(backend, ForgetRequest(query="quokka", vault=vault))
    after = indexes(backend).voice.stats()
    assert (after.messages, after.sessions, after.forgotten) == (2, 1, 2)
    assert sum(c for _, c in after.by_constellation) == 2
    assert sum(c for _, c in after.by_classification) == 2
    assert after.first is not None and after.last is not None


@pytest.mark.parametrize("whole_session", [False, True])
def test_another_machines_vault_loses_the_text_on_its_next_render(
    backend: Store, tmp_path: Path, whole_session: bool
) -> None:
    """A fleet: `forget` runs on machine A; machine B's vault, rendered from the shared
    store before, still held the text, and B's render (and capture) left it there.
    B's next render removes the page, or rewrites it carrying B's own notes."""
    from profiles.render import RenderRequest, render_views

    vault_a, vault_b = tmp_path / "vault-a", tmp_path / "vault-b"
    _capture(backend, vault_a, [SECRET, OTHER, "and a third message about tests", "yes"])
    render_views(backend, RenderRequest(vault=vault_b, workspace=tmp_path / "ws-b"))
    (page_b,) = [p for p in vault_b.rglob("*.md") if p.name != "log.md"]
    page_b.write_text(page_b.read_text() + "\nmy own note on machine B\n")
    assert "quokka" in page_b.read_text()
    asked = ForgetRequest(session_ids=(SID,)) if whole_session else ForgetRequest(query="quokka")
    forget(backend, ForgetRequest(**{**asked.__dict__, "vault": vault_a}))

    report = render_views(backend, RenderRequest(vault=vault_b, workspace=tmp_path / "ws-b"))
    assert report.forgotten == 1
    left = [p for p in vault_b.rglob("*") if p.is_file()]
    assert [p for p in left if "quokka" in p.read_text()] == []
    if whole_session:
        assert not page_b.exists()
    else:
        text = page_b.read_text()
        assert "jitter" in text and "my own note on machine B" in text
    again = render_views(backend, RenderRequest(vault=vault_b, workspace=tmp_path / "ws-b"))
    assert again.forgotten == 0 and again.written == []


def test_another_machines_capture_of_a_forgotten_session_removes_its_page(
    backend: Store, tmp_path: Path
) -> None:
    """Machine B's hook captures a session machine A forgot ('no page: forgotten'):
    B's page of it, written before the forget, goes too (it was left with the text)."""
    vault_a, vault_b = tmp_path / "vault-a", tmp_path / "vault-b"
    texts = [SECRET, OTHER, "and a third message about tests"]
    _capture(backend, vault_b, texts)
    (page_b,) = [p for p in vault_b.rglob("*.md") if p.name != "log.md"]
    forget(backend, ForgetRequest(session_ids=(SID,), vault=vault_a))
    assert "quokka" in page_b.read_text()
    _capture(backend, vault_b, texts)  # B's transcript still holds the session
    assert not page_b.exists()
    assert [p for p in vault_b.rglob("*") if p.is_file() and "quokka" in p.read_text()] == []


@pytest.mark.parametrize("more", [False, True])
def test_another_machines_capture_after_a_partial_forget_rewrites_its_page(
    backend: Store, tmp_path: Path, more: bool
) -> None:
    """Machine A forgets one message of a session machine B captured; B's hook then
    captures the session again (nothing new, or one more message): B's page held the
    forgotten text (only B's render and a wholly forgotten session cleared it)."""
    vault_a, vault_b = tmp_path / "vault-a", tmp_path / "vault-b"
    texts = [SECRET, OTHER, "and a third message about tests"]
    _capture(backend, vault_b, texts)
    (page_b,) = [p for p in vault_b.rglob("*.md") if p.name != "log.md"]
    page_b.write_text(page_b.read_text() + "\nmy own note on machine B\n")
    forget(backend, ForgetRequest(query="quokka", vault=vault_a))
    assert "quokka" in page_b.read_text()
    _capture(backend, vault_b, [*texts, "one more about the release"] if more else texts)
    assert [p for p in vault_b.rglob("*") if p.is_file() and "quokka" in p.read_text()] == []
    text = page_b.read_text()
    assert "jitter" in text and "my own note on machine B" in text
    assert ("one more about the release" in text) == more


def test_another_machines_render_never_removes_a_page_through_a_folder_linked_out(
    tmp_path: Path,
) -> None:
    """A vault whose ``<constellation>/voice`` folder became a symlink to a folder outside
    it (here: another vault's): clearing a forgotten session's pages must not read,
    remove or rewrite the files there (the page's own lstat only guards its last
    component). One failed line for the session; the other vault's page stays."""
    from profiles.render import RenderRequest, render_views

    store = SQLiteStore(tmp_path / "m.db")
    vault_a, vault_b, vault_c = (tmp_path / f"vault-{x}" for x in "abc")
    _capture(store, vault_b, [SECRET, OTHER, "and a third message about tests"])
    (page_b,) = [p for p in vault_b.rglob("*.md") if p.name != "log.md"]
    voice_b = page_b.parent
    (vault_c / voice_b.parent.name).mkdir(parents=True)
    (vault_c / voice_b.parent.name / "voice").symlink_to(voice_b, target_is_directory=True)
    forget(store, ForgetRequest(session_ids=(SID,), vault=vault_a))
    before = {p: p.read_bytes() for p in voice_b.iterdir()}
    report = render_views(store, RenderRequest(vault=vault_c, workspace=tmp_path / "ws-c"))
    assert {p: p.read_bytes() for p in voice_b.iterdir()} == before  # nothing removed there
    assert report.forgotten == 0
    (failed,) = report.failed
    assert failed.startswith(SID) and "escapes" in failed
    store.close()


# -- a person's save landing while forget rewrites a view ----------------------


def _save_after_read(
    monkeypatch: pytest.MonkeyPatch, path: Path, save: str, armed: list[bool]
) -> list[str]:
    """The first read of ``path`` (through ``memgraph.fileio``) once ``armed`` holds
    True is followed by the person's ``save`` (between forget's read and write)."""
    import memgraph.fileio as fileio

    real = fileio.read_text_nofollow
    pending = [save]

    def read_then_save(p: Path, *a: Any) -> str | None:
        text = real(p, *a)
        if p == path and armed and pending:
            p.write_text(pending.pop(), encoding="utf-8")
        return text

    monkeypatch.setattr(fileio, "read_text_nofollow", read_then_save)
    return pending


def test_a_line_saved_in_log_md_while_forget_scrubs_it_is_kept_and_scrubbed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "mg.db")
    vault = tmp_path / "vault"
    _capture(store, vault, [SECRET, OTHER, "and a third message about tests"])
    log = vault / "log.md"
    saved = log.read_text() + f"- my own line\n- I pasted {SECRET} here too\n"
    pending = _save_after_read(monkeypatch, log, saved, [True])
    [target] = _search(store, "quokka")
    forget(store, ForgetRequest(message_ids=(target,), vault=vault))
    assert not pending  # the save landed between the log's read and its rewrite
    text = log.read_text()
    assert "- my own line\n" in text  # the person's save was not replaced ...
    assert "quokka" not in text  # ... and what it quoted of the forgotten text went too
    store.close()


@pytest.mark.parametrize("keeps_text", [False, True])
def test_a_page_saved_while_forget_rewrites_it_keeps_no_forgotten_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keeps_text: bool
) -> None:
    """A page edited inside memgraph's text (so the page writer leaves it) is
    rewritten by forget: the text must go. A save landing meanwhile is read again:
    kept when it no longer holds the text, else rewritten too."""
    from profiles.voice import forget_views

    store = SQLiteStore(tmp_path / "mg.db")
    vault = tmp_path / "vault"
    _capture(store, vault, [SECRET, OTHER, "and a third message about tests"])
    page = next(p for p in vault.rglob("*.md") if p.name != "log.md")
    page.write_text(page.read_text().replace("retry loop", "retry loops"))  # inside: kept
    save = f"my own page now\n{SECRET if keeps_text else 'nothing secret'}\n"
    armed: list[bool] = []
    pending = _save_after_read(monkeypatch, page, save, armed)
    real = forget_views._write_view

    def write_then_arm(*a: Any) -> bool:
        changed = real(*a)
        armed.append(True)  # the next read of the page is forget's own
        return changed

    monkeypatch.setattr(forget_views, "_write_view", write_then_arm)
    [target] = _search(store, "quokka")
    forget(store, ForgetRequest(message_ids=(target,), vault=vault))
    assert not pending
    text = page.read_text()
    assert "quokka" not in text
    assert ("my own page now" in text) is not keeps_text
    store.close()


def test_a_note_or_memory_quoting_the_message_loses_the_quote_too(
    backend: Store, tmp_path: Path
) -> None:
    """Live nodes that quote a forgotten message are rewritten through the engine
    (their own receipt); another voice message with the same words is the operator's
    own and is named, not rewritten, so a second forget by name takes it too."""
    from profiles.memory import MemoryRequest, remember
    from profiles.session.api import NoteRequest, note

    vault = tmp_path / "vault"
    _capture(backend, vault, [SECRET, OTHER])
    _capture(backend, vault, [f"again: {SECRET}", "unrelated"], sid="sess-two")
    mem = remember(
        backend, MemoryRequest(text=f"the operator said: {SECRET}", session_id=SID, project="p")
    )
    ws = tmp_path / "ws"
    noted = note(backend, NoteRequest("s-agent", f"copied {SECRET} into the doc", ws))
    assert "quokka" in noted.file.read_text()
    target = [i for i in _search(backend, "quokka") if i != _search(backend, "again")[0]]
    other = _search(backend, "again")
    assert len(target) == 1 and len(other) == 1

    plan = find_targets(backend, ForgetRequest(message_ids=(target[0],), dry_run=True))
    assert plan.quoted_by == other
    assert mem.id in plan.unquoted and noted.id in plan.unquoted
    with backend.reader() as r:  # a dry run changes nothing
        assert SECRET in r.get_nodes([mem.id])[mem.id].claim

    result = forget(backend, ForgetRequest(message_ids=(target[0],), by="ada", vault=vault))
    assert set(result.unquoted) == {mem.id, noted.id} and result.left_quoting == []
    assert result.quoted_by == other
    with backend.reader() as r:
        rewritten = r.get_nodes([mem.id, noted.id])
    assert rewritten[mem.id].claim == "the operator said: [forgotten]"
    assert rewritten[mem.id].lifecycle == "active"  # the node lives on without the quote
    assert "[forgotten]" in rewritten[noted.id].claim
    assert result.session_views == [str(noted.file)] and result.views_left == []
    view = noted.file.read_text()
    assert "quokka" not in view and "copied [forgotten] into the doc" in view
    reasons = [x.reason for x in backend.receipts(target_id=mem.id)]
    assert reasons[-1] == "forget by ada: it quoted a forgotten message"
    dump = _snapshot_json(backend)
    assert dump.count("quokka") >= 1  # the other message, history of it included
    with backend.reader() as r:
        assert SECRET in r.get_nodes(other)[other[0]].claim

    forget(backend, ForgetRequest(message_ids=tuple(other), by="ada", vault=vault))
    assert "quokka" not in _snapshot_json(backend)
