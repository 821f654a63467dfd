"""``memgraph hook session-start``: every Claude Code session wakes with its packet.

Stdlib only (the hook runs at every session start; importing pydantic alone
would take most of the 300 ms budget). From the SessionStart payload on stdin
(``session_id``, ``transcript_path``, ``cwd``, ``source``):

1. record the session as the workspace's active session
   (``profiles.wakeup.active``) and, when Claude Code gives ``CLAUDE_ENV_FILE``,
   append ``export MEMGRAPH_SESSION=<id>`` there, so ``memgraph note`` and MCP
   ``note`` work without ``--session``;
2. print the hook JSON whose ``hookSpecificOutput.additionalContext`` holds the
   continuity token (``wake``: the persona's latest note) and the role packet
   for the cwd's project (``profiles.wakeup.standing``), within the budget
   (``hook_budget`` tokens, default 1,500).

It never blocks or fails a session start: every error degrades to an empty
packet plus one line on stderr, and the exit code is 0.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

MAX_INPUT = 1 << 20
DEFAULT_BUDGET = 1500
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]+")
_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$")


class StartPayload(NamedTuple):
    session_id: str
    cwd: str
    source: str
    transcript_path: str


class HookConfig(NamedTuple):
    home: Path
    persona: str
    budget: int


def parse_payload(raw: bytes) -> StartPayload:
    """The hook's JSON, or one ``ReaderError`` line (the SessionEnd hook's words)."""
    from memgraph.errors import ReaderError
    from memgraph.inputs import json_object

    if len(raw) > MAX_INPUT:
        raise ReaderError(f"hook input larger than {MAX_INPUT} bytes")
    data = json_object(raw, "hook input")
    sid = data.get("session_id")
    if not isinstance(sid, str) or not _SAFE.match(sid) or ".." in sid:
        raise ReaderError("hook input has no safe session_id")
    cwd = data.get("cwd")
    source = data.get("source")
    path = data.get("transcript_path")
    return StartPayload(
        sid,
        cwd if isinstance(cwd, str) and cwd else os.getcwd(),
        source if isinstance(source, str) else "",
        path if isinstance(path, str) else "",
    )


def load_config(env: Mapping[str, str], flags: Mapping[str, str]) -> HookConfig:
    """home, persona and hook_budget through the one resolver (``memgraph.config``:
    flag > env > TOML > default; stdlib only)."""
    from memgraph.config import EMPTY_FOLDER, default_home, empty_folder, resolve

    raw = resolve(flags, env, ("home", "persona", "hook_budget"))
    if "home" in raw and empty_folder(raw["home"]):  # not the default home, silently
        raise ValueError(f"the home (--home or MEMGRAPH_HOME) {EMPTY_FOLDER}")
    home = Path(str(raw["home"])) if raw.get("home") else default_home(env)
    budget = hook_budget(raw.get("hook_budget") or DEFAULT_BUDGET)
    return HookConfig(home, str(raw.get("persona") or "default"), budget)


def hook_budget(given: Any) -> int:
    """The hook's token budget from a setting's value (text or a number); a
    ValueError naming it when it is not a whole number of 1 to ``MAX_BUDGET``."""
    from memgraph.config import MAX_BUDGET

    try:
        budget = int(given)
    except (TypeError, ValueError):
        budget = 0
    if not 1 <= budget <= MAX_BUDGET:
        shown = str(given)[:40]
        raise ValueError(
            f"the hook budget (--budget or MEMGRAPH_HOOK_BUDGET) must be 1 to {MAX_BUDGET} "
            f"tokens, not {shown!r}"
        )
    return budget


def project_of(cwd: str) -> str:
    """The project name as capture names it (git top level; a linked worktree names
    its main repository; else the directory name), without running git."""
    current = Path(os.path.abspath(cwd))
    name = current.name
    for folder in (current, *current.parents):
        dot = folder / ".git"
        if dot.is_dir():
            name = folder.name
            break
        if dot.is_file():
            name = folder.name
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                gitdir = Path(text[7:].strip())
                if not gitdir.is_absolute():
                    gitdir = (folder / gitdir).resolve()
                if gitdir.parent.name == "worktrees" and gitdir.parent.parent.name == ".git":
                    name = gitdir.parent.parent.parent.name
            break
    cleaned = re.sub(r"\.{2,}", ".", _UNSAFE.sub("-", name).strip("-."))[:128].rstrip("-.")
    return cleaned if cleaned and _SAFE.match(cleaned) else "unknown"


_ENV_FILE_TAIL = 64 * 1024  # the line is looked for among the last lines only


def write_env_file(path: str, session_id: str) -> None:
    """Append ``export MEMGRAPH_SESSION=...`` to Claude Code's env file once.

    Opened ``O_NOFOLLOW | O_NONBLOCK`` and checked to be a regular file before any
    read or write: a FIFO there would otherwise hold the SessionStart hook forever.
    """
    import stat

    line = f"export MEMGRAPH_SESSION={session_id}\n"
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(Path(path), flags | getattr(os, "O_NONBLOCK", 0), 0o600)
    with os.fdopen(fd, "r+b") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path} is not a regular file")
        os.set_blocking(fd, True)
        fh.seek(max(0, info.st_size - _ENV_FILE_TAIL))
        tail = fh.read().decode("utf-8", "replace")
        if line in tail.splitlines(keepends=True)[-50:]:
            return
        fh.write(line.encode("utf-8"))


def _wake(reads: Any, persona: str) -> str:
    row = reads.latest_note(persona)
    if row is None:
        return (
            "wake: no notes yet: read the repository as it is now, trust it over memory, and "
            'leave a note (memgraph note "...") when you learn something the next session needs.'
        )
    text = " ".join(str(row[0]).split())
    return f"wake ({persona}, session {str(row[1])[:8]}, {str(row[2])[:16]}): {text[:600]}"


def packet(store: Path | str, payload: StartPayload, cfg: HookConfig) -> str:
    """The context text: wake token + role packet, within ``cfg.budget`` tokens.
    ``store``: the store file, or a fleet's ``postgresql://`` URL."""
    from memgraph.config import is_url
    from profiles.wakeup.standing import render

    project = project_of(payload.cwd)
    header = [f"# memgraph: session {payload.session_id[:8]} in {project} (persona {cfg.persona})"]
    if is_url(str(store)):
        return _packet_shared(str(store), project, header, payload, cfg)
    store = Path(store)
    if store.exists() and not store.is_file():
        raise ValueError(f"{store} is not a store file")
    if not store.exists():
        header.append("memgraph has no store yet: `memgraph voice --backfill` to start.")
        text, _, _ = render([], cfg.budget, header)
        return text
    from memgraph.store.sqlite_ext.standing import LightStanding

    reads = LightStanding(store)
    try:
        header.append(_wake(reads, cfg.persona))
        sections = _sections(reads, project, payload.cwd)
    finally:
        reads.close()
    return _finish(sections, header, payload, cfg)


