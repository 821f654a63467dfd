"""What one file says, as plain JSON-able data (no graph types).

Extractors (``python.py``, ``other.py``) fill a ``FileFacts`` from one file's
bytes and nothing else, so a file's facts depend on its content only; the
module node stores them (``attributes["facts"]``) and an unchanged file is
never parsed again. Lists hold small tuples ``[value, line, ...]`` so they
round-trip through JSON unchanged.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

MAX_ITEMS = 200  # per list: a pathological file cannot blow up its node
MAX_TERMS = 800  # a module's term profile keeps its most frequent terms
_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])|\d+")
_STOP_WORDS = (
    "a an and are as at be by for from in into is it its of on or the this to with when"
    " not no do does add use make fix new so that than then there these only via was"
    " self none true false return def import if else elif pass class str int"
)
STOP = frozenset(_STOP_WORDS.split())
# as text, compiled on the first file that needs them (``re``'s cache): most files
# hold neither a TODO nor a CREATE, and the two cost ~0.8 ms to compile per process
_TODO = r"(?:#|//|/\*|--|\*)\s*(TODO|FIXME|XXX)\b[:(\s]*(.*)"
_CREATE_TABLE = (
    r"CREATE\s+(?:VIRTUAL\s+|TEMP\s+|TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
    r"[\"'`\[]?([A-Za-z_][\w.]*)"
)


@dataclass
class FileFacts:
    path: str
    lang: str
    digest: str
    sha: str | None  # the commit the content was read at (None outside git)
    lines: int = 0
    parsed: bool = True
    error: str = ""  # why it was not parsed (syntax error, not UTF-8, no grammar)
    doc: str = ""  # first paragraph of the module docstring / leading comment
    # [dotted or path, imported name or "", line]; resolution happens later
    imports: list[list[Any]] = field(default_factory=list)
    symbols: list[list[Any]] = field(default_factory=list)  # [name, kind, line, end]
    classes: list[list[Any]] = field(default_factory=list)  # [name, line, end, [bases], [decos]]
    env: list[list[Any]] = field(default_factory=list)  # [VAR, line]
    commands: list[list[Any]] = field(default_factory=list)  # [name, line]
    options: list[list[Any]] = field(default_factory=list)  # ["--flag", line]
    tools: list[list[Any]] = field(default_factory=list)  # [MCP tool name, line]
    io: list[list[Any]] = field(default_factory=list)  # [input|output|store, channel, line]
    todos: list[list[Any]] = field(default_factory=list)  # [line, text]
    tables: list[list[Any]] = field(default_factory=list)  # [name, line]
    binaries: list[list[Any]] = field(default_factory=list)  # [name, target, line]
    package: str = ""  # a manifest's package name
    # term -> count over the whole text (identifiers split at _/camelCase), top MAX_TERMS
    terms: dict[str, int] = field(default_factory=dict)
    dynamic_imports: int = 0  # import_module/__import__ calls, literal or not
    # [dotted, line, "call" | "string"]: module names spelled as text (lazy.py)
    lazy_imports: list[list[Any]] = field(default_factory=list)
    main: bool = False  # runs as a program (``__main__`` guard, Go ``package main``)

    def as_json(self) -> dict[str, Any]:
        """Key-sorted (node hashing then needs no re-sort), lists capped; the lists
        are shared, not copied: facts are not changed once extracted."""
        data: dict[str, Any] = {}
        for key in _FIELD_ORDER:
            value = getattr(self, key)
            if isinstance(value, list) and len(value) > MAX_ITEMS:
                value = value[:MAX_ITEMS]
            data[key] = value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileFacts:
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in known})


_FIELD_ORDER = sorted(f.name for f in fields(FileFacts))


def _norm(word: str) -> str:
    w = word.lower()
    return w[:-1] if len(w) > 4 and w.endswith("s") else w


def terms(text: str) -> list[str]:
    """Words for text matching: identifiers split at ``_``/camelCase/digits,
    lower-cased, stop words dropped, a plural ``s`` stripped."""
    out = []
    for w in _WORD.findall(text):
        if len(w) > 1:
            n = _norm(w)
            if n not in STOP:
                out.append(n)
    return out


def term_profile(text: str) -> dict[str, int]:
    """The MAX_TERMS most frequent terms of ``text`` with their counts."""
    raw = Counter(_WORD.findall(text))  # counting raw words first: few distinct ones
    counts: Counter[str] = Counter()
    for w, n in raw.items():
        if len(w) > 1:
            t = _norm(w)
            if t not in STOP:
                counts[t] += n
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_TERMS]
    return dict(sorted(top))


def first_paragraph(text: str, limit: int = 300) -> str:
    para = text.strip().split("\n\n", 1)[0]
    para = " ".join(para.split())
    return para if len(para) <= limit else para[: limit - 1] + "…"


def scan_text(facts: FileFacts, text: str) -> None:
    """Language-independent facts: line count, TODO/FIXME/XXX, SQL tables."""
    facts.lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    facts.terms = term_profile(text)
    if "TODO" in text or "FIXME" in text or "XXX" in text:
        todo = re.compile(_TODO)
        for no, line in enumerate(text.splitlines(), 1):
            m = todo.search(line)
            if m:
                facts.todos.append([no, f"{m.group(1)}: {m.group(2).strip()[:120]}"])
                if len(facts.todos) >= 20:
                    break
    if facts.lang == "sql" or "CREATE" in text.upper():
        for m in re.finditer(_CREATE_TABLE, text, re.IGNORECASE):
            facts.tables.append([m.group(1), text.count("\n", 0, m.start()) + 1])
