"""``memgraph repo scan|status|hook install``: thin layer over ``profiles.repo_scan``.

``scan`` prints one summary line, then one line per skipped or unparsed file
(the ledger) on stderr; ``--json`` prints the whole result as one JSON line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from memgraph.store.protocol import Store

repo_app = typer.Typer(
    help="Scan a repository into the graph (architecture, dataflow, summaries) and keep it fresh.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
hook_app = typer.Typer(help="Git hooks that keep the repo graph fresh.", no_args_is_help=True)
repo_app.add_typer(hook_app, name="hook")

HomeOpt = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME).")
StoreOpt = typer.Option(None, "--store", help="Store file or postgresql:// URL (overrides --home).")
NameOpt = typer.Option(None, "--name", help="Repo key (default: the folder name).")


@repo_app.command("scan")
def scan(
    path: Path = typer.Argument(Path("."), help="Repository folder (default: here)."),
    name: str | None = NameOpt,
    refresh: bool = typer.Option(
        False, "--refresh", help="Rewrite every summary (stale ones become fresh)."
    ),
    no_summaries: bool = typer.Option(False, "--no-summaries", help="Write no summaries."),
    no_commits: bool = typer.Option(
        False, "--no-commits", help="Do not link commit nodes to modules (touches)."
    ),
    max_bytes: int = typer.Option(1_000_000, "--max-bytes", help="Larger files are skipped."),
    as_json: bool = typer.Option(False, "--json", help="The result as one JSON line."),
    quiet: bool = typer.Option(
        False, "--quiet", "-q", help="No summary line; skipped files still print (stderr)."
    ),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,  # str: Path("postgresql://h/db") drops a slash
) -> None:
    """Scan PATH: only files whose content hash changed are parsed again."""
    from memgraph.cli.common import print_json_line, store_from
    from memgraph.cli.repo_fast import subject_vectors
    from memgraph.errors import UsageError
    from memgraph.store.decode import use_plain
    from profiles.repo_scan.scan import ScanRequest, scan_repo

    if max_bytes <= 0:
        raise UsageError("--max-bytes must be positive")
    request = ScanRequest(
        path=path,
        name=name,
        refresh=refresh,
        summaries=not no_summaries,
        link_commits=not no_commits,
        max_bytes=max_bytes,
    )
    s = store_from(home, store)
    use_plain(s)  # documents again only if the scan writes (profiles/repo_scan/scan.py)
    try:
        result = scan_repo(s, request)
        vectors = subject_vectors(s, result.repo, home)  # with MiniLM configured only
    finally:
        s.close()
    if as_json:
        out = result.as_json()
        if vectors is not None:
            out["subject_vectors"] = vectors.as_json()
        print_json_line(out)
        return
    if not quiet:
        print(result.line())
        if vectors is not None:
            print(vectors.line())
    for entry in result.ledger:
        print(f"skipped  {entry.line()}", file=sys.stderr)
    if not quiet:
        for line in result.stale_lines():
            print(line)


@repo_app.command("status")
def status(
    path: Path = typer.Argument(Path("."), help="Repository folder (default: here)."),
    name: str | None = NameOpt,
    as_json: bool = typer.Option(False, "--json", help="The status as one JSON line."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,  # str: Path("postgresql://h/db") drops a slash
) -> None:
    """Stale summaries and drift (files added/changed/deleted) since the last scan."""
    from memgraph.cli.common import print_json_line, store_from
    from profiles.repo_scan.status import repo_status

    s = store_from(home, store)
    try:
        result = repo_status(s, path, name)
        vectors = _vector_status(s, result.repo, home)  # with MiniLM configured only
    finally:
        s.close()
    if as_json:
        out = result.as_json()
        if vectors is not None:
            out["subject_vectors"] = vectors
        print_json_line(out)
    else:
        print("\n".join(result.lines() + ([vectors] if vectors else [])))


def _vector_status(store: Store, repo: str, home: Path | None) -> str | None:
    """The subject-vector line (``repo_vectors.vector_status``) when an embedder
    is configured; nothing of the vector code loads otherwise."""
    from memgraph.config import vectors_wanted

    if not vectors_wanted():
        return None
    from context_cut.repo_vectors import vector_status, vectors_dir_for
    from memgraph.cli.nerve import nerve_config

    cfg = nerve_config(home, None, None, None)
    return vector_status(store, repo, vectors_dir_for(cfg.home, store), cfg.embedder)


@hook_app.command("install")
def hook_install(
    path: Path = typer.Argument(Path("."), help="Repository folder (default: here)."),
    force: bool = typer.Option(False, "--force", help="Replace a foreign non-sh hook."),
    home: Path | None = HomeOpt,
    store: str | None = StoreOpt,
) -> None:
    """Add a git post-commit hook that rescans the repo in the background (into this
    store: --store/--home, env or config, as resolved now)."""
    from profiles.repo_scan.status import hook_store_args, install_hook

    words = hook_store_args(home, store)
    hook = install_hook(path, force=force, store_args=words)
    into = words[words.index("--store") + 1] if "--store" in words else "the committer's store"
    print(f"post-commit hook: {hook} (rescans into {into})")
    if not _scanned_there(path, home, store):
        print(
            f"note: {path} is not scanned in that store yet: the first commit would run a "
            f"full scan in the background, its output unseen; run `memgraph repo scan {path}` "
            "now",
            file=sys.stderr,
        )


def _scanned_there(path: Path, home: Path | None, store: str | None) -> bool:
    """Whether the store the hook rescans into holds a scan of ``path`` (a store
    that does not exist yet holds none; nothing is created to find out)."""
    from memgraph.cli.common import existing_store
    from memgraph.errors import StoreError
    from profiles.repo_scan.status import is_scanned

    try:
        s = existing_store(home, store, for_reading=True)
    except StoreError:
        return False
    try:
        return is_scanned(s, path)
    finally:
        s.close()


def register(app: typer.Typer) -> None:
    app.add_typer(repo_app, name="repo")
