"""Look for regexes that backtrack badly on hostile text (a developer's tool, not a test).

    python scripts/regex_audit.py [--chars 20000] [--report 0.05]

Imports every module of memgraph, profiles and context_cut, takes each compiled
module-level pattern (also inside module-level tuples, lists, dicts and sets), and every
literal pattern handed to a ``re`` function anywhere in the source (a function's own
``re.compile("...")``, ``re.sub("...", ...)``; found by walking the syntax tree), and times ``search`` and ``findall`` on hostile strings of
``--chars`` characters: runs of one character class, and repetitions of the
pattern's own literal pieces (``<system-reminder>``, ``## User Input``, words),
alone or separated by a space or a newline. A pattern slower than ``--report``
seconds on any of them is printed with the string that made it slow (3 s at
most per string: a longer one is reported as 99 s). A linear pattern takes about
a millisecond on 20,000 characters; a quadratic one ~0.3 s and grows x16 at
4x the length. A pattern built at run time (an f-string, a joined list) is not seen.

It found, on 2026-12-05, the prefilter's tagged blocks, the templates' User Input
block and the artifact entities' URL pattern (notes/reliability.md).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import pkgutil
import re
import signal
import sys
import time
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PACKAGES = ("memgraph", "profiles", "context_cut")
CLASSES = ["a", " ", "-", "1.", "a ", "aA1_", "\t\n", "`", '"', "(", "/", ".", "a.b", "*", "#"]


class _Slow(Exception):
    pass


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _Slow


def patterns() -> dict[str, re.Pattern[str]]:
    found: dict[str, re.Pattern[str]] = {}
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            if info.name.endswith("__main__"):
                continue  # runs the CLI
            try:
                module = importlib.import_module(info.name)
            except Exception as exc:  # an optional extra not installed
                print(f"skipped {info.name}: {type(exc).__name__}", file=sys.stderr)
                continue
            for attr, value in vars(module).items():
                inner = value.values() if isinstance(value, dict) else value
                items = inner if isinstance(inner, (tuple, list, set, frozenset)) else [value]
                for i, item in enumerate(items):
                    if isinstance(item, re.Pattern) and isinstance(item.pattern, str):
                        found[f"{info.name}.{attr}" + (f"[{i}]" if item is not value else "")] = (
                            item
                        )
        found.update(literal_patterns(Path(package.__path__[0]), name))
    return found


# the ``re`` functions taking a pattern first -> the position of their ``flags``
_FLAGS_AT = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2}
_FLAGS_AT |= {"finditer": 2, "sub": 4, "subn": 4, "split": 3}


def _flags(node: ast.expr | None) -> int:
    """``re.I | re.X`` as written in the call; anything else counts as no flags."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        value = getattr(re, node.attr, 0) if node.value.id == "re" else 0
        return int(value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flags(node.left) | _flags(node.right)
    return 0


def literal_patterns(root: Path, package: str) -> dict[str, re.Pattern[str]]:
    """Every ``re.<fn>("literal", ...)`` call under ``root``, named by file and line
    (the module-level ones are found again here; the dict keeps one of each)."""
    found: dict[str, re.Pattern[str]] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in _FLAGS_AT
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                continue
            position = _FLAGS_AT[node.func.attr]
            flag_node = node.args[position] if len(node.args) > position else None
            for kw in node.keywords:
                if kw.arg == "flags":
                    flag_node = kw.value
            try:
                compiled = re.compile(node.args[0].value, _flags(flag_node))
            except re.error:
                continue
            where = f"{package}/{path.relative_to(root)}:{node.lineno}"
            found[where] = compiled
    return found


def hostile(pattern: str, chars: int) -> list[str]:
    pieces = [
        re.sub(r"\\(.)", r"\1", piece)
        for piece in re.findall(r"(?:\\[^dDsSwWbBAZ0-9]|[^\\()\[\]{}*+?|^$.])+", pattern)
    ]
    pieces += re.findall(r"[A-Za-z]{2,}", pattern)
    out = []
    for piece in CLASSES + [p for p in pieces if p.strip()][:16]:
        for sep in ("", " ", "\n"):
            unit = piece + sep
            out.append((unit * (chars // len(unit) + 1))[:chars])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chars", type=int, default=20_000)
    ap.add_argument("--report", type=float, default=0.05)
    args = ap.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    found = patterns()
    seen: set[tuple[str, int]] = set()
    unique = {}
    for name, pattern in sorted(found.items()):
        if (pattern.pattern, pattern.flags) not in seen:  # a module-level one found twice
            seen.add((pattern.pattern, pattern.flags))
            unique[name] = pattern
    print(f"{len(unique)} patterns", file=sys.stderr)
    for name, pattern in unique.items():
        worst, text = 0.0, ""
        for s in hostile(pattern.pattern, args.chars):
            start = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, 3)
            try:
                pattern.search(s)
                pattern.findall(s)
                took = time.perf_counter() - start
            except _Slow:
                took = 99.0
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if took > worst:
                worst, text = took, s[:40]
        if worst > args.report:
            print(f"{worst:6.2f} s  {name}  {pattern.pattern[:80]!r}  on {text!r}")


if __name__ == "__main__":
    main()
