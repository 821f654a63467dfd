"""The lean `memgraph recall` path: same bytes as typer, defers what it cannot do."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli import recall_fast
from memgraph.cli.app import app
from tests.memgraph.cli.test_context_cli import db  # noqa: F401  (the fixture)

runner = CliRunner()


def _cases(store_file: Path, q: Path) -> list[list[str]]:
    s = ["--store", str(store_file)]
    v = [*s, "--embedder", "hash", "--qdrant-path", str(q)]
    return [
        ["cache tokens", *s],
        ["cache tokens", *s, "--json"],
        ["cache tokens", *s, "--limit", "1"],
        ["cache tokens", *s, "-n", "1", "--project", "alpha"],
        ["cache tokens", *s, "--session", "nope"],
        [f"--store={store_file}", "caching tokens longer"],
        ["caching tokens longer", *v],
        ["caching tokens longer", *v, "--json"],
        ["--", "-cache", *[]],  # a text that starts with a dash, after --
        # errors: same one line on stderr, same exit code
        ["cache", *s, "--limit", "0"],
        ["   ", *s],
        ["cache", "--store", str(store_file.parent / "missing" / "x.db")],
        ["cache", *s, "--embedder", "word2vec"],
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
        code = recall_fast.run(args)
        fast = capsysbinary.readouterr()
        assert code is not None, f"fast path deferred {args}"
        result = runner.invoke(app, ["recall", *args])
        assert (code, fast.out, fast.err) == (
            result.exit_code,
            result.stdout_bytes,
            result.stderr_bytes,
        ), args


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["a", "b"],
        ["a", "--limit", "x"],
        ["a", "--bogus"],
        ["a", "--limit"],
        ["a", "-n=2"],
    ],
)
def test_defers_what_it_does_not_handle(args: list[str]) -> None:
    assert recall_fast.run(args) is None


# What a lexical-only `recall` must never import: the typer surface, the pydantic
# Settings model (the store is found by the stdlib resolver), the vector stack.
NEVER = (
    "typer",
    "click",
    "rich",
    "pydantic_settings",
    "memgraph.settings",
    "memgraph.engine",
    "context_cut.vectors",
    "context_cut.vector_backends",
    "context_cut.vector_index",
    "context_cut.vector_projection",
    "context_cut.vector_sync",
    "qdrant_client",
    "qdrant_edge",
    "numpy",
    "torch",
    "httpx",
)
# ... and what it needs (so the test fails if the run did not get that far)
NEEDED = ("memgraph.cli.recall_fast", "memgraph.store.sqlite", "context_cut.turns")


def imports_of(argv: list[str], env: dict[str, str] | None = None) -> tuple[bytes, list[str]]:
    """Run ``memgraph *argv`` through ``memgraph.cli.main`` in a fresh process:
    (stdout, the modules of interest it imported, as [never..., '|', needed...])."""
    code = (
        "import sys\n"
        "from memgraph.cli import main\n"
        f"sys.argv = ['memgraph', *{argv!r}]\n"
        "try:\n"
        "    main(exit=sys.exit)\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        f"    never = sorted(m for m in {NEVER!r} if m in sys.modules)\n"
        "    sys.stderr.write('\\n' + ' '.join([*never, '|', *sorted(sys.modules)]))\n"
        "    raise\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=env or os.environ.copy(), timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, proc.stderr.rsplit(b"\n", 1)[-1].decode().split()


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_process_imports(db: Path, extra: list[str]) -> None:  # noqa: F811
    """Lexical-only recall (no embedder configured), whole process: no typer, no
    pydantic Settings model, no vector stack, and no pydantic at all (the store's
    rows decode into plain objects, the request is a plain one)."""
    argv = ["recall", "cache tokens", "--store", str(db), *extra]
    out, found = imports_of(argv)
    never, loaded = found[: found.index("|")], found[found.index("|") + 1 :]
    assert never == []
    assert set(NEEDED) <= set(loaded)
    assert "pydantic" not in loaded and "context_cut.recall_request" not in loaded
    assert {m for m in loaded if m.startswith("memgraph.documents.")} <= {
        "memgraph.documents.enums",
        "memgraph.documents.plain",
        "memgraph.documents.plain_context",
    }
    expected = runner.invoke(app, argv)
    assert out == expected.stdout_bytes


def test_vectors_configured_loads_them(db: Path, tmp_path: Path) -> None:  # noqa: F811
    """The lazy vector imports still happen when an embedder is configured; the
    nerve's settings are resolved without the pydantic ``Settings`` model."""
    env = {**os.environ, "MEMGRAPH_EMBEDDER": "hash", "MEMGRAPH_QDRANT_PATH": str(tmp_path / "q")}
    _, found = imports_of(["recall", "cache tokens", "--store", str(db)], env)
    loaded = found[found.index("|") + 1 :]
    assert "context_cut.vectors" in loaded and "memgraph.settings" not in loaded


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"MEMGRAPH_EMBEDDER": "hash", "MEMGRAPH_OLLAMA_TIMEOUT": "7"},
        {"MEMGRAPH_EMBEDDER": "ollama", "OLLAMA_HOST": "http://h:1", "MEMGRAPH_QDRANT_URL": "u"},
        {"MEMGRAPH_EMBEDDER": "minilm", "MEMGRAPH_EMBED_MODEL": "m", "MEMGRAPH_HOME": "/x/h"},
        {"MEMGRAPH_OLLAMA_HOST": "http://o:2", "OLLAMA_HOST": "http://h:1"},
        {"MEMGRAPH_QDRANT_ENGINE": "qdrant-client", "MEMGRAPH_OLLAMA_TIMEOUT": "2.5"},
    ],
)
def test_nerve_config_is_what_settings_say(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgraph.cli.nerve import NerveConfig, config_for, nerve_config

    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for flags in ((None, None, None, None), (Path("/f/h"), "hash", Path("/f/q"), "http://q")):
        lean, full = nerve_config(*flags), config_for(*flags)
        assert isinstance(lean, NerveConfig)
        assert {f: getattr(full, f) for f in lean.__dataclass_fields__} == lean.__dict__


def test_nerve_config_leaves_bad_values_to_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from memgraph.cli.nerve import nerve_config
    from memgraph.errors import ConfigError

    monkeypatch.setenv("MEMGRAPH_OLLAMA_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match=r"(?i)ollama_timeout"):
        nerve_config(None, "hash", None, None)
