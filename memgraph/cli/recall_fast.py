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


def run(argv: list[str]) -> int | None:
    parsed = parse(argv, SPEC)
    if parsed is None:
        return None
    from memgraph.cli.ranked import RecallArgs, recall_command
    from memgraph.errors import MemgraphError, error_line

    try:
        recall_command(RecallArgs(**parsed))  # type: ignore[arg-type]
    except MemgraphError as exc:
        sys.stdout.flush()
        sys.stderr.write(error_line(exc) + "\n")
        return exc.exit_code
    return 0
