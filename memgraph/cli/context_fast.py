"""Lean path for ``memgraph context`` (no typer): an argv shim over
``memgraph.cli.ranked.context_command``, the function the typer command calls.

``run(argv)`` handles ``TEXT`` with ``--cut --budget --domain --limit --project
--repo --home --store --embedder --qdrant-path --qdrant-url`` and the flags
``--json --markdown --prompt``; anything else (``--help``, an unknown option, a
non-integer budget, no text or two) returns None and typer explains.

Imports (no embedder configured): what ``recall`` imports (see
``memgraph.cli.recall_fast``) plus the cut's modules (``context_cut.cuts``,
``select``, ``packet``, ``budget``, ``render``, ``ceiling``) and, for a role,
persona or coordinator cut without ``--project``, ``profiles.voice.nodes``
(the project of the cwd); never typer/click/rich, ``memgraph.settings``,
``context_cut.vectors``, Qdrant or numpy (tests/memgraph/cli/test_context_fast.py).
"""

from __future__ import annotations

import sys

from memgraph.cli.lean_args import Spec, parse

SPEC = Spec(
    valued={
        "--cut": "cut",
        "--budget": "budget",
        "--domain": "domain",
        "--limit": "limit",
        "--project": "project",
        "--repo": "repo",
        "--home": "home",
        "--store": "store",
        "--embedder": "embedder",
        "--qdrant-path": "qdrant_path",
        "--qdrant-url": "qdrant_url",
    },
    flags={"--json": "as_json", "--markdown": "markdown", "--prompt": "prompt"},
    ints=("budget", "limit"),
    paths=("repo", "home", "qdrant_path"),
)


def run(argv: list[str]) -> int | None:
    parsed = parse(argv, SPEC)
    if parsed is None:
        return None
    from memgraph.cli.ranked import ContextArgs, context_command
    from memgraph.errors import MemgraphError, error_line

    try:
        context_command(ContextArgs(**parsed))  # type: ignore[arg-type]
    except MemgraphError as exc:
        sys.stdout.flush()
        sys.stderr.write(error_line(exc) + "\n")
        return exc.exit_code
    return 0
