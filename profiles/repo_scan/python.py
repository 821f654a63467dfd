"""Facts of one Python file, from ``ast`` (no import, no execution).

Static heuristics, named so a reader can check them:
- imports: ``import a.b`` / ``from .x import y`` (relative ones made absolute
  by the file's path); module names spelled as text (``import_module("a.b")``,
  ``__import__``, a string table of dotted names) are kept for resolution
  against the repo's modules (``lazy.py``); a dynamic import whose module stays
  unknown is a known omission of every summary over the file;
- public symbols: top-level ``def``/``class``/assignments not starting with ``_``;
- classes with their base and decorator names (schemas are decided repo-wide);
- env vars: ``os.getenv("X")``, ``os.environ.get("X")``, ``os.environ["X"]``, and
  pydantic-settings fields under an ``env_prefix``;
- CLI commands: ``app.command("x")``/``@app.command()``, ``add_parser("x")``,
  ``@click.command()``, command groups (``add_typer(..., name="x")``,
  ``Typer(name="x")``); CLI options: every ``"--name"`` string literal (typer,
  click, argparse and hand-made option tables alike); MCP tools: functions
  decorated ``@<server>.tool`` (the ``name=`` argument when given);
- dataflow: ``open(..., "w")``, ``.write_text``/``.read_text``, ``json.dump``/``load``
  (outputs/inputs), ``sqlite3``/``psycopg``/SQLAlchemy/redis/Qdrant connections
  (stores), ``requests``/``httpx``/``urllib`` (HTTP in/out), ``sys.stdin``.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from pathlib import PurePosixPath

from profiles.repo_scan.facts import MAX_ITEMS, FileFacts, first_paragraph, scan_text
from profiles.repo_scan.lazy import dynamic_facts

_HTTP_OUT = {"post", "put", "patch", "delete"}


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        parts.append(_dotted(node.func) + "()")
    else:
        return ""
    return ".".join(reversed(parts))


def _str_arg(call: ast.Call, index: int = 0, keyword: str | None = None) -> str | None:
    if len(call.args) > index:
        arg = call.args[index]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
    for kw in call.keywords:
        if (
            keyword is not None
            and kw.arg == keyword
            and isinstance(kw.value, ast.Constant)
            and isinstance(kw.value.value, str)
        ):
            return kw.value.value
    return None


def module_parts(path: str) -> list[str]:
    """The dotted module name's parts of a repo path (``a/b/c.py`` -> a, b, c; a
    package's ``__init__`` is its folder): ``PurePosixPath(path).with_suffix("").parts``.
    Git's paths are normalised (relative, single slashes, no ``.`` part), so they are
    split as text: ``build_context`` runs this over every file of every rescan, where
    a path object per file was ~1 ms of a one-file rescan (notes/repo.md, speed37)."""
    if path[:1] in ("", "/", ".") or "//" in path or "/./" in path or path.endswith(("/", "/.")):
        parts = list(PurePosixPath(path).with_suffix("").parts)
    else:
        parts = path.split("/")
        name = parts[-1]
        dot = name.rfind(".")
        if 0 < dot < len(name) - 1:  # PurePosixPath's suffix rule
            parts[-1] = name[:dot]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return parts


def _absolute(path: str, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    base = module_parts(path)
    if PurePosixPath(path).stem != "__init__":
        base = base[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *(module.split(".") if module else [])])


def _settings_env(cls: ast.ClassDef, facts: FileFacts) -> None:
    """pydantic-settings: ``env_prefix`` + each annotated field is an env var."""
    prefix = None
    for stmt in cls.body:
        if (
            isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Call)
            and any(isinstance(t, ast.Name) and t.id == "model_config" for t in stmt.targets)
        ):
            prefix = _str_arg(stmt.value, 99, "env_prefix")
    if prefix is None:
        return
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            if not name.startswith("_") and name != "model_config":
                facts.env.append([f"{prefix}{name}".upper(), stmt.lineno])


def _prefixed_env(
    prefix: str | None, field_lists: list[tuple[str, list[ast.Constant]]], facts: FileFacts
) -> None:
    """An env prefix constant (``ENV_PREFIX = "APP_"``) beside a list of field
    names (``FIELDS = ("home", ...)``): each field is read as ``APP_<FIELD>``."""
    if not prefix:
        return
    for _name, items in field_lists:
        for item in items:
            facts.env.append([(prefix + str(item.value)).upper(), item.lineno])


def _field_list(stmt: ast.Assign | ast.AnnAssign) -> list[ast.Constant] | None:
    value = stmt.value
    if not isinstance(value, ast.Tuple | ast.List) or not value.elts:
        return None
    items = [e for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(items) != len(value.elts) or not all(str(i.value).isidentifier() for i in items):
        return None
    return items


def _top_level(tree: ast.Module, facts: FileFacts) -> None:
    prefix: str | None = None
    field_lists: list[tuple[str, list[ast.Constant]]] = []
    for stmt in tree.body:
        end = getattr(stmt, "end_lineno", None) or stmt.lineno
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            if not stmt.name.startswith("_"):
                facts.symbols.append([stmt.name, "function", stmt.lineno, end])
        elif isinstance(stmt, ast.ClassDef):
            bases = [_dotted(b).rsplit(".", 1)[-1] for b in stmt.bases]
            decos = [_dotted(d.func if isinstance(d, ast.Call) else d) for d in stmt.decorator_list]
            facts.classes.append([stmt.name, stmt.lineno, end, bases, decos])
            if not stmt.name.startswith("_"):
                facts.symbols.append([stmt.name, "class", stmt.lineno, end])
            if "BaseSettings" in bases:
                _settings_env(stmt, facts)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                if isinstance(t, ast.Name) and not t.id.startswith("_") and t.id.isupper():
                    facts.symbols.append([t.id, "constant", stmt.lineno, end])
                if not isinstance(t, ast.Name) or not t.id.isupper():
                    continue
                if "ENV" in t.id and "PREFIX" in t.id and isinstance(stmt.value, ast.Constant):
                    prefix = str(stmt.value.value) if isinstance(stmt.value.value, str) else None
                elif "FIELDS" in t.id or "KEYS" in t.id:
                    items = _field_list(stmt)
                    if items:
                        field_lists.append((t.id, items))
        elif isinstance(stmt, ast.If) and _is_main_guard(stmt.test):
            facts.main = True
    _prefixed_env(prefix, field_lists, facts)


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef, facts: FileFacts) -> None:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = _dotted(target)
        if name.endswith(".command") or name in ("click.command", "click.group"):
            cmd = _str_arg(d) if isinstance(d, ast.Call) else None
            facts.commands.append([cmd or node.name.replace("_", "-"), node.lineno])
        elif name == "tool" or name.endswith(".tool"):
            tool = _str_arg(d, 99, "name") if isinstance(d, ast.Call) else None
            facts.tools.append([tool or node.name, node.lineno])


# (literal that must occur, pattern, what): the literal check skips a pattern in
# most files (a leading optional group defeats the regex engine's own prefix scan).
# Patterns as text, compiled on first use (``re``'s cache): a one-file rescan
# compiles only those its file's literals call for, not all fourteen.
_CALLS: list[tuple[tuple[str, ...], str, str]] = [
    (
        ("getenv", "environ."),
        r"\b(?:os\.)?(?:getenv|environ\.get|environ\.setdefault)\(\s*[\"']([^\"'\n]+)[\"']",
        "env",
    ),
    (("environ[",), r"\benviron\[\s*[\"']([^\"'\n]+)[\"']\s*\]", "env"),
    (
        ("env.get(", "env["),  # a mapping named like env (``env.get("APP_MODE")``)
        r"\b(?!environ\b)\w*env\s*(?:\.get\(|\[)\s*[\"']([A-Z][A-Z0-9]*_[A-Z0-9_]+)[\"']",
        "env",
    ),
    ((".command(",), r"\.command\(\s*(?:name\s*=\s*)?[\"']([^\"'\n]+)[\"']", "command"),
    (("add_parser(",), r"\badd_parser\(\s*[\"']([^\"'\n]+)[\"']", "command"),
    (
        ("add_typer(", "Typer("),  # a command group's name
        r"\b(?:add_typer|Typer)\([^()\n]*?\bname\s*=\s*[\"']([^\"'\n]+)[\"']",
        "command",
    ),
    (('"--', "'--"), r"[\"'](--[A-Za-z][\w-]*)[\"'=]", "option"),
    (("open(",), r"(?<![\w.])(?:io\.|gzip\.|os\.fd)?open\(([^()\n]*)\)", "open"),
    (
        ("_text(", "_bytes("),
        r"\.(write_text|write_bytes|read_text|read_bytes)\(",
        "pathio",
    ),
    (
        (".dump", ".load", ".safe_"),
        r"\b(json|yaml|pickle|tomllib)\.(dump|safe_dump|load|safe_load)\(",
        "serial",
    ),
    (
        ("connect(", "create_engine", "Redis(", "Client("),
        (
            r"\b(sqlite3\.connect|psycopg2?\.connect|asyncpg\.connect|create_engine"
            r"|redis\.Redis|QdrantClient|MongoClient|duckdb\.connect)\("
        ),
        "store",
    ),
    (
        ("requests.", "httpx.", "aiohttp."),
        r"\b(requests|httpx|aiohttp)\.(\w+)\(",
        "http",
    ),
    (("urlopen(",), r"\burlopen\(", "urlopen"),
    (("sys.stdin",), r"\bsys\.stdin\b", "stdin"),
]
_NEWLINE = re.compile("\n")
_MODE = re.compile(r",\s*(?:mode\s*=\s*)?[\"']([rwaxbt+]+)[\"']")
_STORE_NAMES = {
    "sqlite3.connect": "sqlite",
    "psycopg.connect": "postgres",
    "psycopg2.connect": "postgres",
    "asyncpg.connect": "postgres",
    "create_engine": "sql",
    "redis.Redis": "redis",
    "QdrantClient": "qdrant",
    "MongoClient": "mongodb",
    "duckdb.connect": "duckdb",
}


def _call_facts(text: str, facts: FileFacts) -> None:
    """Call-site facts by pattern over the source (comment lines skipped).

    A full ``ast.walk`` over every expression costs ~5x the parse itself; these
    patterns run in C and find the same call shapes (they may also match inside
    string literals: a known, documented over-approximation).
    """
    starts = None
    for needles, pattern, what in _CALLS:
        if not any(n in text for n in needles):
            continue
        for m in re.finditer(pattern, text):
            if starts is None:
                starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
            line = bisect_right(starts, m.start())
            line_text = text[starts[line - 1] : m.start()]
            if "#" in line_text and line_text.lstrip().startswith("#"):
                continue
            if what == "env":
                facts.env.append([m.group(1), line])
            elif what == "command":
                facts.commands.append([m.group(1), line])
            elif what == "option":
                facts.options.append([m.group(1), line])
            elif what == "open":
                mode = _MODE.search(m.group(1))
                kind = "output" if mode and any(c in mode.group(1) for c in "wax+") else "input"
                facts.io.append([kind, "file", line])
            elif what == "pathio":
                kind = "output" if m.group(1).startswith("write") else "input"
                facts.io.append([kind, "file", line])
            elif what == "serial":
                kind = "output" if "dump" in m.group(2) else "input"
                facts.io.append([kind, m.group(1), line])
            elif what == "store":
                facts.io.append(["store", _STORE_NAMES[m.group(1)], line])
            elif what == "http":
                kind = "output" if m.group(2) in _HTTP_OUT else "input"
                facts.io.append([kind, "http", line])
            elif what == "urlopen":
                facts.io.append(["input", "http", line])
            else:
                facts.io.append(["input", "stdin", line])


_NESTED = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(tree: ast.Module) -> list[ast.stmt]:
    """Every statement, nested ones too (expressions are not visited)."""
    out: list[ast.stmt] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for name in _NESTED:
            children = getattr(node, name, None)
            if children:
                stack.extend(reversed(children))
        if isinstance(node, ast.stmt):
            out.append(node)
    return out


def parse_python(path: str, text: str, facts: FileFacts) -> None:
    """Fill ``facts`` from ``text``; a syntax error leaves it unparsed (with why)."""
    scan_text(facts, text)
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        facts.parsed = False
        where = f" line {exc.lineno}" if isinstance(exc, SyntaxError) and exc.lineno else ""
        facts.error = f"syntax error{where}: not parsed"
        return
    doc = ast.get_docstring(tree, clean=True)
    if doc:
        facts.doc = first_paragraph(doc)
    _top_level(tree, facts)
    seen_imports: set[tuple[str, str]] = set()
    docs: list[tuple[int, int]] = []  # bare string statements: prose, not imports
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                key = (alias.name, "")
                if key not in seen_imports:
                    seen_imports.add(key)
                    facts.imports.append([alias.name, "", node.lineno])
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(path, node.module, node.level)
            for alias in node.names:
                key = (base, alias.name)
                if base and key not in seen_imports:
                    seen_imports.add(key)
                    facts.imports.append([base, alias.name, node.lineno])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.decorator_list:
            _decorators(node, facts)
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            docs.append((node.lineno, node.end_lineno or node.lineno))
    _call_facts(text, facts)
    docs.sort()
    dynamic_facts(text, facts, _absolute(path, None, 1), docs, MAX_ITEMS)
    for items in (facts.env, facts.commands, facts.io, facts.options, facts.tools):
        items.sort(key=lambda item: (item[-1], *map(str, item)))
