"""``recall`` reads its project and session filters as ``memgraph voice`` does: a
project or constellation in any case, a session by the start of its id (recall
prints 8 characters of it). Before, both had to be exact: ``recall sleep --project
claude`` and ``--session 8a3e5a2e`` found nothing where ``voice`` found the messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from context_cut.api import RecallRequest, recall
from memgraph.errors import UsageError
from memgraph.store import Store, open_store
from memgraph.store.memory import MemoryStore
from profiles.voice.importers import ImportRequest, import_conversations


def _chat(tmp_path: Path, name: str, session: str, texts: list[str]) -> Path:
    path = tmp_path / f"{name}.jsonl"
    rows = [
        {"session": session, "speaker": "Ana", "ts": "2023-05-01T10:00:00", "text": t, "id": str(i)}
        for i, t in enumerate(texts)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    s: Store = open_store(tmp_path / "mg.db") if request.param == "sqlite" else MemoryStore()
    for name, session, texts in (
        ("Atlas", "8a3e5a2e-1111", ["the sleep timer is too short"]),
        ("Atlas", "8a3e5a2e-2222", ["sleep after ten minutes please"]),
        ("Atlas", "8a3e", ["the sleep setting again"]),
        ("harbor", "c2a7d9e4-3333", ["sleep the worker between retries"]),
    ):
        import_conversations(s, ImportRequest(path=_chat(tmp_path, name, session, texts)))
    return s


def _sessions(store: Store, **kw: object) -> set[str]:
    hits = recall(store, RecallRequest(text="sleep", mode="bm25", **kw)).hits  # type: ignore[arg-type]
    return {str(h.node.attributes["session_id"]) for h in hits}


def _stored_session(store: Store, start: str) -> str:
    found = {s for s in _sessions(store) if s.split(":")[-1].startswith(start)}
    assert len(found) == 1, found
    return found.pop()


def test_a_project_in_any_case(store: Store) -> None:
    assert len(_sessions(store, project="Atlas")) == 3
    assert _sessions(store, project="atlas") == _sessions(store, project="Atlas")
    assert _sessions(store, project="HARBOR") == {_stored_session(store, "c2a7d9e4")}
    assert _sessions(store, project="nowhere") == set()


def test_a_session_by_the_start_of_its_id(store: Store) -> None:
    whole = _stored_session(store, "c2a7d9e4")
    start = whole[: len(whole) - 6]
    assert _sessions(store, session_id=start) == {whole}
    assert _sessions(store, session_id=whole) == {whole}


def test_an_id_that_starts_others_is_itself_and_a_shared_start_is_refused(store: Store) -> None:
    short = "8a3e"  # a whole id, and the start of 8a3e5a2e-1111 and -2222
    assert short in _sessions(store) and _sessions(store, session_id=short) == {short}
    with pytest.raises(UsageError, match="starts 2 session ids"):
        _sessions(store, session_id=short + "5a2e")
