"""Repo-wide context a file's nodes depend on: import resolution, schema
classes, package owners, test files.

A file's graph is ``f(its facts, this context)``; ``derived()`` is the part of
the context one file sees, stored on its module node, so a rescan can tell
whether an unchanged file needs new edges (only when files were added or
removed, or a class hierarchy changed).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a rescan with nothing to rebuild loads neither (nor ast)
    from profiles.repo_scan.facts import FileFacts

SCHEMA_ROOTS = frozenset(
    {
        "BaseModel",
        "BaseSettings",
        "RootModel",
        "TypedDict",
        "NamedTuple",
        "SQLModel",
        "Schema",
        "JSONSchema",
        "struct",
    }
)
SCHEMA_DECORATORS = ("dataclass", "dataclasses.dataclass", "attr.s", "attrs.define", "define")
RUST_SCHEMA_DERIVES = frozenset({"Serialize", "Deserialize"})
_TEST_NAME = re.compile(r"(^test_.*\.py$|_test\.(py|go)$|\.(test|spec)\.[cm]?[jt]sx?$)")
_TS_EXT = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")


def is_test(path: str) -> bool:
    p = PurePosixPath(path)
    if any(part in ("tests", "test", "__tests__", "testing") for part in p.parts[:-1]):
        return True
    return bool(_TEST_NAME.search(p.name)) or p.name == "conftest.py"


@dataclass
class RepoContext:
    repo: str
    paths: set[str]
    by_suffix: dict[str, list[str]] = field(default_factory=dict)
    schema_names: set[str] = field(default_factory=set)
    packages: dict[str, str] = field(default_factory=dict)  # dir -> owner file
    go_modules: dict[str, str] = field(default_factory=dict)  # module path -> dir

    @property
    def domain(self) -> str:
        return f"repo:{self.repo}"


def _is_schema_class(cls: list[Any], names: set[str]) -> bool:
    _name, _line, _end, bases, decos = cls
    if any(b in SCHEMA_ROOTS or b in names for b in bases):
        return True
    if any(d.startswith(SCHEMA_DECORATORS) or d.endswith(".dataclass") for d in decos):
        return True
    return bool(RUST_SCHEMA_DERIVES & set(decos))


def build_context(
    repo: str,
    paths: set[str],
    facts: dict[str, FileFacts] | None = None,
    cached: dict[str, Any] | None = None,
) -> RepoContext:
    """Context from the file set, plus class and manifest facts when given
    (a full rescan), or their cached result from the last full scan."""
    from profiles.repo_scan.files import language_of
    from profiles.repo_scan.python import module_parts

    ctx = RepoContext(repo=repo, paths=set(paths))
    by_suffix: dict[str, list[str]] = defaultdict(list)
    for path in sorted(paths):
        if language_of(path) == "python":
            parts = module_parts(path)
            for i in range(len(parts)):
                by_suffix[".".join(parts[i:])].append(path)
        folder, _, name = path.rpartition("/")  # git's (normalised, relative) paths
        owner = name == "__init__.py" or name in ("Cargo.toml", "package.json", "go.mod")
        if owner and (folder not in ctx.packages or name == "__init__.py"):
            ctx.packages[folder] = path
    ctx.by_suffix = dict(by_suffix)
    if facts is None:
        cached = cached or {}
        ctx.schema_names = set(cached.get("schema_names") or [])
        ctx.go_modules = dict(cached.get("go_modules") or {})
        return ctx
    for path, f in facts.items():
        if PurePosixPath(path).name == "go.mod" and f.package:
            folder = PurePosixPath(path).parent.as_posix()
            ctx.go_modules[f.package] = "" if folder == "." else folder
    # schema classes: roots, then subclasses by name until nothing changes
    classes = [c for f in facts.values() for c in f.classes]
    names: set[str] = set()
    while True:
        grown = {c[0] for c in classes if _is_schema_class(c, names)}
        if grown <= names:
            break
        names |= grown
    ctx.schema_names = names
    return ctx


def cache_of(ctx: RepoContext) -> dict[str, Any]:
    return {
        "schema_names": sorted(ctx.schema_names),
        "go_modules": dict(sorted(ctx.go_modules.items())),
    }


def _pick(candidates: list[str], importer: str) -> str | None:
    if len(candidates) == 1:
        return candidates[0]
    top = PurePosixPath(importer).parts[0]
    near = [c for c in candidates if PurePosixPath(c).parts[0] == top]
    return near[0] if len(near) == 1 else None


def python_target(ctx: RepoContext, importer: str, dotted: str, name: str) -> str | None:
    for key in ((f"{dotted}.{name}" if name else ""), dotted):
        if key and key in ctx.by_suffix:
            found = _pick(ctx.by_suffix[key], importer)
            if found is not None:
                return found
    return None


def _relative_target(ctx: RepoContext, importer: str, spec: str) -> str | None:
    base = PurePosixPath(importer).parent
    parts: list[str] = []
    for part in (base / spec).parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    stem = "/".join(parts)
    for cand in (stem, *(stem + e for e in _TS_EXT), *(f"{stem}/index{e}" for e in _TS_EXT)):
        if cand in ctx.paths:
            return cand
    return None


def _rust_target(ctx: RepoContext, importer: str, spec: str) -> str | None:
    p = PurePosixPath(importer)
    parts = spec.split("::")
    if parts[0] == "self" and len(parts) == 2:
        base = p.parent if p.name in ("mod.rs", "lib.rs", "main.rs") else p.parent / p.stem
        for cand in (base / f"{parts[1]}.rs", base / parts[1] / "mod.rs"):
            if cand.as_posix() in ctx.paths:
                return cand.as_posix()
        return None
    if parts[0] != "crate":
        return None
    src = next((a for a in p.parents if a.name == "src"), None)
    if src is None:
        return None
    for n in range(len(parts) - 1, 0, -1):
        stem = src.joinpath(*parts[1 : n + 1])
        for cand in (stem.with_suffix(".rs"), stem / "mod.rs"):
            if cand.as_posix() in ctx.paths:
                return cand.as_posix()
    return None


def _go_targets(ctx: RepoContext, spec: str) -> list[str]:
    for module, folder in ctx.go_modules.items():
        if spec == module or spec.startswith(module + "/"):
            rel = spec[len(module) :].strip("/")
            d = "/".join(x for x in (folder, rel) if x)
            return sorted(
                p
                for p in ctx.paths
                if p.endswith(".go") and PurePosixPath(p).parent.as_posix() == (d or ".")
            )[:10]
    return []


def _is_import_name(ctx: RepoContext, parts: list[str], size: int) -> bool:
    """The module's last ``size`` parts start in a folder that is not a Python
    package (no ``__init__.py``): Python imports the module under that name."""
    folder = "/".join(parts[: len(parts) - size])
    return not ctx.packages.get(folder, "").endswith("__init__.py")


def lazy_target(ctx: RepoContext, importer: str, name: str) -> str | None:
    """The repo module whose full import name is ``name`` (``lazy.py``), or None:
    one dict lookup, so a file naming 100k strings costs 100k lookups."""
    found = ctx.by_suffix.get(name)
    if not found:
        return None
    from profiles.repo_scan.python import module_parts

    size = name.count(".") + 1
    full = [p for p in found if _is_import_name(ctx, module_parts(p), size)]
    return _pick(full, importer) if full else None


def unresolved_dynamic(facts: FileFacts, ctx: RepoContext) -> int:
    """``import_module``/``__import__`` calls of the file whose module stays unknown:
    a literal name of no repo module, or a computed name (``import_module(TABLE[k])``)
    in a file that names no other repo module as text (with such names, the call is
    taken to read them: the dispatcher's table, whose modules are edges)."""
    calls = [name for name, _line, how in facts.lazy_imports if how == "call"]
    unknown = sum(1 for name in calls if lazy_target(ctx, facts.path, name) is None)
    computed = max(facts.dynamic_imports - len(calls), 0)
    if computed and any(
        lazy_target(ctx, facts.path, name) not in (None, facts.path)
        for name, _line, how in facts.lazy_imports
        if how == "string"
    ):
        computed = 0
    return unknown + computed


def resolve_imports(facts: FileFacts, ctx: RepoContext) -> tuple[list[list[Any]], list[str]]:
    """[target path, line] for every import that names a file of this repo, and
    the targets only a literal dynamic import names (``lazy.py``)."""
    out: dict[str, int] = {}
    for spec, name, line in facts.imports:
        targets: list[str] = []
        if facts.lang == "python":
            t = python_target(ctx, facts.path, spec, name)
            targets = [t] if t else []
        elif facts.lang == "rust":
            t = _rust_target(ctx, facts.path, spec)
            targets = [t] if t else []
        elif facts.lang == "go":
            targets = _go_targets(ctx, spec)
        elif spec.startswith("."):
            t = _relative_target(ctx, facts.path, spec)
            targets = [t] if t else []
        for t in targets:
            if t != facts.path and (t not in out or line < out[t]):
                out[t] = line
    lazy: dict[str, int] = {}
    for name, line, _how in facts.lazy_imports:
        t = lazy_target(ctx, facts.path, name)
        # a module also imported statically keeps that edge as it was
        if t is not None and t != facts.path and t not in out and (t not in lazy or line < lazy[t]):
            lazy[t] = line
    out.update(lazy)
    return [[t, out[t]] for t in sorted(out)], sorted(lazy)


def derived(facts: FileFacts, ctx: RepoContext) -> dict[str, Any]:
    """The context this file's nodes depend on (stored beside its facts)."""
    folder = PurePosixPath(facts.path).parent.as_posix()
    folder = "" if folder == "." else folder
    owner = ctx.packages.get(folder)
    imports, lazy = resolve_imports(facts, ctx)
    seen: dict[str, Any] = {  # keys in sorted order (node hashing sorts otherwise)
        "imports": imports,
        "package": owner if owner != facts.path else None,
        "schemas": sorted(c[0] for c in facts.classes if c[0] in ctx.schema_names),
        "test": is_test(facts.path),
    }
    if lazy:  # only then: a file without any keeps the derived it had before
        seen = dict(sorted({**seen, "lazy": lazy}.items()))
    return seen
