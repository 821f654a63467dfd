"""The surfaces of the stored subject vectors (``context_cut/repo_vectors.py``): both
``memgraph repo scan`` paths store them when MiniLM is configured, ``memgraph context
--cut repo`` and the MCP ``context`` tool take them and the same configured embedder
(``repo_nearest.configured_embedder``), and a missing extra is one line (CLI) or a
notice in the result (MCP), never a failure. The embedder is a fake under MiniLM's
name that counts calls (``tests/context_cut/test_repo_nearest.FakeMiniLM``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_cut import embedders, repo_nearest
from context_cut.repo_vectors import read_vectors, vectors_dir_for, vectors_path
from memgraph.cli import repo_fast
from memgraph.cli.app import app
from memgraph.config import load_settings, store_location
from memgraph.errors import MissingExtra
from memgraph.mcp_server import MemgraphTools
from tests.context_cut.test_repo_nearest import TASK, FakeMiniLM
from tests.context_cut.test_repo_vectors import SUBJECTS, make_repo
from tests.memgraph.test_store_identity import known

runner = CliRunner()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def stored_in(tmp_path: Path) -> Path:
    """The configured store's folder of subject vectors in the home ``tmp_path/mg``."""
    return vectors_dir_for(tmp_path / "mg", known(store_location()))


def _missing(*_a: Any, **_k: Any) -> None:
    raise MissingExtra("local-embeddings", "tokenizers")


def test_scan_stores_them_and_a_cli_cut_embeds_only_its_task(
    repo: Path, minilm: list[FakeMiniLM], tmp_path: Path
) -> None:
    out = runner.invoke(app, ["repo", "scan", str(repo)])
    assert out.exit_code == 0, out.output
    assert (
        "subject vectors (minilm:all-MiniLM-L6-v2): 4 subjects (4 embedded, 0 kept)" in out.stdout
    )
    assert [f.calls for f in minilm] == [[SUBJECTS]]
    held, why = read_vectors(stored_in(tmp_path), "proj", repo_nearest.MINILM, 3)
    assert why is None and held is not None and len(held) == 4
    again = runner.invoke(app, ["repo", "scan", str(repo), "--json"])
    sync = json.loads(again.stdout)["subject_vectors"]
    assert (sync["embedded"], sync["kept"], sync["written"]) == (0, 4, False)
    assert len(minilm) == 1  # no change: no embedder built
    ctx = runner.invoke(app, ["context", TASK, "--cut", "repo", "--repo", str(repo)])
    assert ctx.exit_code == 0, ctx.output
    assert minilm[-1].calls == [[TASK]]  # a new process's cut: the subjects came from the file
    assert "pkg/importer.py" in ctx.stdout


