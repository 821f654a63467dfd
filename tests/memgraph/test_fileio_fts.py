"""Atomic writes, safe path children, and the FTS5 query sanitiser."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memgraph.beneath import safe_child
from memgraph.errors import InvalidId, StoreError
from memgraph.fileio import atomic_write_text
from memgraph.fts import to_fts5_query


def test_atomic_write_creates_parents_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "page.md"
    atomic_write_text(target, "one\n")
    atomic_write_text(target, "two ünïcode\n")
    assert target.read_text(encoding="utf-8") == "two ünïcode\n"
    assert os.listdir(target.parent) == ["page.md"]


def test_atomic_write_failure_keeps_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "pages" / "page.md"
    atomic_write_text(target, "old")
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(target, "bad \ud800 surrogate")
    assert target.read_text() == "old"
    assert os.listdir(target.parent) == ["page.md"]


def test_safe_child_accepts_plain_names(tmp_path: Path) -> None:
    assert safe_child(tmp_path, "persona", "s-1.yaml") == tmp_path / "persona" / "s-1.yaml"


@pytest.mark.parametrize("bad", ["..", "../x", "a/b", "/etc", ".hidden", "", "a\x00b", "x" * 200])
def test_safe_child_refuses_traversal(tmp_path: Path, bad: str) -> None:
    with pytest.raises(InvalidId, match="unsafe name"):
        safe_child(tmp_path, "ok", bad)


def test_safe_child_refuses_symlink_escape(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(tmp_path)
    with pytest.raises(StoreError, match="escapes"):
        safe_child(root, "link", "x")


@given(st.text(max_size=50))
def test_safe_child_never_escapes(name: str) -> None:
    root = Path("/tmp/mg-root-never-created")
    try:
        path = safe_child(root, name)
    except InvalidId:
        return
    assert path.parent == root


def test_fts_query_examples() -> None:
    assert to_fts5_query('fix "login flow" auth*') == '"fix" "login flow" "auth"*'
    assert to_fts5_query("don't") == '"don t"'
    assert to_fts5_query('unbalanced "quote') == '"unbalanced" "quote"'
    assert to_fts5_query("*** --- :::") == ""
    assert to_fts5_query("NEAR(a b) OR c") == '"NEAR a" "b" "OR" "c"'  # operators quoted


@pytest.fixture(scope="module")
def fts() -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61 remove_diacritics 2')")
    con.execute("INSERT INTO t VALUES ('the login flow is fixed'), ('crème brûlée')")
    return con


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=80))
def test_fts_query_is_always_valid_fts5(fts: sqlite3.Connection, text: str) -> None:
    query = to_fts5_query(text)
    if query:
        fts.execute("SELECT count(*) FROM t WHERE t MATCH ?", (query,)).fetchone()
