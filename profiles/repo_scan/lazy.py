"""Literal dynamic imports: modules a Python file names as text.

A lazy dispatcher names the modules it loads as strings: ``FAST_PATHS = {"voice":
"memgraph.cli.voice_fast"}`` then ``importlib.import_module(FAST_PATHS[cmd])``, a
PEP 562 ``__getattr__`` over ``{"scan_repo": "profiles.repo_scan.scan"}``,
``importlib.import_module("a.b")``, ``__import__("a.b")``. No ``import`` statement
mentions those modules, so without this the import graph (the cut's PageRank,
communities, cycles, test seams) had no edge from a dispatcher to what it loads.

Extraction (``dynamic_facts``: one file's content only, ``FileFacts.lazy_imports``
``[name, line, "call" | "string"]``):
- the literal first argument of ``import_module(...)`` / ``__import__(...)``
  ("call"; ``import_module(".x", __package__)`` or a literal package is made
  absolute from the file's package); every such call is counted in
  ``dynamic_imports``, literal or not;
- every other quoted dotted name (identifiers, 2+ parts: ``"a.b"``) that is not in
  a comment nor in a bare string statement (a docstring: prose about a module is
  not a lazy import of it) ("string").
By patterns over the source, like the other call-site facts (walking every
expression of the AST costs ~5x the parse); names are kept once each, calls once
per call, at most ``MAX_ITEMS`` entries (``as_json`` keeps the same ones).

Resolution (``context.lazy_target``, repo-wide): a name counts only when it is the full
import name of one module of the repo: a key of the context's module index (one
dict lookup per name, no scan over the modules) whose first part sits in a folder
that is not a Python package (``"cli.x"`` for ``memgraph/cli/x.py`` is a suffix
of the name, not a name Python imports; ``"click.core"`` for ``src/click/core.py``
is one), then picked as static imports are (one candidate, or one in the importer's
top folder). Anything else makes no edge: an arbitrary string (``"e.g"``, a style
name ``"repr.str"``, a logger or event name) matches no module of the repo, and a
name of a module outside it (``"os.path"``) has no node to point at.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from profiles.repo_scan.facts import FileFacts

# ``import_module(`` (bare or ``importlib.``) or ``__import__(``, with its literal
# first argument and a ``__package__`` / literal second one when they are there; as
# text, compiled on the first file that calls one (``re``'s cache; ~0.5 ms)
_CALL = (
    r"(?<![\w.])(?:importlib\.)?(?:import_module|__import__)\(\s*"
    r"""(?:(?:name\s*=\s*)?(["'])(\.*)([\w.]*)\1"""
    r"""(?:\s*,\s*(?:package\s*=\s*)?(?:(__package__)|(["'])([\w.]+)\5))?)?"""
)
_QUOTED = re.compile(r"""(["'])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\1""")
# a line's strings as units, or a ``#``: the first ``#`` matched starts the comment
_STRING_OR_HASH = re.compile(r"""'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|#""")
_NEWLINE = re.compile("\n")


class _Lines:
    """Line numbers and comment starts of one text, each line looked at once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in _NEWLINE.finditer(text))]
        self._comment: dict[int, int] = {}  # line -> offset of its comment (or its end)

    def line(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def in_comment(self, offset: int, line: int) -> bool:
        start = self._comment.get(line)
        if start is None:
            begin = self.starts[line - 1]
            end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
            start = end
            for m in _STRING_OR_HASH.finditer(self.text, begin, end):
                if m.group() == "#":
                    start = m.start()
                    break
            self._comment[line] = start
        return offset >= start


def _absolute(name: str, level: int, package: str | None) -> str | None:
    """``import_module``'s own rule: ``.x`` is ``x`` in ``package``, each further dot
    one package up; a relative name without a package raises there, so: None."""
    if not level:
        return name or None
    if not package:
        return None
    base = package.split(".")
    if level - 1 >= len(base):
        return None
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def dynamic_facts(
    text: str, facts: FileFacts, package: str, docs: list[tuple[int, int]], limit: int
) -> None:
    """Fill ``dynamic_imports`` and ``lazy_imports`` of ``facts`` from ``text``.

    ``package``: the file's own package (dotted), for relative ``import_module``;
    ``docs``: line spans of bare string statements (docstrings), sorted.
    """
    lines: _Lines | None = None
    entries: list[list[Any]] = []
    taken: set[int] = set()  # a call's literal arguments are not read again as strings
    if "import_module" in text or "__import__" in text:
        lines = _Lines(text)
        for m in re.finditer(_CALL, text):
            line = lines.line(m.start())
            if lines.in_comment(m.start(), line):
                continue
            facts.dynamic_imports += 1
            taken.update((m.start(1), m.start(5)))
            if m.group(1) is None or len(entries) >= limit:
                continue
            given = package if m.group(4) else m.group(6)  # ``__package__`` or a literal
            name = _absolute(m.group(3), len(m.group(2)), given)
            if name:
                entries.append([name, line, "call"])
    seen = {e[0] for e in entries}
    doc_starts = [d[0] for d in docs]
    for m in _QUOTED.finditer(text):
        if len(entries) >= limit:
            break
        name = m.group(2)
        if name in seen or m.start() in taken:
            continue
        lines = lines or _Lines(text)
        line = lines.line(m.start())
        at = bisect_right(doc_starts, line) - 1
        if at >= 0 and line <= docs[at][1]:
            continue
        if lines.in_comment(m.start(), line):
            continue
        seen.add(name)
        entries.append([name, line, "string"])
    entries.sort(key=lambda e: (e[1], e[0], e[2]))
    facts.lazy_imports = entries