def _sections(reads: Any, project: str, cwd: str) -> list[Any]:
    """The role cut's standing sections, with the map of the repository the session
    starts in (when it was scanned) before the least important one, the unreviewed
    proposals: the voice and notes sections keep their place in the budget."""
    from profiles.wakeup.standing import gather, repo_section

    sections = gather(reads, "role", project, limit=6)
    repo = repo_section(reads, project, limit=5)
    if repo is not None:
        import shlex

        root = shlex.quote(_git_root(cwd))  # a path with blanks stays one word
        repo.title += f' (a task\'s modules: `memgraph context "TASK" --cut repo --repo {root}`)'
        sections.insert(len(sections) - 1, repo)
    return sections


def _git_root(cwd: str) -> str:
    """The folder holding ``.git`` above ``cwd`` (as ``project_of`` finds it), else cwd."""
    current = Path(os.path.abspath(cwd))
    for folder in (current, *current.parents):
        if (folder / ".git").exists():
            return str(folder)
    return str(current)


def _packet_shared(
    url: str, project: str, header: list[str], payload: StartPayload, cfg: HookConfig
) -> str:
    """The packet from a shared (PostgreSQL) store: its ``StandingReads`` (the same
    reads ``memgraph context --prompt`` makes there)."""
    from memgraph.errors import StoreError
    from memgraph.store import open_store
    from memgraph.store.interfaces import indexes

    store = open_store(url, for_reading=True)
    try:
        reads = indexes(store).standing
        if reads is None:
            raise StoreError(f"store {store.location} has no standing reads")
        header.append(_wake(reads, cfg.persona))
        sections = _sections(reads, project, payload.cwd)
    finally:
        store.close()
    return _finish(sections, header, payload, cfg)


def _finish(sections: list[Any], header: list[str], payload: StartPayload, cfg: HookConfig) -> str:
    from profiles.wakeup.standing import render

    footer = (
        f"(memgraph session id: {payload.session_id}; `memgraph note`, `memgraph remember` "
        "and MCP tools use it.)"
    )
    text, _, _ = render(sections, cfg.budget, header, footer)
    return text


def output(context: str) -> str:
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}},
        ensure_ascii=False,
    )


def session_start(
    raw: bytes, env: Mapping[str, str], flags: Mapping[str, str]
) -> tuple[str, list[str]]:
    """(stdout JSON, stderr lines). Never raises."""
    problems: list[str] = []
    try:
        payload = parse_payload(raw)
        cfg = load_config(env, flags)
    except Exception as exc:
        return output(""), [f"memgraph hook session-start: {_one_line(exc)}"]
    try:
        from profiles.wakeup.active import record_active

        record_active(cfg.home, payload.cwd, payload.session_id, payload.source)
    except Exception as exc:
        problems.append(f"active session not recorded: {_one_line(exc)}")
    if env.get("CLAUDE_ENV_FILE"):
        try:
            write_env_file(env["CLAUDE_ENV_FILE"], payload.session_id)
        except Exception as exc:
            problems.append(f"CLAUDE_ENV_FILE not written: {_one_line(exc)}")
    try:
        # the one resolver: --store, else the store setting (a fleet's postgresql:// URL
        # in MEMGRAPH_STORE or config.toml), else <home>/memgraph.db
        from memgraph.config import store_location

        location = store_location(cfg.home, flags.get("store"), env)
        context = packet(location, payload, cfg)
    except Exception as exc:
        problems.append(f"empty packet: {_one_line(exc)}")
        context = ""
    lines = [f"memgraph hook session-start: {'; '.join(problems)}"] if problems else []
    return output(context), lines


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__
