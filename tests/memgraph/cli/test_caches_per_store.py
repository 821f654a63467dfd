"""One home, several stores: the vector caches under ``<home>`` (subject vectors of
``memgraph repo scan``, the word and token tables of ``memgraph index``) are kept per
store, so one store's commands neither call another's files orphans nor rewrite its
tables (``memgraph.home_dirs``). A home from before, with the caches flat in each
folder, still serves them to its store, and a store's first write takes them over
without re-embedding anything."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_cut import embedders, repo_nearest
from context_cut.embedders import HashEmbedder
from memgraph.cli.app import app
from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, ProfileName, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import node_id
from memgraph.store import open_store
from tests.context_cut.test_repo_nearest import TASK, FakeMiniLM
from tests.context_cut.test_repo_vectors import make_repo
from tests.memgraph.cli.test_context_cli import T0
from tests.memgraph.test_store_identity import known

runner = CliRunner()


def two_stores(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest | None = None
) -> tuple[str, str]:
    """Two empty stores: files, or two databases on the session's server."""
    if backend == "postgres":
        assert request is not None
        server = request.getfixturevalue("pg_server")
        pair = (str(server.create_database()), str(server.create_database()))
    else:
        pair = (str(tmp_path / "a.db"), str(tmp_path / "b.db"))
    for location in pair:
        open_store(location).close()
    return pair


