"""The repo cut's nearest-past-commit signal (``context_cut/repo_nearest.py``): the
files of the past commits whose subject is near the task text, MiniLM only.

A fake embedder with MiniLM's name maps each text to a fixed unit vector, so the
cosines are chosen by the test: the signal, its floor, its top k, the skipped big
commits, the model check, and that without an embedder the ranking is the one
``rank_modules`` gave before (same pairs, same floats)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import pytest

from context_cut import repo_nearest
from context_cut.repo_cut import TEST_WEIGHT, RankOptions, rank_modules
from context_cut.repo_index import ModuleIndex
from context_cut.repo_nearest import (
    NEAREST_K,
    NEAREST_MAX_FILES,
    NEAREST_MIN,
    NEAREST_WEIGHT,
    nearest_files,
)
from memgraph.errors import BackendUnavailable

TASK = "speed up the importer"


def _unit(cos: float) -> list[float]:
    """A vector at cosine ``cos`` to (1, 0, 0)."""
    return [cos, math.sqrt(max(0.0, 1.0 - cos * cos)), 0.0]


class FakeMiniLM:
    """MiniLM's name, vectors picked per text (the task text is (1, 0, 0))."""

    name = "minilm:all-MiniLM-L6-v2"
    dimension = 3

    def __init__(self, cosines: dict[str, float]) -> None:
        self.cosines = cosines
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [[1.0, 0.0, 0.0] if t == TASK else _unit(self.cosines.get(t, 0.0)) for t in texts]


class OtherModel(FakeMiniLM):
    name = "hash-v1"


class Broken(FakeMiniLM):
    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise BackendUnavailable("model gone")


@pytest.fixture(autouse=True)
def _fresh_memo() -> None:
    repo_nearest._MEMO.clear()


def _index(commits: list[list[object]]) -> ModuleIndex:
    tf = {
        "pkg/importer.py": Counter({"importer": 3, "speed": 1}),
        "pkg/loader.py": Counter({"loader": 3, "speed": 1}),
        "pkg/cache.py": Counter({"cache": 3}),
        "tests/test_cache.py": Counter({"cache": 2, "test": 1}),
    }
    return ModuleIndex(
        tf,
        {"tests/test_cache.py"},
        [("pkg/loader.py", "pkg/cache.py")],
        commits=commits,
    )


def test_files_of_near_subjects_best_cosine_over_the_best() -> None:
    commits: list[list[object]] = [
        ["a" * 40, "make loading faster", ["pkg/cache.py", "README.md"]],
        ["b" * 40, "fix a typo", ["pkg/loader.py"]],
        ["c" * 40, "quicker imports", ["pkg/cache.py", "pkg/importer.py"]],
    ]
    emb = FakeMiniLM({"make loading faster": 0.8, "fix a typo": 0.1, "quicker imports": 0.7})
    paths = {"pkg/cache.py", "pkg/importer.py", "pkg/loader.py"}
    got = nearest_files(emb, TASK, commits, paths)
    # cache: max(0.8, 0.7) / 0.8; importer 0.7 / 0.8; the typo commit is below the floor;
    # README.md is no module
    assert got == pytest.approx({"pkg/cache.py": 1.0, "pkg/importer.py": 0.7 / 0.8})


def test_floor_top_k_and_big_commits() -> None:
    near = NEAREST_MIN + 0.05
    many = [f"pkg/m{i}.py" for i in range(NEAREST_MAX_FILES + 1)]
    commits: list[list[object]] = [["0" * 40, "huge refactor", [*many, "pkg/cache.py"]]]
    commits += [[f"{i:040d}", f"subject {i}", [f"pkg/f{i}.py"]] for i in range(1, NEAREST_K + 2)]
    cosines = {"huge refactor": 0.99, **{f"subject {i}": near for i in range(1, NEAREST_K + 2)}}
    paths = {"pkg/cache.py", *many, *(f"pkg/f{i}.py" for i in range(1, NEAREST_K + 2))}
    got = nearest_files(FakeMiniLM(cosines), TASK, commits, paths)
    # the big commit takes a slot among the k nearest but gives nothing; of the equally
    # near others the newest k - 1 count (history rows are newest first)
    assert got == {f"pkg/f{i}.py": 1.0 for i in range(1, NEAREST_K)}
    just_below = {t: NEAREST_MIN - 0.01 for t in cosines}
    repo_nearest._MEMO.clear()  # (remembered by model name: the same model, the same vectors)
    assert nearest_files(FakeMiniLM(just_below), TASK, commits, paths) == {}


def test_only_minilm_and_only_well_formed_history() -> None:
    commits: list[list[object]] = [["a" * 40, "quicker imports", ["pkg/importer.py"]]]
    cos = {"quicker imports": 0.9}
    paths = {"pkg/importer.py"}
    assert nearest_files(FakeMiniLM(cos), TASK, commits, paths) == {"pkg/importer.py": 1.0}
    assert nearest_files(OtherModel(cos), TASK, commits, paths) == {}
    assert nearest_files(None, TASK, commits, paths) == {}
    assert nearest_files(Broken(cos), TASK, commits, paths) == {}
    bad: list[object] = [["a" * 40, "quicker imports"], "junk", ["b" * 40, 3, ["x"]], None]
    assert nearest_files(FakeMiniLM(cos), TASK, bad, paths) == {}  # type: ignore[arg-type]


def test_subject_vectors_are_remembered_across_cuts() -> None:
    commits: list[list[object]] = [["a" * 40, "quicker imports", ["pkg/importer.py"]]]
    emb = FakeMiniLM({"quicker imports": 0.9})
    nearest_files(emb, TASK, commits, {"pkg/importer.py"})
    nearest_files(emb, TASK, commits, {"pkg/importer.py"})
    assert emb.calls == [[TASK], ["quicker imports"], [TASK]]


def test_rank_modules_adds_the_signal_and_is_unchanged_without_it() -> None:
    commits: list[list[object]] = [
        ["a" * 40, "quicker imports", ["pkg/loader.py", "tests/test_cache.py"]]
    ]
    index = _index(commits)
    before = rank_modules(index, TASK)
    assert rank_modules(index, TASK, RankOptions(embedder=None)) == before
    assert (
        rank_modules(index, TASK, RankOptions(embedder=OtherModel({"quicker imports": 0.9})))
        == before
    )
    scores = dict(before)
    after = dict(
        rank_modules(index, TASK, RankOptions(embedder=FakeMiniLM({"quicker imports": 0.9})))
    )
    assert after["pkg/loader.py"] == pytest.approx(scores["pkg/loader.py"] + NEAREST_WEIGHT)
    test_before = scores.get("tests/test_cache.py", 0.0)
    assert after["tests/test_cache.py"] == pytest.approx(test_before + TEST_WEIGHT * NEAREST_WEIGHT)
    assert {
        p: s for p, s in after.items() if p not in ("pkg/loader.py", "tests/test_cache.py")
    } == {p: s for p, s in scores.items() if p not in ("pkg/loader.py", "tests/test_cache.py")}


def test_no_text_match_keeps_the_recency_fallback() -> None:
    commits: list[list[object]] = [["a" * 40, "Typo", ["pkg/loader.py"]]]
    index = _index(commits)
    emb = FakeMiniLM({"Typo": 1.0})
    assert rank_modules(index, "Typo", RankOptions(embedder=emb)) == rank_modules(index, "Typo")
    assert emb.calls == []  # nothing matched: no embedding at all
