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
from typing import TYPE_CHECKING

from memgraph.cli.lean_args import Spec, parse_strings

if TYPE_CHECKING:
    from context_cut.embedders import Embedder
    from context_cut.repo_vectors import SubjectSync
    from memgraph.store import Store

_SCAN = Spec(
    valued={"--home": "home", "--store": "store", "--name": "name"},
    flags={"--no-commits": "no-commits", "--quiet": "quiet", "-q": "quiet"},
    paths=("text", "home"),  # not --store: a postgresql:// URL is no Path
    text="optional",  # PATH
)


def _parse(argv: list[str]) -> dict[str, str] | None:
    if not argv or argv[0] != "scan":
        return None
    return parse_strings(argv[1:], _SCAN)  # None for --help, --json, typos: typer's job


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
            path=Path(flags.get("text", ".")),
            name=flags.get("name"),
            link_commits="no-commits" not in flags,
        )
        store = open_store(store_file)
        # plain reads: a rescan with nothing to write never loads pydantic; the
        # scan switches the store back to documents before it writes
        use_plain(store)
        try:
            result = scan_repo(store, request)
            vectors = subject_vectors(store, result.repo, flags.get("home"))
        finally:
            store.close()
    except MemgraphError as exc:
        print(error_line(exc), file=sys.stderr)
        return exc.exit_code
    if "quiet" not in flags:
        print(result.line())
        if vectors is not None:
            print(vectors.line())
    for entry in result.ledger:
        print(f"skipped  {entry.line()}", file=sys.stderr)
    if "quiet" not in flags:
        for line in result.stale_lines():
            print(line)
    return 0


def subject_vectors(store: Store, repo: str, home: str | Path | None) -> SubjectSync | None:
    """With MiniLM configured, store the repo's history-window subject vectors for
    the repo cut (``context_cut/repo_vectors.py``: a cut then embeds only its task);
    None otherwise, and nothing of the vector code is imported when no embedder is
    configured. Both scan commands call it. A missing extra or an unwritable
    directory is one stderr line: the scan itself stands, the cut embeds instead."""
    from memgraph.config import vectors_wanted

    if not vectors_wanted():
        return None
    from context_cut.repo_vectors import prepared_vectors_dir, sync_scanned, vectors_dir_for
    from memgraph.cli.nerve import nerve_config
    from memgraph.errors import BackendUnavailable, MissingExtra

    cfg = nerve_config(Path(home) if home is not None else None, None, None, None)

    def make() -> Embedder:
        from context_cut.embedders import make_embedder

        embedder = make_embedder(
            cfg.embedder, model=cfg.embed_model, host=cfg.ollama_host, timeout=cfg.ollama_timeout
        )
        if embedder is None:  # not reached: sync_scanned asks only for a named model
            raise BackendUnavailable(f"no embedder for {cfg.embedder!r}")
        return embedder

    where = vectors_dir_for(cfg.home, store)  # this store's (memgraph.home_dirs)
    try:
        return sync_scanned(
            store, repo, where, cfg.embedder, make, lambda: prepared_vectors_dir(cfg.home, store)
        )
    except (MissingExtra, BackendUnavailable) as exc:
        why = f"{exc}"
    except OSError as exc:  # a read-only home: the cut embeds the subjects itself
        why = f"cannot write {exc.filename or where}: {exc.strerror or exc}"
    line = f"subject vectors not stored (the repo cut embeds them per process): {why}"
    print(" ".join(line.split()), file=sys.stderr)
    return None
