"""`memgraph repo scan` start-up: what a no-change and a one-file rescan import.

The post-commit hook runs the scan after every commit, so its process start-up
is paid each time (issue 17: one-file rescan <= 300 ms as a whole process). A
rescan that changes no file, or one Python file, needs neither typer nor the
artifact ingest path (yaml, vault pages: only when commit nodes exist), nor
the tree-sitter, manifest or summary code, nor networkx. A rescan that changes
nothing reads the stored repo nodes plain (``memgraph.store.decode.use_plain``)
and imports neither pydantic, the document models nor the engine; a one-file
edit does (its writes go through ``engine.apply_patch``), but still neither the
snapshot model nor the commit reader (``EDIT_NEVER``), and no document model names
a builtin ``default_factory`` (pydantic would parse its text signature).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.memgraph.cli.test_recall_fast import imports_of

NEVER = (
    "typer",
    "click",
    "rich",
    "yaml",
    "networkx",
    "tree_sitter",
    "tree_sitter_language_pack",
    "profiles.artifact.ingest",
    "profiles.artifact.vault",
    "profiles.repo_scan.other",
    "profiles.repo_scan.summaries",
    "context_cut",
    # annotations only on this path (notes/repo.md, speed37): the store protocol (its
    # three dataclasses and Protocol classes, ~3 ms) and the documents' view protocols
    "memgraph.store.protocol",
    "memgraph.documents.views",
    # the store lists its migrations from voice_schema: the voice search code and the
    # full-text helpers load only for a voice query (speed37)
    "memgraph.store.sqlite_ext.voice_index",
    "memgraph.fts",
)
# only when there is something to write (validated patches need the documents)
WRITING = (
    "pydantic",
    "pydantic_core",
    "memgraph.documents.base",
    "memgraph.documents.graph",
    "memgraph.engine",
    "memgraph.hashing",
    "profiles.repo_scan.graph",
    "profiles.repo_scan.write",
    # nor the parsers and file facts: nothing is parsed or rebuilt
    "profiles.repo_scan.facts",
    "profiles.repo_scan.python",
)
# not even when a file changed (notes/repo.md, speed36): the snapshot model no write
# validates (memgraph.validation names it for annotations only) and the commit
# reader (its dataclasses and regexes; the scan runs git through artifact.gitrun,
# and reads commits only when the store holds commit nodes); nor pydantic's plugin
# loader's importlib.metadata (plugins are off: memgraph.cli.skip_plugin_loader, speed37)
EDIT_NEVER = ("memgraph.documents.snapshot", "profiles.artifact.git", "importlib.metadata")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text('"""A package."""\n')
    (root / "pkg" / "core.py").write_text("import os\n\n\ndef run():\n    return os.getcwd()\n")
    (root / "pkg" / "cli.py").write_text("from pkg.core import run\n\nprint(run())\n")
    (root / "lib.rs").write_text("fn main() {}\n")
    (root / "web.ts").write_text("export const x = 1;\n")
    (root / "pyproject.toml").write_text('[project]\nname = "proj"\n')
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    return root


def test_rescan_imports(repo: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "s.db")
    first, _ = imports_of(["repo", "scan", str(repo), "--store", store])
    assert b"6 parsed" in first  # python, rust, typescript, manifest: every reader ran once
    out, found = imports_of(["repo", "scan", str(repo), "--store", store])
    assert b"0 changed" in out and b"0 receipts" in out
    loaded = set(found[found.index("|") + 1 :])
    assert "profiles.repo_scan.scan" in loaded  # the scan ran in this process
    assert "memgraph.documents.plain" in loaded  # the stored nodes were read, plain
    assert sorted(m for m in (*NEVER, *WRITING) if m in loaded) == []
    (repo / "pkg" / "core.py").write_text("import os\n\n\ndef run():\n    return 1\n")
    out, found = imports_of(["repo", "scan", str(repo), "--store", store])
    assert b"1 changed" in out and b"1 parsed" in out
    loaded = set(found[found.index("|") + 1 :])
    assert "profiles.repo_scan.python" in loaded
    assert "profiles.repo_scan.write" in loaded and "memgraph.engine" in loaded
    assert sorted(m for m in (*NEVER, *EDIT_NEVER) if m in loaded) == []
    out, found = imports_of(["repo", "scan", str(repo), "--store", store])
    assert b"0 changed" in out and b"0 receipts" in out  # the edit was written once
    loaded = set(found[found.index("|") + 1 :])
    assert sorted(m for m in (*NEVER, *WRITING, *EDIT_NEVER) if m in loaded) == []


def test_documents_name_no_builtin_default_factory() -> None:
    """A ``default_factory`` of ``list`` or ``dict`` makes pydantic parse the builtin's
    text signature (``inspect``, tokenize) when it builds the model: ~4.5 ms of every
    write process, a one-file rescan's included (speed36). ``new_list`` / ``new_dict``
    give the same values."""
    from pydantic import BaseModel

    import memgraph.documents as docs

    models = [getattr(docs, n) for n in docs.__all__ if n[0].isupper()]
    builtin = [
        f"{model.__name__}.{name}"
        for model in models
        if isinstance(model, type) and issubclass(model, BaseModel)
        for name, info in model.model_fields.items()
        if info.default_factory in (list, dict, set, tuple)
    ]
    assert len(models) > 20 and builtin == []


def test_document_annotations_are_objects_not_text() -> None:
    """A module defining documents under ``from __future__ import annotations`` gives
    pydantic text annotations, which it compiles and evaluates field by field when it
    builds the model: ~3 ms of every write process, a one-file rescan's included
    (speed37). The same types, as objects, build the same schemas."""
    from pydantic import BaseModel

    import memgraph.documents as docs

    models = [getattr(docs, n) for n in docs.__all__ if n[0].isupper()]
    models = [m for m in models if isinstance(m, type) and issubclass(m, BaseModel)]
    text = [
        f"{model.__name__}.{name}"
        for model in models
        for name, hint in vars(model).get("__annotations__", {}).items()
        if isinstance(hint, str)
    ]
    assert len(models) > 20 and text == []


def test_rescan_with_minilm_and_stored_vectors_loads_no_model(repo: Path, tmp_path: Path) -> None:
    """With MiniLM configured, a rescan whose history window the vector file already
    holds (``context_cut/repo_vectors.py``) builds no embedder: neither numpy nor the
    tokenizer load, and nothing is written (the post-commit hook pays no model)."""
    import os

    from context_cut.repo_nearest import MINILM
    from context_cut.repo_vectors import subject_key, vectors_path, write_vectors

    store = str(tmp_path / "s.db")
    home = tmp_path / "mg"
    imports_of(["repo", "scan", str(repo), "--store", store])  # no embedder: no vectors
    where = home / "repo-vectors"
    write_vectors(where, "proj", MINILM, 384, [(subject_key("first"), [0.05] * 384)])
    before = os.stat(vectors_path(where, "proj", MINILM))
    env = {**os.environ, "MEMGRAPH_EMBEDDER": "minilm", "MEMGRAPH_HOME": str(home)}
    out, found = imports_of(["repo", "scan", str(repo), "--store", store], env)
    assert b"0 changed" in out and b"(0 embedded, 1 kept)" in out
    loaded = set(found[found.index("|") + 1 :])
    assert "context_cut.repo_vectors" in loaded  # the file was read in this process
    heavy = ("numpy", "tokenizers", "context_cut.minilm_numpy", "context_cut.embedders")
    assert sorted(m for m in (*heavy, *WRITING[:5]) if m in loaded) == []
    after = os.stat(vectors_path(where, "proj", MINILM))
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