def _warnings(name: str) -> list[dict[str, Any]]:
    return [c for c in _checks() if c["name"] == name]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_doctor_on_another_store_leaves_the_first_stores_repo_vectors_alone(
    minilm: list[FakeMiniLM],
    tmp_path: Path,
    backend: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Store A scanned a repo; the home then points at store B, which never did.
    doctor on B called A's file an orphan, and its fix (`rm`) would have deleted the
    vectors A's repo cut reads."""
    repo = make_repo(tmp_path)
    a, b = two_stores(backend, tmp_path, request)
    monkeypatch.setenv("MEMGRAPH_STORE", a)
    assert runner.invoke(app, ["repo", "scan", str(repo)]).exit_code == 0
    assert not _warnings("repo-vectors")
    monkeypatch.setenv("MEMGRAPH_STORE", b)
    assert not _warnings("repo-vectors")
    monkeypatch.setenv("MEMGRAPH_STORE", a)
    ctx = runner.invoke(app, ["context", TASK, "--cut", "repo", "--repo", str(repo)])
    assert ctx.exit_code == 0, ctx.output
    assert minilm[-1].calls == [[TASK]]  # A's subjects still came from its file


class HashTokens(HashEmbedder):
    """The hash embedder with token states (one fixed vector a word), so ``index``
    writes a token table too (as the numpy MiniLM does)."""

    _PIECE = re.compile(r"\w+|[^\w\s]")

    def __init__(self) -> None:
        super().__init__(dimension=16)
        self.vocab: dict[str, int] = {}
        self.token_calls: list[str] = []

    def embed_tokens(self, texts: Sequence[str]) -> list[tuple[Any, Any]]:
        import numpy as np

        self.token_calls += list(texts)
        out = []
        for text in texts:
            pieces = self._PIECE.findall(text.lower())
            ids = np.array([self.vocab.setdefault(p, len(self.vocab) + 1) for p in pieces])
            vecs = np.array(self.embed(pieces), dtype=np.float32).reshape(len(pieces), 16)
            out.append((ids, vecs))
        return out

    def pieces(self, ids: Sequence[int]) -> list[str]:
        back = {i: p for p, i in self.vocab.items()}
        return [back.get(int(i), "") for i in ids]


@pytest.fixture
def tokens(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[HashTokens]:
    """``--embedder hash`` builds a ``HashTokens`` (listed); the home ``tmp_path/mg``."""
    pytest.importorskip("numpy")
    monkeypatch.setenv("MEMGRAPH_HOME", str(tmp_path / "mg"))
    monkeypatch.setenv("MEMGRAPH_EMBEDDER", "hash")
    built: list[HashTokens] = []

    def make(*_a: Any, **_k: Any) -> HashTokens:
        built.append(HashTokens())
        return built[-1]

    monkeypatch.setattr(embedders, "make_embedder", make)
    return built


def add_messages(location: str, *texts: str) -> None:
    store = open_store(location)
    try:
        nodes = [
            MemoryNode(
                id=node_id("voice", "message", text),
                domain_id="d1",
                profile=ProfileName("voice"),
                kind="message",
                title=text,
                claim=text,
                lifecycle="captured",
                anchors=[MemoryAnchor(id=f"a-{i}", kind=AnchorKind.transcript, ref="/t.jsonl")],
                created_at=T0,
                updated_at=T0,
                valid_from=T0,
                attributes={"session_id": "s1", "project": "alpha"},
            )
            for i, text in enumerate(texts)
        ]
        apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
    finally:
        store.close()


A_TEXTS = ("we should cache the tokens for longer", "the gateway verifies every request")
B_TEXTS = ("my pottery class starts on tuesday", "the violin lessons moved to friday")


def _index(location: str) -> list[str]:
    out = runner.invoke(app, ["index", "--store", location])
    assert out.exit_code == 0, out.output
    return [line for line in out.stdout.splitlines() if line.startswith(("word", "token"))]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_indexing_another_store_leaves_the_first_stores_tables(
    tokens: list[HashTokens], tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    """Store A indexed, then store B from the same home: B's index rewrote the word
    and token tables A reads, so A's next index embedded every text again (the token
    table of a real corpus: minutes) and A's reads used B's vocabulary meanwhile."""
    a, b = two_stores(backend, tmp_path, request)
    add_messages(a, *A_TEXTS)
    add_messages(b, *B_TEXTS)
    first = _index(a)
    assert first == [
        "word vectors: 7 words (7 embedded, 0 kept)",
        "token vectors: 2 turns, 24 word pieces (2 turns embedded, 0 kept)",
    ]
    assert _index(b)[1] == "token vectors: 2 turns, 24 word pieces (2 turns embedded, 0 kept)"
    assert _index(a) == [
        "word vectors: 7 words (0 embedded, 7 kept)",
        "token vectors: 2 turns, 24 word pieces (0 turns embedded, 2 kept)",
    ]
    assert tokens[-1].token_calls == []


def test_flat_tables_from_before_are_read_then_taken_over_without_embedding(
    tokens: list[HashTokens], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A home from before: the tables flat in ``word-vectors`` and ``token-vectors``.
    The store's reads still find them; its first index links them into its own folder
    and embeds nothing; they stay for another store of the home, which takes them
    over too (re-embedding only its own texts); doctor points at them, never `rm`s
    another store's folder."""
    from context_cut.token_vectors import sync_tokens, tokens_dir_for, voice_texts
    from context_cut.word_vectors import message_texts, sync_words, words_dir_for
    from memgraph.home_dirs import TOKEN_VECTORS, WORD_VECTORS, own_dir

    home = tmp_path / "mg"
    a, b = two_stores("sqlite", tmp_path)
    monkeypatch.setenv("MEMGRAPH_STORE", a)
    add_messages(a, *A_TEXTS)
    add_messages(b, *B_TEXTS)
    old = HashTokens()
    store = open_store(a)
    try:  # what an index before per-store folders wrote
        sync_words(message_texts(store), old, home / WORD_VECTORS)
        sync_tokens(voice_texts(store), old, home / TOKEN_VECTORS)
    finally:
        store.close()
    flat = sorted(p.name for p in (home / WORD_VECTORS).iterdir())
    assert flat == ["hash_v1_16-16.f32", "hash_v1_16-16.words"]
    assert words_dir_for(home, known(a)) == home / WORD_VECTORS  # read as before
    assert tokens_dir_for(home, known(a)) == home / TOKEN_VECTORS
    hits = runner.invoke(app, ["recall", "cache tokens", "--store", a])
    assert hits.exit_code == 0 and "cache the tokens" in hits.stdout
    assert len(tokens) == 1 and tokens[0].token_calls == ["cache tokens"]  # the table was read
    assert "vector-caches" in [c["name"] for c in _checks()]

    assert _index(a) == [
        "word vectors: 7 words (0 embedded, 7 kept)",
        "token vectors: 2 turns, 24 word pieces (0 turns embedded, 2 kept)",
    ]
    mine = own_dir(home, WORD_VECTORS, known(a))
    assert words_dir_for(home, known(a)) == mine
    assert tokens_dir_for(home, known(a)).parent == home / TOKEN_VECTORS
    for name in flat:  # the same files, linked: nothing copied, the flat ones kept
        assert (mine / name).stat().st_ino == (home / WORD_VECTORS / name).stat().st_ino
    assert _index(b)[1] == "token vectors: 2 turns, 24 word pieces (2 turns embedded, 0 kept)"
    assert _index(a)[1] == "token vectors: 2 turns, 24 word pieces (0 turns embedded, 2 kept)"

    check = next(c for c in _checks() if c["name"] == "vector-caches")
    assert check["status"] == "warn" and "5 flat file(s) from before" in check["detail"]
    assert "have taken over" in check["detail"]  # A's folders hold them all now
    assert str(mine) not in check["fix"] and str(home / WORD_VECTORS / flat[0]) in check["fix"]


def _checks() -> list[dict[str, Any]]:
    out = runner.invoke(app, ["doctor", "--json"])
    assert out.exit_code in (0, 1), out.output
    checks: list[dict[str, Any]] = json.loads(out.stdout)["checks"]
    return checks


def test_flat_subject_vectors_from_before_are_read_and_never_called_orphans(
    minilm: list[FakeMiniLM], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A home from before: subject-vector files flat in ``repo-vectors``, one of store
    A's repo, one of a repo no store has. A's cut reads its file; doctor on A or on
    B calls neither an orphan (they are no store's own); A's rescan takes its file
    over (a link, nothing embedded) and leaves the other behind, flat."""
    from context_cut.repo_vectors import vectors_dir_for, vectors_path, write_vectors
    from memgraph.home_dirs import REPO_VECTORS, own_dir

    repo = make_repo(tmp_path)
    home = tmp_path / "mg"
    a, b = two_stores("sqlite", tmp_path)
    monkeypatch.setenv("MEMGRAPH_STORE", a)
    assert runner.invoke(app, ["repo", "scan", str(repo)]).exit_code == 0
    mine = own_dir(home, REPO_VECTORS, known(a))
    flat = home / REPO_VECTORS
    kept = vectors_path(flat, "proj", repo_nearest.MINILM)
    vectors_path(mine, "proj", repo_nearest.MINILM).rename(kept)  # as an older scan left it
    mine.rmdir()
    write_vectors(flat, "gone", repo_nearest.MINILM, 3, [(b"k" * 16, [0.0, 1.0, 0.0])])
    gone = vectors_path(flat, "gone", repo_nearest.MINILM)

    assert vectors_dir_for(home, known(a)) == flat
    ctx = runner.invoke(app, ["context", TASK, "--cut", "repo", "--repo", str(repo)])
    assert ctx.exit_code == 0 and minilm[-1].calls == [[TASK]]  # the flat file was read
    for store in (a, b):
        monkeypatch.setenv("MEMGRAPH_STORE", store)
        checks = {c["name"]: c for c in _checks()}
        assert "repo-vectors" not in checks
        assert "2 file(s) from before" in checks["vector-caches"]["detail"]

    monkeypatch.setenv("MEMGRAPH_STORE", a)
    out = runner.invoke(app, ["repo", "scan", str(repo)])
    assert out.exit_code == 0 and "(0 embedded, 4 kept)" in out.stdout
    assert sorted(p.name for p in mine.iterdir()) == [kept.name]
    assert (mine / kept.name).stat().st_ino == kept.stat().st_ino and gone.is_file()
    assert vectors_dir_for(home, known(a)) == mine
