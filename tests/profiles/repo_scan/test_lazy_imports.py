"""Literal dynamic imports (``profiles/repo_scan/lazy.py``): a module name spelled
as text (a dispatcher's string table, ``import_module("a.b")``, ``__import__``)
becomes an ``imports`` edge marked ``lazy`` when it is the full import name of a
module of the repo; anything else makes no edge."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph.ids import edge_id
from memgraph.store import open_store
from memgraph.store.memory import MemoryStore
from profiles.repo_scan.context import RepoContext, build_context, derived, lazy_target
from profiles.repo_scan.facts import MAX_ITEMS, FileFacts
from profiles.repo_scan.graph import module_id
from profiles.repo_scan.python import parse_python
from profiles.repo_scan.scan import ScanRequest, scan_repo

FILES = {
    "app/__init__.py": (
        '"""The app: commands load lazily."""\nimport importlib\n\n'
        'COMMANDS = {"a": "app.cmd_a", "b": "app.cmd_b"}\n\n\n'
        "def run(name: str) -> None:\n"
        "    importlib.import_module(COMMANDS[name]).main()\n"
    ),
    "app/cmd_a.py": '"""Command a."""\n\n\ndef main() -> None:\n    pass\n',
    "app/cmd_b.py": '"""Command b."""\n\n\ndef main() -> None:\n    pass\n',
    "app/plugins/__init__.py": "",
    "app/plugins/zip.py": '"""Zip plugin."""\n',
    "app/loader.py": (
        '"""Loads plugins."""\nimport importlib\nfrom importlib import import_module\n\n\n'
        "def load() -> None:\n"
        '    importlib.import_module("app.plugins.zip")\n'
        '    import_module(".cmd_a", __package__)\n'
        '    __import__("app.cmd_b")\n'
    ),
    # prose, comments, other repos' modules, suffixes and unknown names: no edge
    "app/notes.py": (
        '"""Notes: see "app.cmd_a" (a docstring names it)."""\n'
        "import importlib\n\n"
        '# "app.cmd_b" in a comment line\n'
        'SKIP = ["os.path", "app.missing", "plugins.zip", "cmd_a"]  # "app.cmd_b" here too\n\n\n'
        "def load(name: str) -> None:\n"
        '    """Loads "app.plugins.zip"."""\n'
        "    importlib.import_module(name)\n"
    ),
    # a module imported statically keeps its plain edge
    "app/both.py": 'from app import cmd_a\n\nNAME = "app.cmd_a"\n',
    "tests/test_cmds.py": 'import importlib\n\nMOD = importlib.import_module("app.cmd_b")\n',
}


def _repo(root: Path, kit: Any) -> Path:
    return Path(kit.write_repo(root / "lazyapp", FILES))


def _edges(store: Any) -> dict[tuple[str, str], dict[str, Any]]:
    mid = {module_id("lazyapp", p): p for p in FILES}
    return {
        (mid[e.source_id], mid[e.target_id]): dict(e.attributes)
        for e in store.export_snapshot().edges
        if e.kind == "imports" and e.lifecycle != "retired"
    }


def test_named_modules_become_lazy_import_edges(tmp_path: Path, kit: Any) -> None:
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=_repo(tmp_path, kit)))
    edges = _edges(store)
    lazy = {k for k, attrs in edges.items() if attrs.get("lazy")}
    assert lazy == {
        ("app/__init__.py", "app/cmd_a.py"),  # the string table
        ("app/__init__.py", "app/cmd_b.py"),
        ("app/loader.py", "app/plugins/zip.py"),  # import_module("a.b")
        ("app/loader.py", "app/cmd_a.py"),  # import_module(".x", __package__)
        ("app/loader.py", "app/cmd_b.py"),  # __import__("a.b")
        ("tests/test_cmds.py", "app/cmd_b.py"),
    }
    assert edges[("app/__init__.py", "app/cmd_a.py")]["line"] == 4
    assert not any(src == "app/notes.py" for src, _t in edges)
    # both.py imports cmd_a statically: one plain edge, at the import line
    assert edges[("app/both.py", "app/cmd_a.py")] == {
        "repo": "lazyapp",
        "path": "app/both.py",
        "line": 1,
    }
    find = kit.by_title(store, "lazyapp")
    dispatcher = find("module", "app/__init__.py").attributes["derived"]
    assert dispatcher["lazy"] == ["app/cmd_a.py", "app/cmd_b.py"]
    assert "lazy" not in find("module", "app/both.py").attributes["derived"]
    seam = find("test_seam", "tests tests/test_cmds.py")
    assert seam.attributes["targets"] == ["app/cmd_b.py"]


def test_ids_are_deterministic_and_a_rescan_writes_nothing(tmp_path: Path, kit: Any) -> None:
    root = _repo(tmp_path, kit)
    a, b = MemoryStore(), MemoryStore()
    scan_repo(a, ScanRequest(path=root))
    scan_repo(b, ScanRequest(path=root))
    ids = {e.id for e in a.export_snapshot().edges if e.attributes.get("lazy")}
    assert ids == {e.id for e in b.export_snapshot().edges if e.attributes.get("lazy")}
    want = edge_id(
        "imports", module_id("lazyapp", "app/__init__.py"), module_id("lazyapp", "app/cmd_a.py")
    )
    assert want in ids
    store = open_store(tmp_path / "g.db")
    scan_repo(store, ScanRequest(path=root))
    before = store.counts()
    again = scan_repo(store, ScanRequest(path=root))
    assert again.receipts == 0 and again.rebuilt == [] and store.counts() == before
    store.close()


def test_a_new_module_resolves_a_name_an_unchanged_file_spelled(tmp_path: Path, kit: Any) -> None:
    root = _repo(tmp_path, kit)
    store = MemoryStore()
    scan_repo(store, ScanRequest(path=root))
    assert ("app/notes.py", "app/missing.py") not in _edges(store)
    (root / "app/missing.py").write_text('"""Now here."""\n', encoding="utf-8")
    FILES["app/missing.py"] = ""
    try:
        result = scan_repo(store, ScanRequest(path=root))
        assert "app/notes.py" in result.rebuilt  # its facts were not parsed again
        assert _edges(store)[("app/notes.py", "app/missing.py")]["lazy"] is True
    finally:
        del FILES["app/missing.py"]


def test_summaries_name_only_unresolved_dynamic_imports(tmp_path: Path) -> None:
    store = MemoryStore()
    kit_files = {
        **FILES,
        "app/guess.py": 'import importlib\nimportlib.import_module("app.nowhere")\n',
    }
    root = tmp_path / "lazyapp"
    for rel, text in kit_files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    scan_repo(store, ScanRequest(path=root))
    summary = next(
        s for s in store.export_snapshot().summaries if s.target.startswith("package app ")
    )
    line = next(o for o in summary.known_omissions if o.startswith("dynamic imports"))
    # notes.py computes its name and names no module; guess.py names an unknown one;
    # loader.py's literals and __init__.py's table are followed
    assert line == "dynamic imports not followed in: app/guess.py, app/notes.py"


def _facts(path: str, text: str) -> FileFacts:
    facts = FileFacts(path=path, lang="python", digest="d", sha=None)
    parse_python(path, text, facts)
    return facts


def test_prose_and_comments_are_not_imports() -> None:
    text = (
        '"""Module doc naming "a.b"."""\n'
        "class C:\n"
        '    """Class doc naming "a.c"."""\n\n'
        "    \"an attribute docstring naming 'a.d'\"\n\n"
        "def f() -> None:\n"
        "    '''Function doc naming \"a.e\".'''\n"
        '    # "a.f" in a comment line\n'
        '    x = "#" + "a.g"  # "a.h" after a hash that is code\n'
        "    y = 'it''s' + 'a.i'\n"
    )
    names = [e[0] for e in _facts("pkg/m.py", text).lazy_imports]
    assert names == ["a.g", "a.i"]


def test_relative_and_literal_package_calls() -> None:
    text = (
        "import importlib\n"
        'importlib.import_module(".x", __package__)\n'
        'importlib.import_module("..y", package="top.mid")\n'
        'importlib.import_module(".z")\n'  # no package: import_module raises
        "importlib.import_module(f'top.{name}')\n"
        '__import__("top.w")\n'
        '# importlib.import_module("top.commented")\n'
    )
    facts = _facts("top/pkg/m.py", text)
    assert facts.lazy_imports == [
        ["top.pkg.x", 2, "call"],
        ["top.y", 3, "call"],
        ["top.w", 6, "call"],
    ]
    assert facts.dynamic_imports == 5


def test_only_full_import_names_resolve() -> None:
    paths = {"src/click/__init__.py", "src/click/core.py", "memgraph/__init__.py"}
    paths |= {"memgraph/cli/__init__.py", "memgraph/cli/voice_fast.py", "a/core.py", "b/core.py"}
    ctx = build_context("r", paths)
    assert lazy_target(ctx, "x.py", "memgraph.cli.voice_fast") == "memgraph/cli/voice_fast.py"
    assert lazy_target(ctx, "x.py", "memgraph.cli") == "memgraph/cli/__init__.py"
    assert lazy_target(ctx, "x.py", "click.core") == "src/click/core.py"  # src layout
    assert lazy_target(ctx, "x.py", "cli.voice_fast") is None  # a suffix: not importable
    assert lazy_target(ctx, "x.py", "memgraph.cli.gone") is None
    assert lazy_target(ctx, "x.py", "os.path") is None
    assert lazy_target(ctx, "x.py", "core") is None  # a/ and b/ on the path: ambiguous
    assert lazy_target(ctx, "a/x.py", "core") == "a/core.py"  # the importer's folder decides


class _CountingIndex(dict[str, list[str]]):
    gets = 0

    def get(self, key: str, default: Any = None) -> Any:
        _CountingIndex.gets += 1
        return super().get(key, default)


def test_many_names_are_one_lookup_each() -> None:
    """Hostile: 100k module-like names against 10k modules: resolution looks each
    name up once (no scan over the modules), extraction keeps MAX_ITEMS."""
    paths = {f"pkg/m{i}.py" for i in range(10_000)} | {"pkg/__init__.py"}
    ctx = build_context("r", paths)
    index = _CountingIndex(ctx.by_suffix)
    ctx = RepoContext(repo="r", paths=ctx.paths, by_suffix=index, packages=ctx.packages)
    facts = FileFacts(path="pkg/big.py", lang="python", digest="d", sha=None)
    facts.lazy_imports = [[f"pkg.n{i}", i + 1, "string"] for i in range(100_000)]
    facts.lazy_imports.append(["pkg.m7", 100_001, "string"])
    _CountingIndex.gets = 0
    seen = derived(facts, ctx)
    assert seen["imports"] == [["pkg/m7.py", 100_001]] and seen["lazy"] == ["pkg/m7.py"]
    assert _CountingIndex.gets == 100_001


def test_a_file_of_100k_strings_scans_in_linear_time() -> None:
    """One line of 100k dotted strings (the comment check looks at a line once)
    and 100k lines of them: each well under a second's worth per 100k here."""
    one_line = "X = [" + ", ".join(f'"pkg.n{i}"' for i in range(100_000)) + "]\n"
    many_lines = "".join(f'X{i} = "pkg.n{i % 50}"\n' for i in range(100_000))
    for text in (one_line, many_lines):
        start = time.perf_counter()
        facts = _facts("pkg/big.py", text)
        took = time.perf_counter() - start
        assert len(facts.lazy_imports) == min(MAX_ITEMS, 100_000 if text is one_line else 50)
        assert took < 20, took  # quadratic (a line re-read per match) takes minutes


