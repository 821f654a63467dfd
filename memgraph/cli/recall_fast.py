"""Lean path for ``memgraph recall`` (no typer): an argv shim over
``memgraph.cli.ranked.recall_command``, the function the typer command calls.

``run(argv)`` handles ``TEXT`` with ``--limit/-n --project --session --json
--home --store --embedder --qdrant-path --qdrant-url`` (``--opt value`` or
``--opt=value``); anything else (``--help``, an unknown flag, a non-integer
limit, two texts) returns None and typer takes over and explains.
"""

from __future__ import annotations

import sys
from pathlib import Path

_VALUED = {
    "--limit": "limit",
    "-n": "limit",
    "--project": "project",
    "--session": "session",
    "--home": "home",
    "--store": "store",
    "--embedder": "embedder",
    "--qdrant-path": "qdrant_path",
    "--qdrant-url": "qdrant_url",
}
_PATHS = ("home", "store", "qdrant_path")


def _parse(argv: list[str]) -> dict[str, object] | None:
    found: dict[str, object] = {}
    texts: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--json":
            found["as_json"] = True
        elif arg == "--":
            texts += argv[i + 1 :]
            break
        elif arg.startswith("-") and arg != "-":
            name, eq, value = arg.partition("=")
            key = _VALUED.get(name)
            if key is None or (eq and name == "-n"):
                return None
            if not eq:
                if i + 1 >= len(argv):
                    return None
                i += 1
                value = argv[i]
            found[key] = value
        else:
            texts.append(arg)
        i += 1
    if len(texts) != 1:
        return None
    found["text"] = texts[0]
    if "limit" in found:
        try:
            found["limit"] = int(str(found["limit"]))
        except ValueError:
            return None
    for key in _PATHS:
        if key in found:
            found[key] = Path(str(found[key]))
    return found


def run(argv: list[str]) -> int | None:
    parsed = _parse(argv)
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
