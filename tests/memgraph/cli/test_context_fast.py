"""The lean `memgraph context` path: same bytes as typer, defers what it cannot do,
and its process imports no typer, no pydantic Settings model, no vector stack, and
for its text outputs no pydantic at all (the store's rows decode into plain objects:
tests/context_cut/test_plain_read.py checks they give the documents' bytes)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli import context_fast
from memgraph.cli.app import app
from tests.memgraph.cli.test_context_cli import db  # noqa: F401  (the fixture)
from tests.memgraph.cli.test_recall_fast import NEVER, imports_of

runner = CliRunner()


def _cases(store_file: Path, q: Path) -> list[list[str]]:
    s = ["--store", str(store_file)]
    v = [*s, "--embedder", "hash", "--qdrant-path", str(q)]
    return [
        ["gateway tokens", *s],
        ["gateway tokens", *s, "--budget", "400"],
        ["gateway", *s, "--json"],
        ["gateway", *s, "--markdown"],
        ["gateway", *s, "--prompt", "--cut", "role", "--project", "alpha"],
        ["cache tokens", *s, "--cut", "role"],  # project from the cwd
        ["cache tokens", *s, "--cut=persona", "--project=alpha", "--limit=3"],
        ["cache tokens", *s, "--cut", "coordinator", "--domain", "d1"],
        ["cache tokens", *v],
        ["cache tokens", *v, "--json"],
        [*s, "--", "-gateway"],  # a text that starts with a dash, after --
        # errors: same one line on stderr, same exit code
        ["gateway", *s, "--budget", "0"],
        ["gateway", *s, "--limit", "-1"],
        ["   ", *s],
        ["gateway", *s, "--json", "--markdown"],
        ["gateway", *s, "--cut", "bogus"],
        ["gateway", *s, "--cut", "role", "--repo", str(store_file.parent)],
        ["gateway", "--store", str(store_file.parent / "missing" / "x.db")],
        ["gateway", *s, "--embedder", "word2vec"],
    ]


def test_same_bytes_as_typer(
    db: Path,  # noqa: F811
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    q = tmp_path / "q"
    assert (
        runner.invoke(
            app, ["index", "--store", str(db), "--embedder", "hash", "--qdrant-path", str(q)]
        ).exit_code
        == 0
    )
    for args in _cases(db, q):
        code = context_fast.run(args)
        fast = capsysbinary.readouterr()
        assert code is not None, f"fast path deferred {args}"
        result = runner.invoke(app, ["context", *args])
        assert (code, _stamped(fast.out), fast.err) == (
            result.exit_code,
            _stamped(result.stdout_bytes),
            result.stderr_bytes,
        ), args


def _stamped(out: bytes) -> bytes:
    """A --json packet with its build time (``ingested_at``: now) blanked."""
    if not out.startswith(b"{"):
        return out
    packet = json.loads(out)
    assert isinstance(packet.pop("ingested_at"), str)
    return json.dumps(packet).encode()


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["a", "b"],
        ["a", "--budget", "x"],
        ["a", "--limit", "1.5"],
        ["a", "--bogus"],
        ["a", "--budget"],
        ["a", "--json=1"],
    ],
)
def test_defers_what_it_does_not_handle(args: list[str]) -> None:
    assert context_fast.run(args) is None


@pytest.mark.parametrize("cut", ["repo", "role"])
def test_process_imports(db: Path, cut: str) -> None:  # noqa: F811
    """Whole process, no embedder configured: none of NEVER; the cut ran."""
    argv = ["context", "gateway tokens", "--store", str(db), "--cut", cut]
    out, found = imports_of(argv)
    never, loaded = found[: found.index("|")], found[found.index("|") + 1 :]
    assert never == [], never
    assert {"memgraph.cli.context_fast", "context_cut.api", "context_cut.render"} <= set(loaded)
    assert "typer" not in loaded and "memgraph.cli.app" not in loaded
    # a read decodes nodes, edges, summaries and receipts into plain objects: no
    # pydantic, no document model (memgraph.documents.plain)
    assert "pydantic" not in loaded and "pydantic_core" not in loaded
    assert not {m for m in loaded if m.startswith("memgraph.documents.")} - PLAIN_DOCUMENTS
    expected = runner.invoke(app, ["context", *argv[1:]])
    assert out == expected.stdout_bytes
    assert set(NEVER) >= {"memgraph.settings", "context_cut.vectors", "qdrant_client", "numpy"}
    if cut == "role":  # bench/bench_startup.py's import-only row names all of ours
        ours = {m for m in loaded if m.split(".")[0] in {"memgraph", "context_cut", "profiles"}}
        assert ours <= _bench_context_imports(), ours - _bench_context_imports()


PLAIN_DOCUMENTS = {
    "memgraph.documents.enums",
    "memgraph.documents.plain",
    "memgraph.documents.plain_context",
}


@pytest.mark.parametrize("fmt", ["--markdown", "--prompt"])
def test_text_formats_import_no_pydantic(db: Path, fmt: str) -> None:  # noqa: F811
    argv = ["context", "gateway tokens", "--store", str(db), "--cut", "role", fmt]
    out, found = imports_of(argv)
    assert "pydantic" not in found[found.index("|") + 1 :]
    assert out == runner.invoke(app, argv).stdout_bytes


def test_json_builds_the_documents(db: Path) -> None:  # noqa: F811
    """``--json`` prints the pydantic packet's dump: pydantic loads there (allowed)."""
    argv = ["context", "gateway tokens", "--store", str(db), "--json"]
    out, found = imports_of(argv)
    assert "memgraph.documents.context" in found[found.index("|") + 1 :]
    assert _stamped(out) == _stamped(runner.invoke(app, argv).stdout_bytes)


def _bench_context_imports() -> set[str]:
    path = Path(__file__).resolve().parents[3] / "bench" / "bench_startup.py"
    spec = importlib.util.spec_from_file_location("bench_startup", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    code = f"import sys, {', '.join(bench.CONTEXT_MODULES)}\nprint(' '.join(sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def test_shared_store_takes_the_full_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A postgresql:// store: main() does not route `context` to the lean path."""
    from memgraph import cli

    monkeypatch.setenv("MEMGRAPH_STORE", "postgresql://localhost/x")
    assert cli._shared_store(["gateway"]) is True
    monkeypatch.delenv("MEMGRAPH_STORE")
    assert os.environ.get("MEMGRAPH_STORE") is None
    assert cli._shared_store(["gateway"]) is False
