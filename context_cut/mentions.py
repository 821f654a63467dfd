"""Code mentions in a task's text, and the modules they name.

A commit message or task often names its target outright: `` `_compat.py` ``,
`` `click.core` ``, ``confirm()``, ``@version_option``, ``repo_cut``. BM25 over
words undervalues these (one rare term among many), so the repo cut adds a
boost for modules a mention resolves to (``rank_modules``, ``MENTION_WEIGHT``).

Mention forms, from the raw text (``extract_mentions``):
- backticked spans: every identifier-ish token inside is a mention, even a plain
  word (`` `formatting` ``): the backticks say it is code;
- ``name()`` and ``@name`` (calls and decorators);
- file names and paths with a known extension (``core.py``, ``src/x/y.rs``);
- dotted names whose parts are all 2+ characters (``click.core``; not ``e.g.``);
- snake_case (an inner ``_``) and camelCase (a lower-to-upper hump) identifiers.
Plain words outside backticks are never mentions.

Resolution (``MentionTable.resolve``), first rule that finds something:
1. a file name or path suffix (``/`` boundaries) -> 1.0 split among the matches;
2. a dotted module path (``pkg/__init__.py`` names the package), longest prefix
   first, a one-part name being a module stem -> 1.0 split among the matches;
3. a top-level symbol DEFINED in at most ``MAX_DEFINERS`` modules -> 0.6 split
   (a dotted name tries its parts left to right: ``Context.invoke``). A name
   defined in more modules says little about which one is meant: ignored.

4. Interface names, looked up word by word (``MentionTable.names``): CLI
   commands and command groups, ``--options``, MCP tool names and environment
   variables the repo's non-test modules declare (the scanner's facts). A
   commit message names the interface it changes (``session list/show``,
   ``--quiet on reindex, import-vault``, ``voice_stats``, ``MEMGRAPH_REDACT``)
   far more often than the function behind it. Any word of the text counts,
   plain ones too (a command is usually a plain word), so the score is lower
   (``NAME_SCORE``), split among the modules declaring it as that kind (a CLI
   command ``note`` and an MCP tool ``note`` are two interfaces: each declarer
   gets the whole score), and a name declared as one kind in more than
   ``MAX_DEFINERS`` modules (``--json``) says nothing. A module takes the best
   of rules 1-3 and 4.

Extraction reads at most ``MAX_TEXT`` characters and keeps ``MAX_MENTIONS``
distinct mentions; every regex is linear (no nested or overlapping repeats).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

MAX_TEXT = 50_000  # characters of the task text read for mentions
MAX_MENTIONS = 100  # distinct mentions kept (first ones win)
MAX_DEFINERS = 3  # a symbol defined in more modules than this is not a mention of any
FILE_SCORE = 1.0
MODULE_SCORE = 1.0
SYMBOL_SCORE = 0.6
NAME_SCORE = 0.6  # CLI command/option, MCP tool, env var (bench/bench_repo_localise.py)

EXTENSIONS = frozenset(
    (
        "py",
        "pyi",
        "rs",
        "ts",
        "tsx",
        "js",
        "jsx",
        "mjs",
        "cjs",
        "go",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "java",
        "kt",
        "rb",
        "php",
        "cs",
        "swift",
        "scala",
        "sh",
        "sql",
        "toml",
        "json",
        "yaml",
        "yml",
        "cfg",
        "ini",
        "md",
        "rst",
        "txt",
    )
)
# Backticked span (bounded, one line) or a token: identifier parts joined by "." or
# "/", an optional leading "@" and trailing "()". Separators are not word characters,
# so each repeat has one way to match: linear time.
_TOKEN = re.compile(
    r"`(?P<span>[^`\n]{1,200})`"
    r"|(?P<at>@?)(?P<tok>[A-Za-z_][\w-]*(?:[./][A-Za-z_][\w-]*)*)(?P<call>\(\))?"
)
_PACKAGE_FILE = {".py": "__init__", ".pyi": "__init__", ".rs": "mod"}
_PACKAGE_FILE |= dict.fromkeys((".js", ".ts", ".tsx", ".jsx", ".mjs"), "index")
_HUMP = re.compile(r"[a-z][A-Z]")
# Words for the interface-name lookup: "--option", "import-vault", "voice_stats".
# One character class per repeat after a fixed prefix: linear.
_NAME_WORD = re.compile(r"(?:--)?[A-Za-z_][\w-]*")
_IDENT = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Mention:
    kind: str  # span | call | decorator | file | dotted | identifier
    value: str  # a name, dotted name or path as written ("()"/"@" stripped)


def _classify(tok: str, at: str, call: str, in_span: bool) -> Mention | None:
    tok = tok.strip("-")
    if len(tok) < 2 or tok.endswith("/"):
        return None
    last = tok.rsplit("/", 1)[-1]
    ext = last.rsplit(".", 1)[-1].lower() if "." in last else ""
    if ext in EXTENSIONS and "." in last and len(last) > len(ext) + 1:
        return Mention("file", tok)
    if "-" in tok:  # hyphenated words ("non-test") are prose; paths were caught above
        return None
    if "/" in tok:
        return Mention("file", tok) if in_span else None
    parts = tok.split(".")
    if at:
        return Mention("decorator", tok)
    if call:
        return Mention("call", tok)
    if len(parts) > 1:
        if all(len(p) >= 2 for p in parts) or in_span:
            return Mention("dotted", tok)
        return None
    if "_" in tok.strip("_") or _HUMP.search(tok):
        return Mention("identifier", tok)
    if in_span:
        return Mention("span", tok)
    return None


def extract_mentions(text: str) -> list[Mention]:
    """The code mentions of ``text`` in order of first appearance, deduplicated."""
    found: dict[Mention, None] = {}
    for m in _TOKEN.finditer(text[:MAX_TEXT]):
        span = m.group("span")
        tokens = [m] if span is None else list(_TOKEN.finditer(span))
        for t in tokens:
            if t.group("tok"):
                got = _classify(t["tok"], t["at"], t["call"] or "", span is not None)
                if got is not None:
                    found.setdefault(got)
                    if len(found) >= MAX_MENTIONS:
                        return list(found)
    return list(found)


def _dotted_name(path: str) -> list[str]:
    """``src/click/core.py`` -> [src, click, core]; a package's ``__init__`` (or
    Rust ``mod.rs`` / JS ``index.*``) names its folder."""
    p = PurePosixPath(path)
    parts = [*p.parent.parts, p.stem] if p.parent.as_posix() != "." else [p.stem]
    if len(parts) > 1 and parts[-1] == _PACKAGE_FILE.get(p.suffix):
        parts.pop()
    return [x for x in parts if x]


@dataclass
class MentionTable:
    """Path suffixes, dotted module suffixes and symbol definers of one repo."""

    suffixes: dict[str, list[str]] = field(default_factory=dict)  # "a/b.py" -> paths
    dotted: dict[str, list[str]] = field(default_factory=dict)  # "pkg.mod" -> paths
    defined: dict[str, list[str]] = field(default_factory=dict)  # symbol -> paths
    # interface name -> its declarers, one list per kind (command, option, tool, env)
    names: dict[str, list[list[str]]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        symbols: Mapping[str, Iterable[str]],
        interface: dict[str, Iterable[tuple[str, str]]] | None = None,
    ) -> MentionTable:
        """``symbols``: path -> the top-level names that file defines; ``interface``:
        path -> the (kind, name) pairs it declares (command, option, tool, env)."""
        suffixes: dict[str, set[str]] = defaultdict(set)
        dotted: dict[str, set[str]] = defaultdict(set)
        defined: dict[str, set[str]] = defaultdict(set)
        for path, names in symbols.items():
            parts = path.split("/")
            for i in range(len(parts)):
                suffixes["/".join(parts[i:])].add(path)
            mod = _dotted_name(path)
            for i in range(len(mod)):
                dotted[".".join(mod[i:])].add(path)
            for name in names:
                defined[name].add(path)
        declared: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for path, pairs in (interface or {}).items():
            for kind, name in pairs:
                declared[name][kind].add(path)
        names = {
            name: [sorted(v) for _k, v in sorted(kinds.items()) if len(v) <= MAX_DEFINERS]
            for name, kinds in declared.items()
        }
        return cls(
            {k: sorted(v) for k, v in suffixes.items()},
            {k: sorted(v) for k, v in dotted.items()},
            {k: sorted(v) for k, v in defined.items() if len(v) <= MAX_DEFINERS},
            {k: v for k, v in names.items() if v},
        )

    def resolve(self, mention: Mention) -> dict[str, float]:
        """Module path -> score for one mention (empty when it names nothing)."""
        value = mention.value
        if mention.kind == "file":
            return _split(self.suffixes.get(value.lstrip("./")), FILE_SCORE)
        parts = value.split(".")
        if not all(_IDENT.fullmatch(p) for p in parts):
            return {}
        for n in range(len(parts), 0, -1):
            found = self.dotted.get(".".join(parts[:n]))
            if found:
                return _split(found, MODULE_SCORE)
        for part in parts:
            found = self.defined.get(part)
            if found:
                return _split(found, SYMBOL_SCORE)
        return {}

    def named(self, text: str) -> dict[str, float]:
        """Module path -> score from the interface names the words of ``text``
        say (rule 4; every distinct word is one dict lookup)."""
        best: dict[str, float] = {}
        if not self.names:
            return best
        for word in set(_NAME_WORD.findall(text[:MAX_TEXT])):
            for found in self.names.get(word.rstrip("-"), ()):
                for path, score in _split(found, NAME_SCORE).items():
                    if score > best.get(path, 0.0):
                        best[path] = score
        return best

    def scores(self, text: str) -> dict[str, float]:
        """Module path -> the best score any mention in ``text`` gives it."""
        best = self.named(text)
        for mention in extract_mentions(text):
            for path, score in self.resolve(mention).items():
                if score > best.get(path, 0.0):
                    best[path] = score
        return best


def _split(paths: list[str] | None, score: float) -> dict[str, float]:
    if not paths:
        return {}
    return {p: score / len(paths) for p in paths}
