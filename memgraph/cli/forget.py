"""``memgraph forget``: remove what was said, for good (library: profiles.voice.forget).

``memgraph forget ID...``, ``--session SID``, ``--query TEXT``: the messages
become tombstones (a receipt says who, when, why), their text leaves the store's
history, FTS, pages and vectors. ``--dry-run`` lists what would go. Asks before
removing unless ``--yes``; without a terminal to ask on, ``--yes`` is required.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer


def _vectors(cfg: Any) -> tuple[list[Any], list[str]]:
    """Every configured vector backend that exists (the nerve's location), and
    one warning per location that could not be opened."""
    url = cfg.qdrant_url
    path = cfg.qdrant_path or cfg.home / "qdrant"
    if not url and not Path(path).exists():
        return [], []
    try:
        from context_cut.vector_index import VectorIndex

        return [VectorIndex.open(path=path, url=url, engine=cfg.qdrant_engine).backend], []
    except Exception as exc:  # an optional extra missing, a server down: say so
        where = url or path
        return [], [f"vectors at {where} not cleaned: {' '.join(str(exc).split())[:200]}"]


def forget_cmd(
    message_ids: list[str] = typer.Argument(None, help="Voice message node id(s) to forget."),
    session: list[str] = typer.Option([], "--session", help="Forget a whole session (repeat)."),
    query: str | None = typer.Option(
        None, "--query", help="Forget the messages containing every word of TEXT."
    ),
    project: str | None = typer.Option(None, "--project", help="Narrow --query to a project."),
    reason: str = typer.Option("", "--reason", help="Why (kept in the receipt)."),
    by: str | None = typer.Option(None, "--by", help="Who (default: the login name)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would go; change nothing."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object."),
    home: Path | None = typer.Option(None, "--home", help="Store directory (env MEMGRAPH_HOME)."),
    vault: Path | None = typer.Option(None, "--vault", help="Vault root (env MEMGRAPH_VAULT)."),
    store: str | None = typer.Option(
        None, "--store", help="Store file or postgresql:// URL (overrides --home)."
    ),
) -> None:
    """Remove messages' text everywhere, leaving a tombstone with a receipt."""
    import getpass

    from memgraph.cli.common import existing_store, print_json_line, store_location
    from memgraph.config import load_settings
    from memgraph.errors import UsageError
    from memgraph.terminal import plural
    from profiles.voice.forget import ForgetRequest, find_targets, forget

    cfg = load_settings(home=home, vault=vault)
    who = by
    if not who:
        try:
            who = getpass.getuser()
        except Exception:
            who = "operator"
    request = ForgetRequest(
        message_ids=tuple(message_ids or ()),
        session_ids=tuple(session),
        query=query,
        project=project,
        reason=reason,
        by=who,
        vault=cfg.vault,
        dry_run=True,
    )
    s = existing_store(cfg.home, store_location(cfg, store))
    try:
        plan = find_targets(s, request)
        n = len(plan.messages)
        if dry_run:
            _report(plan, as_json, dry_run=True)
            if plan.missing:  # as the real run: a named id that is not stored fails
                raise typer.Exit(1)
            return
        if n == 0 and not plan.session_nodes:
            if as_json:
                print_json_line({**plan.as_dict(), "dry_run": False})
            else:
                for mid in plan.missing:
                    print(_not_found(mid), file=sys.stderr)
                print("nothing matched; nothing forgotten")
            if plan.missing:
                raise typer.Exit(1)
            return
        if not yes:
            if not sys.stdin.isatty():
                raise UsageError(
                    f"forget removes the text of {plural(n, 'message')} for good; "
                    "rerun with --yes (no terminal to confirm on)"
                )
            sessions = plural(len(plan.sessions), "session")
            if not _confirm(f"Forget {plural(n, 'message')} in {sessions} for good?"):
                print("nothing forgotten", file=sys.stderr)
                raise typer.Exit(1)
        backends, warnings = _vectors(cfg)
        try:
            done = forget(s, _real(request), backends)
        finally:
            for b in backends:
                b.close()
    finally:
        s.close()
    for rel in done.left_unreadable:  # not UTF-8 text: left byte for byte
        warnings.append(
            f"{cfg.vault / rel} is not UTF-8 text; left as is and may still hold the "
            "forgotten text: remove it from there by hand"
        )
    warnings += [f"{line} (its text still holds the quote)" for line in done.left_quoting]
    warnings += done.views_left
    if done.quoted_by:
        warnings.append(_quoted_by(done.quoted_by))
    for line in warnings:
        print(f"warning: {line}", file=sys.stderr)
    _report(done, as_json, dry_run=False)
    if warnings or done.missing:
        raise typer.Exit(1)


def _not_found(name: str) -> str:
    """A named id that is not stored; listings show session ids cut to 8 characters,
    which --session does not take."""
    if name.startswith("n-"):
        return f"not found: {name}"
    return (
        f"not found: {name} (forget takes voice messages: --session a voice session's "
        "whole id, as `voice --json` shows it)"
    )


def _quoted_by(ids: list[str]) -> str:
    from memgraph.terminal import plural

    verb = "holds" if len(ids) == 1 else "hold"
    return (
        f"{plural(len(ids), 'other message')} {verb} the same words (the operator's own, "
        f"never rewritten): forget them too: memgraph forget {' '.join(ids)}"
    )


def _confirm(question: str) -> bool:
    """Ask on stderr, read the answer from the terminal (stdout stays the report's)."""
    sys.stderr.write(f"{question} [y/N]: ")
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def _real(request: Any) -> Any:
    import dataclasses

    return dataclasses.replace(request, dry_run=False)


def _report(result: Any, as_json: bool, *, dry_run: bool) -> None:
    from memgraph.cli.common import print_json_line

    if as_json:
        print_json_line({**result.as_dict(), "dry_run": dry_run})
        return
    for mid in result.missing:
        print(_not_found(mid), file=sys.stderr)
    from memgraph.dates import show
    from memgraph.terminal import plural

    n = plural(len(result.messages), "message")
    sessions = plural(len(result.sessions), "session")
    if dry_run:
        for node in result.messages:
            sid = str(node.attributes.get("session_id") or "-")[:8]
            when = show(node.valid_from) if node.valid_from else "-"  # as voice search shows it
            print(f"would forget {node.id}  [{when} {sid}] {node.title}")
        for nid in result.unquoted:
            print(f"would rewrite {nid}  (it quotes a message forgotten here)")
        print(f"dry run: {n} in {sessions} would be forgotten")
        if result.quoted_by:
            print(f"note: {_quoted_by(result.quoted_by)}", file=sys.stderr)
        return
    scrubbed = sum(result.scrubbed.values())
    print(
        f"forgot {n} in {sessions}: {plural(result.receipts, 'receipt')}, "
        f"{plural(scrubbed, 'history row')} scrubbed, "
        f"{plural(len(result.pages_rewritten), 'page')} re-rendered, "
        f"{len(result.pages_removed)} removed, "
        f"{plural(result.vector_points, 'vector point')} removed"
    )
    if result.unquoted:
        views = plural(len(result.session_views), "session view")
        print(
            f"rewrote {plural(len(result.unquoted), 'node')} that quoted it "
            f"({views} re-rendered): {' '.join(result.unquoted)}"
        )


def register(app: typer.Typer) -> None:
    app.command("forget")(forget_cmd)
