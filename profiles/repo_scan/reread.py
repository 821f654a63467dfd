"""Unchanged files read again because the scanner now reads them differently.

A scan parses only files whose content hash changed, so facts extracted by an older
scanner would stay as they were until their file is edited: a store scanned before
lazy import edges existed would never get them. Two cases read unchanged files again:

- a scanner upgrade: the repo node carries the extractors' version (``EXTRACTOR``);
  when it differs, every file is read once more;
- a grammar installed since: files left unparsed in a language tree-sitter reads
  are tried again once it can (only a repo that has such files pays the check).

A file whose facts come out the same is left alone (its module writes nothing); the
others are revised like changed files (history kept, covering summaries stale).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from profiles.repo_scan.files import TREE_SITTER_LANGS, LedgerLine, SourceFile

if TYPE_CHECKING:
    from memgraph.documents.views import NodeView
    from profiles.repo_scan.facts import FileFacts

# Bump whenever an extractor (python.py, lazy.py, other.py, facts.py) reads the same
# bytes differently. 2: literal dynamic imports (lazy.py). A repo node without a stamp
# was written by version 1.
EXTRACTOR = 2


def paths_to_reread(
    state: dict[str, Any], sources: dict[str, SourceFile], done: set[str]
) -> list[str]:
    """The unchanged files to read again (``done``: already read this scan)."""
    if not state:  # a first scan: every file is new
        return []
    if state.get("extractor", 1) != EXTRACTOR:
        return [p for p in sources if p not in done]
    waiting = [
        p
        for p in state.get("unparsed") or []
        if p in sources and p not in done and sources[p].lang in TREE_SITTER_LANGS
    ]
    if not waiting:
        return []
    from profiles.repo_scan.other import tree_sitter_available

    return waiting if tree_sitter_available() else []


def read_again(
    paths: list[str],
    sources: dict[str, SourceFile],
    modules: dict[str, NodeView],
    head: str | None,
) -> dict[str, tuple[FileFacts, LedgerLine | None]]:
    """The files of ``paths`` whose fresh facts differ from their module's."""
    from profiles.repo_scan.scan import extract

    out: dict[str, tuple[FileFacts, LedgerLine | None]] = {}
    for p in paths:
        got = extract(sources[p], head)
        node = modules.get(p)
        if node is None or not same_facts(node.attributes.get("facts"), got[0]):
            out[p] = got
    return out


def same_facts(stored: Any, fresh: FileFacts) -> bool:
    """Stored facts equal to a fresh reading, but for the commit they were read at
    (an unchanged file keeps its anchor's commit)."""
    if not isinstance(stored, dict):
        return False
    a = {k: v for k, v in stored.items() if k != "sha"}
    b = {k: v for k, v in fresh.as_json().items() if k != "sha"}
    # through JSON: a stored list and a fresh tuple are the same fact
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
