"""Lean path for ``memgraph repo scan`` (no typer): the post-commit hook runs it
after every commit, so its start-up is paid each time.

``run(argv)`` handles ``scan [PATH] [--home H] [--store S] [--name N] [--no-commits]``
and returns the exit code; anything else (``status``, ``--json``, ``--refresh``,
``--help``, unknown flags) returns None and the typer app takes over. Output and
errors match the typer command exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

_VALUED = ("--home", "--store", "--name")
_SWITCHES = ("--no-commits", "--quiet", "-q")


def _parse(argv: list[str]) -> dict[str, str] | None:
    if not argv or argv[0] != "scan":
        return None
    found: dict[str, str] = {}
    rest = argv[1:]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg in _SWITCHES:
            found["quiet" if arg == "-q" else arg[2:]] = "1"
        elif not arg.startswith("-"):
            if "path" in found:
                return None
            found["path"] = arg
        else:
            name, eq, value = arg.partition("=")
            if name not in _VALUED:
                return None  # --help, --json, typos: typer explains better
            if not eq:
                if i + 1 >= len(rest):
                    return None
                value = rest[i + 1]
                i += 1
            found[name[2:]] = value
        i += 1
    return found


def run(argv: list[str]) -> int | None:
    flags = _parse(argv)
    if flags is None:
        return None
    from memgraph.errors import MemgraphError, error_line

    try:
        from memgraph.config import paths
        from memgraph.store import open_store
        from memgraph.store.decode import use_plain
        from profiles.repo_scan.scan import ScanRequest, scan_repo

        store_file, _vault = paths(home=flags.get("home"), store=flags.get("store"))
        request = ScanRequest(
            path=Path(flags.get("path", ".")),
            name=flags.get("name"),
            link_commits="no-commits" not in flags,
        )
        store = open_store(store_file)
        # plain reads: a rescan with nothing to write never loads pydantic; the
        # scan switches the store back to documents before it writes
        use_plain(store)
        try:
            result = scan_repo(store, request)
        finally:
            store.close()
    except MemgraphError as exc:
        print(error_line(exc), file=sys.stderr)
        return exc.exit_code
    if "quiet" not in flags:
        print(result.line())
    for entry in result.ledger:
        print(f"skipped  {entry.line()}", file=sys.stderr)
    if "quiet" not in flags:
        for sid in result.stale_summaries:
            print(f"stale    {sid}")
    return 0
