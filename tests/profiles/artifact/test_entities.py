from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from profiles.artifact import entities
from profiles.artifact.entities import (
    entity_anchors,
    entity_keys,
    is_specific,
    mentioned_paths,
    normalize_path,
    path_suffixes,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "fix memgraph/engine.py:42 and ./tests/test_x.py.",
            ["memgraph/engine.py", "tests/test_x.py"],
        ),
        ("edit `src/app.tsx`, then Makefile", ["src/app.tsx", "Makefile"]),
        ("look at /home/u/code/repo/src/x.ts:10:2", ["/home/u/code/repo/src/x.ts"]),
        ("see https://github.com/a/b/blob/main/x.py and me@x.py", []),
        ("bump to v1.2.3 and python 3.11, e.g. example.com", []),
        ("update .gitignore please", [".gitignore"]),
        ("the same a/b.py twice: a/b.py", ["a/b.py"]),
        ("nothing here at all", []),
    ],
)
def test_mentioned_paths(text: str, expected: list[str]) -> None:
    assert mentioned_paths(text) == expected


def test_normalize_and_suffixes() -> None:
    assert normalize_path("./a//b/../c.py") == "a/c.py"
    assert normalize_path("`x.py`") == "x.py"
    assert normalize_path("..") is None
    assert normalize_path("a\x00b.py") is None
    assert path_suffixes("a/b/c.py") == ["a/b/c.py", "b/c.py", "c.py"]


def test_generic_basenames_are_not_specific() -> None:
    assert not is_specific("README.md")
    assert not is_specific("__init__.py")
    assert is_specific("docs/README.md")
    assert is_specific("windows.py")


def test_entity_keys_scope_branch_to_repo() -> None:
    keys = entity_keys(
        session_id="s1", project="Mem Graph", repo="Main", branch="feat", paths=["a.py"]
    )
    assert keys == [
        "session:s1",
        "project:mem graph",
        "repo:main",
        "branch:main@feat",
        "path:main:a.py",
    ]
    # a branch without a repo says nothing; HEAD is no branch
    assert entity_keys(branch="main") == []
    assert "branch:r@HEAD" not in entity_keys(repo="r", branch="HEAD")
    anchors = entity_anchors(["repo:a", "repo:a", "path:a:x.py"])
    assert [a.ref for a in anchors] == ["repo:a", "path:a:x.py"]


@given(st.text(max_size=3000))
def test_mentioned_paths_never_raises_and_is_normalised(text: str) -> None:
    paths = mentioned_paths(text)
    assert len(paths) == len(set(paths)) <= 50
    for p in paths:
        assert "://" not in p and "@" not in p
        assert normalize_path(p) == p


@given(
    st.lists(
        st.sampled_from(["a", "b.py", "..", ".", "/", "x/", "c.rs", ":", " ", "`"]), max_size=30
    )
)
def test_hostile_path_fragments(parts: list[str]) -> None:
    text = "".join(parts)
    for p in mentioned_paths(text):
        assert ".." not in p.split("/")


def test_huge_text_is_bounded() -> None:
    text = "a/b.py " * 200_000
    assert mentioned_paths(text) == ["a/b.py"]


# The URL/e-mail pattern before it was made linear (2026-12-05): same answers wherever
# no scheme is longer than 32 characters.
_OLD_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://\S+|\bwww\.\S+|\S+@\S+")


@given(
    st.lists(
        st.sampled_from(["a", "@", ".", ":", "/", "-", " ", "\n", "www.", "http", "://", "x+y"]),
        max_size=16,
    ).map("".join)
)
def test_url_pattern_answers_as_before(text: str) -> None:
    assert entities._URL.sub(" ", text) == _OLD_URL.sub(" ", text)


def test_url_pattern_is_linear_on_one_long_token() -> None:
    # was quadratic: every position of "n-n-n-..." scanned to the token's end
    text = "n-" * 500_000
    assert entities._URL.sub(" ", text) == text
