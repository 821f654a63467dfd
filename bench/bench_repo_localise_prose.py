"""Candidate repo-cut signal (prose35): what the repo's own prose says about a module.

A commit message often uses words the code does not contain but the project's
prose does: README sections, docs pages, design notes and changelogs name a
module (``context_cut/repo_query.py``, ``click.core``, ``:class:`Session```)
and say in plain words what it is for. Each prose unit (a paragraph, a list
item, a table row) that names 1..``MAX_NAMED`` modules lends its words to
those modules' "prose documents"; the message is matched against them by BM25.

Dumped by ``bench_repo_localise.py --dump`` only with ``MG_BENCH_PROSE=1``:
- ``prose``: BM25 of the message over the prose documents (mentions by file,
  dotted module and top-level symbol, rules 1-3 of ``context_cut/mentions.py``);
- ``prose_f``: the same with file and dotted-module mentions only;
- ``prose_x``: BM25 over each module's indexed text plus its prose (expansion);
- ``prose_n``: modules with a prose document (coverage, for the notes).
"""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from pathlib import Path

from bench_repo_localise_extra import _bm25, _round  # bench/ is on the path

from context_cut.mentions import extract_mentions
from context_cut.repo_index import ModuleIndex
from context_cut.repo_query import query_weights
from profiles.repo_scan.facts import terms

PROSE_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".markdown")
MAX_BYTES = 1_000_000
MAX_NAMED = 4  # a unit naming more modules is a list of them, not prose about one
_ITEM = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\|)")
_FENCE = re.compile(r"^\s*(```|~~~)")

# blob sha -> [(mentions, term counts)] per unit: the split does not depend on the graph
_UNITS: dict[str, list[tuple[list[object], Counter[str]]]] = {}


def units(text: str) -> list[str]:
    """Paragraphs, with list items and table rows as units of their own;
    fenced code blocks stay whole (their words are code, their names mentions)."""
    out: list[str] = []
    cur: list[str] = []
    fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fence = not fence
            cur.append(line)
            continue
        if fence:
            cur.append(line)
            continue
        if not line.strip():
            if cur:
                out.append("\n".join(cur))
            cur = []
        elif _ITEM.match(line) and cur:
            out.append("\n".join(cur))
            cur = [line]
        else:
            cur.append(line)
    if cur:
        out.append("\n".join(cur))
    return out


def _blob_units(sha: str, text: str) -> list[tuple[list[object], Counter[str]]]:
    if sha not in _UNITS:
        _UNITS[sha] = [(list(extract_mentions(u)), Counter(terms(u))) for u in units(text)]
    return _UNITS[sha]


def prose_files(tree: Path) -> list[tuple[str, str]]:
    """(path, blob sha) of the tracked prose files of the checked-out tree."""
    out = subprocess.run(
        ["git", "-C", str(tree), "ls-files", "-s", "-z"], capture_output=True, check=True
    ).stdout.decode("utf-8", "replace")
    found = []
    for rec in out.split("\0"):
        if not rec:
            continue
        meta, path = rec.split("\t", 1)
        if path.lower().endswith(PROSE_SUFFIXES):
            found.append((path, meta.split()[1]))
    return found


def prose_docs(tree: Path, index: ModuleIndex, files_only: bool) -> dict[str, Counter[str]]:
    docs: dict[str, Counter[str]] = {}
    table = index.mentions
    for path, sha in prose_files(tree):
        full = tree / path
        if full.is_symlink() or not full.is_file() or full.stat().st_size > MAX_BYTES:
            continue
        text = full.read_text(encoding="utf-8", errors="replace")
        for mentions, counts in _blob_units(sha, text):
            named: set[str] = set()
            for m in mentions:
                if files_only and m.kind != "file" and "." not in m.value:  # type: ignore[attr-defined]
                    continue
                found = table.resolve(m)  # type: ignore[arg-type]
                if files_only and found and max(found.values()) < 0.99:
                    continue  # a symbol, not a file or module path
                named.update(found)
            if 0 < len(named) <= MAX_NAMED:
                for p in named:
                    docs.setdefault(p, Counter()).update(counts)
    return docs


def prose_components(tree: Path, index: ModuleIndex, message: str) -> dict[str, object]:
    query = query_weights(message)
    docs = prose_docs(tree, index, files_only=False)
    strict = prose_docs(tree, index, files_only=True)
    expanded = {p: Counter(c) + docs.get(p, Counter()) for p, c in index.tf.items()}
    return {
        "prose": _round(_bm25(docs, query)),
        "prose_f": _round(_bm25(strict, query)),
        "prose_x": _round(_bm25(expanded, query)),
        "prose_n": [len(docs), len(strict)],
    }


def _expanded(row: dict[str, object]) -> dict[str, object]:
    """``row`` with the text match over module text + prose (PageRank re-seeded)."""
    from context_cut.repo_index import personalised_pagerank

    out = dict(row)
    text: dict[str, float] = row["prose_x"]  # type: ignore[assignment]
    seeds = dict(sorted(text.items(), key=lambda kv: -kv[1])[:20])
    out["text"] = text
    out["ppr"] = personalised_pagerank(
        sorted(row["len"]),  # type: ignore[call-overload]
        [(a, b) for a, b in row["edges"]],  # type: ignore[attr-defined]
        seeds,
    )
    return out


def main() -> None:
    """Judge the prose signal on dumps made with ``MG_BENCH_PROSE=1`` (k17 rule)."""
    import json
    import sys

    from bench_repo_localise_offline import PRODUCT, _scaled, pooled, rank, splits

    rows = [
        json.loads(line) for d in sys.argv[1:] for line in Path(d).read_text("utf-8").splitlines()
    ]
    parts = splits(rows)
    for repo, halves in parts.items():
        n = [r["prose_n"] for r in halves["whole"]]
        print(f"{repo}: modules with prose, first/last parent {n[0]} / {n[-1]}")
    print("prose candidates, recall@5 change against the product (pooled):")
    pooled(parts, "(product)", lambda r: rank(r, PRODUCT))
    for key in ("prose", "prose_f"):
        for w in (0.1, 0.2, 0.3, 0.5):
            pooled(parts, f"{key} {w:g}", lambda r, w=w, k=key: rank(r, PRODUCT, _scaled(r[k], w)))
    exp = {r["sha"]: _expanded(r) for rows_ in parts.values() for r in rows_["whole"]}
    pooled(parts, "expansion (text + prose)", lambda r: rank(exp[r["sha"]], PRODUCT))


if __name__ == "__main__":
    main()
