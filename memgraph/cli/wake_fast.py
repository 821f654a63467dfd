"""Lean path for ``memgraph wake [--persona P] [--home H] [--json]`` (no typer, pydantic).

``run(argv) -> int | None``: an exit code, or None for anything this path does
not handle (help, unknown options, a missing store: typer says so, an older
store, a session view edited by hand: the full path imports it through the
engine first), so typer runs ``memgraph.cli.session.wake``. The newest active note comes from the
store's session index (``memgraph.store.sqlite_ext.standing.wake_reads``), the
lines from ``profiles.session.records``; tests/memgraph/cli/test_wake_fast.py
asserts the same bytes as the typer command.
"""

from __future__ import annotations

import sys

from memgraph.cli.lean_args import Spec, parse_strings

_WAKE = Spec(
    valued={"--persona": "--persona", "--home": "--home"}, flags={"--json": "--json"}, text="none"
)


def parse(argv: list[str]) -> tuple[dict[str, str], bool] | None:
    """(options, --json) or None (--help, arguments, typos: typer explains)."""
    opts = parse_strings(argv, _WAKE)
    if opts is None:
        return None
    return opts, opts.pop("--json", None) is not None


def run(argv: list[str]) -> int | None:
    parsed = parse(argv)
    if parsed is None:
        return None
    opts, as_json = parsed
    import json
    from pathlib import Path

    from memgraph.cli.session_fast import _load
    from memgraph.config import chosen_persona, paths
    from memgraph.errors import MemgraphError, error_line

    try:
        records, _, views = (_load(name) for name in ("records", "emit", "views"))
        db = paths(home=opts.get("--home"))[0]
        chosen = chosen_persona(opts.get("--persona"))
        if chosen:
            records.check_name(str(chosen), "persona")
    except MemgraphError as exc:
        sys.stderr.write(error_line(exc) + "\n")
        return exc.exit_code
    if not db.is_file():
        return None
    from memgraph.store.sqlite_ext.standing import light_wake_reads

    found = light_wake_reads(db, str(chosen) if chosen else None)
    if found is None:
        return None
    note, sessions, known = found
    for session_id, owner, workspace in sessions:
        try:
            edited = views.view_edited(views.session_file(Path(workspace), owner, session_id))
        except MemgraphError:
            edited = False  # an unsafe name: the full path skips it too
        if edited:
            return None  # hand-added notes are imported by the engine first
    sid: str | None = None
    ts = node = harness = None
    persona, text = str(chosen or "default"), records.DEFAULT_AXIOM
    if note is not None:
        text, sid, ts, persona, node, harness = note
    line = records.wake_line(persona, sid, bool(chosen), known)
    if line:
        sys.stderr.write(line + "\n")
    if as_json:
        obj = records.wake_json(persona, sid, ts, harness, node, text)
        sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        from memgraph.terminal import printable

        sys.stdout.write(printable(text, lines=True) + "\n")
    return 0
