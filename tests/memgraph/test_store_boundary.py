"""The store is the only code that speaks SQL (issue 16, item 1).

Scans the source of every package outside ``memgraph/store`` with ``ast``: no
``sqlite3`` import, no ``.conn`` attribute, no other object's ``_lock``, no
backend class named in a string, and no SQL statement text (docstrings and
comments are prose and may mention SQL). Also: the store never reaches into
the profiles, and the engine reaches profile law only through ``Profile``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("memgraph", "profiles", "context_cut")
STORE = ROOT / "memgraph" / "store"
ENGINE = (
    "engine.py",
    "working.py",
    "ops_apply.py",
    "ops_node.py",
    "ops_derived.py",
    "ops.py",
    "validation.py",
)

# Statement heads, upper case as every SQL string in this code base writes them.
SQL = re.compile(
    r"\b(SELECT\b.+\bFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(TABLE|INDEX|TRIGGER|VIRTUAL\s+TABLE|UNIQUE\s+INDEX)|DROP\s+(TABLE|TRIGGER|INDEX)"
    r"|ALTER\s+TABLE|PRAGMA\s+\w+|BEGIN\s+IMMEDIATE|json_extract\()",
    re.DOTALL,
)


def sources(*, inside_store: bool = False) -> list[Path]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.is_relative_to(STORE) == inside_store:
                found.append(path)
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def boundary_problems(path: Path) -> list[str]:
    """Every way ``path`` crosses the store boundary, as ``file:line: what``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    docs = _docstrings(tree)
    rel = path.relative_to(ROOT)
    found: list[str] = []

    def add(node: ast.AST, what: str) -> None:
        found.append(f"{rel}:{getattr(node, 'lineno', 0)}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "sqlite3":
                    add(node, "imports sqlite3")
        elif isinstance(node, ast.ImportFrom):
            if (node.module or "").split(".")[0] == "sqlite3":
                add(node, "imports from sqlite3")
        elif isinstance(node, ast.Attribute):
            if node.attr == "conn":
                add(node, "uses a .conn attribute")
            if node.attr == "_lock" and not (
                isinstance(node.value, ast.Name) and node.value.id == "self"
            ):
                add(node, "uses another object's _lock")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docs:
                continue
            if "SQLiteStore" in node.value or "SQLiteTxn" in node.value:
                add(node, "names a store backend class in a string")
            if SQL.search(node.value):
                add(node, f"SQL text: {node.value.strip()[:60]!r}")
        elif isinstance(node, ast.JoinedStr):
            text = "".join(
                v.value
                for v in node.values
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            if SQL.search(text):
                add(node, f"SQL text: {text.strip()[:60]!r}")
    return found


def test_no_sql_outside_the_store() -> None:
    problems = [p for path in sources() for p in boundary_problems(path)]
    assert problems == []


def test_the_scan_finds_what_it_forbids(tmp_path: Path) -> None:
    """The checker itself can fail: a file doing each forbidden thing is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        '"""Docstrings may say SELECT x FROM y."""\n'
        "import sqlite3\n"
        "from sqlite3 import Connection\n"
        "def f(store, t):\n"
        "    store.conn.execute('SELECT doc FROM nodes WHERE id = ?')\n"
        "    with store._lock:\n"
        "        pass\n"
        "    type(store).__name__ == 'SQLiteStore'\n"
        "    return f'INSERT INTO {t} VALUES (1)'\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        problems = boundary_problems(bad)
    finally:
        ROOT = saved
    kinds = sorted({p.split(": ", 1)[1].split(":")[0] for p in problems})
    assert kinds == [
        "SQL text",
        "imports from sqlite3",
        "imports sqlite3",
        "names a store backend class in a string",
        "uses a .conn attribute",
        "uses another object's _lock",
    ]
    assert not any(":1:" in p for p in problems)  # the docstring is prose


def test_the_scan_covers_the_packages() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in sources()}
    assert {
        "profiles/voice/search.py",
        "context_cut/candidates.py",
        "memgraph/snapshot.py",
    } <= names
    assert not any(n.startswith("memgraph/store/") for n in names)
    # ... and SQL does live in the store (so the pattern matches real statements)
    assert any(SQL.search(p.read_text()) for p in sources(inside_store=True))


@pytest.mark.parametrize("path", sources(inside_store=True), ids=lambda p: p.name)
def test_the_store_does_not_import_profiles(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom | ast.Import):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
            )
            assert not any(n.split(".")[0] in ("profiles", "context_cut") for n in names), path
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert not re.match(r"(profiles|context_cut)\.\w", node.value), (path, node.value)


def test_every_extension_module_is_imported_not_looked_up() -> None:
    """A missing extension module is an ImportError, never silently skipped."""
    from memgraph.store import schema

    text = (STORE / "schema.py").read_text()
    assert "importlib" not in text and "ModuleNotFoundError" not in text
    versions = [m.version for m in schema.all_migrations()]
    # the profile index versions kept their numbers: existing stores keep working
    assert {2, 3, 4, 5, 6, 10, 11, 40} <= set(versions)


def test_the_engine_reaches_profile_law_only_through_profile() -> None:
    for name in ENGINE:
        tree = ast.parse((ROOT / "memgraph" / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module != "profiles.agent", name
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert "short_term" not in node.value, (name, node.value)
            if isinstance(node, ast.Name | ast.Attribute):
                ident = node.id if isinstance(node, ast.Name) else node.attr
                assert ident != "SHORT_TERM_OPEN_STATES", name


def test_unregistered_backend_is_an_error() -> None:
    from memgraph.errors import StoreError
    from memgraph.store.interfaces import indexes

    class Elsewhere:
        pass

    with pytest.raises(StoreError, match="registers no profile indexes"):
        indexes(Elsewhere())
