"""Lean path for ``memgraph recall`` (no typer): an argv shim over
``memgraph.cli.ranked.recall_command``, the function the typer command calls.

``run(argv)`` handles ``TEXT`` with ``--limit/-n --project --session --json
--home --store --embedder --qdrant-path --qdrant-url`` (``--opt value`` or
``--opt=value``); anything else (``--help``, an unknown flag, a non-integer
limit, two texts) returns None and typer takes over and explains.

Imports (lexical-only, no embedder configured): ``memgraph.config``,
``memgraph.cli.common``/``ranked``, the store (``memgraph.store.sqlite``),
``context_cut.api``/``turns`` and, through the documents the store returns,
pydantic; never typer/click/rich, the pydantic ``Settings`` model
(``memgraph.settings``), ``context_cut.vectors``, Qdrant or numpy
(tests/memgraph/cli/test_recall_fast.py guards the set).

With an embedder configured and the embedded Edge engine, the voice shard the
query will read starts loading on a background thread before anything else is
imported (``preload``): Edge releases the GIL while it reads a shard, so at 100k
vectors its load (the largest single cost of a recall) overlaps the imports and
the store's lexical ranking instead of following them. The backend that opens
the shard takes it from there; nothing changes in what is ranked.
"""

from __future__ import annotations

import sys

from memgraph.cli.lean_args import Spec, parse

SPEC = Spec(
    valued={
        "--limit": "limit",
        "-n": "limit",
        "--project": "project",
        "--session": "session",
        "--home": "home",
        "--store": "store",
        "--embedder": "embedder",
        "--qdrant-path": "qdrant_path",
        "--qdrant-url": "qdrant_url",
    },
    flags={"--json": "as_json"},
    ints=("limit",),
    paths=("home", "store", "qdrant_path"),
    short=("-n",),
)


def _voice_collection(embedder: str) -> str | None:
    """The voice collection ``embedder`` queries, known without loading it (None
    when only the loaded model can tell, e.g. an Ollama model's width)."""
    from context_cut.vector_backends import collection_name

    if embedder == "hash":
        from context_cut.embedders import HashEmbedder

        hashed = HashEmbedder()
        return collection_name(hashed.name, hashed.dimension, "voice")
    if embedder in ("minilm", "minilm-torch"):
        from context_cut import minilm_numpy

        return collection_name(minilm_numpy.NAME, minilm_numpy.DIMENSION, "voice")
    return None


def preload(parsed: dict[str, object]) -> list[str]:
    """Start loading the voice shard ``recall`` will query (see the module doc);
    the shards started. Any doubt (a server URL, another engine, a config value
    it cannot read) starts nothing: the command then loads as it always did."""
    from pathlib import Path

    from memgraph.config import default_home, resolve

    fields = ("home", "embedder", "qdrant_path", "qdrant_url", "qdrant_engine")
    try:
        raw = resolve({f: parsed.get(f) for f in fields}, None, fields)
    except Exception:  # a bad config file: the command itself reports it
        return []
    engine, embedder = raw.get("qdrant_engine", "edge"), raw.get("embedder")
    if raw.get("qdrant_url") or engine != "edge" or not isinstance(embedder, str):
        return []
    collection = _voice_collection(embedder)
    home, where = raw.get("home"), raw.get("qdrant_path")
    if collection is None or not isinstance(home, str | Path | None):
        return []
    if not isinstance(where, str | Path) or not str(where):
        where = (Path(home) if home else default_home()) / "qdrant"
    try:
        import qdrant_edge  # noqa: F401
    except ImportError:
        return []
    from context_cut.vector_backends import preload_edge

    return preload_edge(Path(where), [collection])


def run(argv: list[str]) -> int | None:
    parsed = parse(argv, SPEC)
    if parsed is None:
        return None
    preloaded = preload(parsed)
    from memgraph.cli.ranked import RecallArgs, recall_command
    from memgraph.errors import MemgraphError, error_line

    try:
        recall_command(RecallArgs(**parsed))  # type: ignore[arg-type]
    except MemgraphError as exc:
        sys.stdout.flush()
        sys.stderr.write(error_line(exc) + "\n")
        return exc.exit_code
    finally:
        if preloaded:
            from context_cut.vector_backends import release_preloads

            release_preloads()
    return 0