def _module_parts_by_path(path: str) -> list[str] | str:
    from pathlib import PurePosixPath

    try:
        parts = list(PurePosixPath(path).with_suffix("").parts)
    except ValueError:
        return "ValueError"
    return parts[:-1] if parts and parts[-1] == "__init__" else parts


def _module_parts_or_error(path: str) -> list[str] | str:
    from profiles.repo_scan.python import module_parts

    try:
        return module_parts(path)
    except ValueError:
        return "ValueError"


def test_module_parts_is_the_path_objects_rule_on_every_short_path() -> None:
    """``module_parts`` splits normalised paths as text (speed37): every path of up to
    four pieces from an alphabet of the awkward ones gives what the path object gave."""
    import itertools

    pieces = ["a", ".", "..", "/", "b.py", ".x", "x.", "__init__.py", "c.d", "e.tar.gz", ".py"]
    paths = ["".join(p) for k in range(1, 5) for p in itertools.product(pieces, repeat=k)]
    assert len(paths) > 15_000
    assert [p for p in paths if _module_parts_or_error(p) != _module_parts_by_path(p)] == []


@given(st.text(alphabet="ab._/_-é", max_size=30))
@settings(max_examples=300, deadline=None)
def test_module_parts_is_the_path_objects_rule(path: str) -> None:
    assert _module_parts_or_error(path) == _module_parts_by_path(path)
