"""context_cut's read-path index in the canonical store (versions 40-49).

``node_fts_vocab`` is an fts5vocab view over the node FTS index: document
frequency per term, maintained by SQLite itself (no triggers, no copies).
BM25 ranking uses it to drop query terms so common that their IDF is ~0.
"""

from __future__ import annotations

from memgraph.store.schema import Migration

MIGRATIONS: list[Migration] = [
    Migration(
        40,
        "context_cut: term document frequencies over node_fts",
        "CREATE VIRTUAL TABLE node_fts_vocab USING fts5vocab(node_fts, row);",
    ),
]