def test_the_lean_scan_stores_them_too(
    repo: Path, minilm: list[FakeMiniLM], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert repo_fast.run(["scan", str(repo)]) == 0
    assert "(4 embedded, 0 kept)" in capsys.readouterr().out
    assert vectors_path(stored_in(tmp_path), "proj", repo_nearest.MINILM).exists()


def test_a_missing_extra_is_one_line_and_the_scan_stands(
    repo: Path, minilm: list[FakeMiniLM], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(embedders, "make_embedder", _missing)
    out = runner.invoke(app, ["repo", "scan", str(repo)])
    assert out.exit_code == 0 and out.stdout.startswith("repo proj: ")
    assert out.stderr.count("\n") == 1 and "subject vectors not stored" in out.stderr
    assert not (tmp_path / "mg" / "repo-vectors").exists()


def test_without_minilm_the_scan_stores_nothing(
    repo: Path, minilm: list[FakeMiniLM], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for setting in ("none", "hash"):
        monkeypatch.setenv("MEMGRAPH_EMBEDDER", setting)
        out = runner.invoke(app, ["repo", "scan", str(repo)])
        assert out.exit_code == 0 and "subject vectors" not in out.output
    assert minilm == [] and not (tmp_path / "mg" / "repo-vectors").exists()


def test_the_mcp_repo_cut_takes_the_configured_embedder_and_the_file(
    repo: Path, minilm: list[FakeMiniLM], tmp_path: Path
) -> None:
    assert runner.invoke(app, ["repo", "scan", str(repo)]).exit_code == 0
    tools = MemgraphTools(load_settings())
    data = tools.context(TASK, cut="repo", budget=2000, repo=str(repo), as_json=True)
    assert minilm[-1].calls == [[TASK]]  # the server's embedder, subjects from the file
    assert data["nodes"][0]["title"] == "pkg/importer.py"
    tools.context("make the loader faster", cut="repo", budget=2000, repo=str(repo))
    assert len(minilm) == 2  # one scan, one server: the model is built once per server
    # the same order as the CLI's (each fits its own rendering to the budget)
    repo_nearest._MEMO.clear()
    args = ["context", TASK, "--cut", "repo", "--repo", str(repo), "--json"]
    cli = [n["title"] for n in json.loads(runner.invoke(app, args).stdout)["nodes"]]
    assert len(cli) >= 2 and cli == [n["title"] for n in data["nodes"]][: len(cli)]


def test_the_mcp_repo_cut_reports_a_missing_extra_in_the_result(
    repo: Path, minilm: list[FakeMiniLM], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert runner.invoke(app, ["repo", "scan", str(repo)]).exit_code == 0
    monkeypatch.setattr(embedders, "make_embedder", _missing)
    data = MemgraphTools(load_settings()).context(TASK, cut="repo", budget=2000, repo=str(repo))
    notes = [n for n in data["notices"] if "past-commit vectors" in n]
    assert len(notes) == 1 and "tokenizers" in notes[0]
    assert data["nodes"]  # ranked without the signal


def test_repo_status_says_how_many_are_stored(
    repo: Path, minilm: list[FakeMiniLM], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert runner.invoke(app, ["repo", "scan", str(repo)]).exit_code == 0
    line = "subject vectors (minilm:all-MiniLM-L6-v2): 4 of 4 window subjects stored"
    out = runner.invoke(app, ["repo", "status", str(repo)])
    assert out.exit_code == 0 and out.stdout.splitlines()[-1] == line
    assert (
        json.loads(runner.invoke(app, ["repo", "status", str(repo), "--json"]).stdout)[
            "subject_vectors"
        ]
        == line
    )
    assert len(minilm) == 1  # status reads the file: no embedder built
    path = vectors_path(stored_in(tmp_path), "proj", repo_nearest.MINILM)
    path.write_bytes(b"not ours\n")
    out = runner.invoke(app, ["repo", "status", str(repo)])
    assert "subject vectors (minilm:all-MiniLM-L6-v2): unusable, repo vectors:" in out.stdout
    path.unlink()
    out = runner.invoke(app, ["repo", "status", str(repo)])
    assert out.stdout.splitlines()[-1].endswith(
        "0 of 4 window subjects stored; `memgraph repo scan` stores the rest"
    )
    monkeypatch.setenv("MEMGRAPH_EMBEDDER", "none")
    assert "subject vectors" not in runner.invoke(app, ["repo", "status", str(repo)]).stdout


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_doctor_reports_files_of_repos_the_store_no_longer_has(
    repo: Path,
    minilm: list[FakeMiniLM],
    tmp_path: Path,
    backend: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A subject-vector file outlived its repo (scanned under another name, the store
    replaced): nothing read or removed it. `doctor` names it, its size and the `rm`;
    on a PostgreSQL store too (doctor opened only SQLite stores, so it never looked)."""
    import shlex
    import subprocess

    from context_cut.repo_vectors import write_vectors

    if backend == "postgres":
        monkeypatch.setenv("MEMGRAPH_STORE", request.getfixturevalue("pg_url"))
    assert runner.invoke(app, ["repo", "scan", str(repo)]).exit_code == 0
    vectors = stored_in(tmp_path)
    kept = vectors_path(vectors, "proj", repo_nearest.MINILM)
    clean = json.loads(runner.invoke(app, ["doctor", "--json"]).stdout)
    assert not [c for c in clean["checks"] if c["name"] == "repo-vectors"]
    write_vectors(vectors, "gone", repo_nearest.MINILM, 3, [(b"k" * 16, [0.0, 1.0, 0.0])])
    gone = vectors_path(vectors, "gone", repo_nearest.MINILM)
    (vectors / "notes.txt").write_text("mine\n")  # not a name of ours: never listed
    out = runner.invoke(app, ["doctor"])
    assert out.exit_code == 0, out.output
    size = gone.stat().st_size
    assert (
        f"warn     repo-vectors: 1 subject-vector file(s) of repos no longer in the store, "
        f"{size:,} bytes: {gone.name} ({size:,} bytes)\n"
    ) in out.stdout
    fix = f"rm -- {shlex.quote(str(gone))}"
    assert f"   fix: {fix}\n" in out.stdout
    subprocess.run(fix, shell=True, check=True)
    assert kept.is_file() and (vectors / "notes.txt").is_file() and not gone.exists()
