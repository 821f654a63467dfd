"""The MCP server: memgraph's library exposed as tools (``MemgraphTools``).

Over stdio the tools are served by the lean JSON-RPC loop (``memgraph.mcp_stdio``);
``build_server`` puts the same tool functions (``memgraph.mcp_tools``) on the MCP
SDK's ``MCPServer`` for ``memgraph mcp --http``.

Tool parameters are named as the CLI's options (``session`` as ``--session``,
``record``/``file`` as ``--record``/``--file``, ``implication``; ``note`` and
``context`` take ``text`` like their CLI argument); the older names are not read
(notes/terminal.md lists the renames: a tool's schema cannot mark an alias).

Tools are thin: each parses its arguments into the same request objects the
CLI uses and returns the same objects (``voice_search`` returns exactly what
``memgraph voice --json`` prints). A bad argument raises a ``ToolError`` (the
client sees ``isError``), never a crashed server. The store stays open across
calls (one for reading, one for writing; opening it per call cost ~3x the query):
several harnesses share it, SQLite handles the concurrency, and before every call
the file's identity (device, inode, size, modification time) is compared with the
one it was opened on, so a store replaced underneath (a backup copied back, a file
deleted and created again) is closed and opened afresh, never read stale.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from memgraph.config import MAX_BUDGET, Settings
from memgraph.errors import MemgraphError, MissingExtra, StoreMissing
from memgraph.mcp_wire import check_query, check_text_args
from memgraph.store import Store, open_store

T = TypeVar("T")

MAX_LIMIT = 500
INSTRUCTIONS = (
    "memgraph keeps what the operator said (verbatim, from agent transcripts), session notes "
    "and typed claims in one graph. Use voice_search for the operator's exact words on a topic, "
    "wake at the start of a session for the continuity token, note to leave one, remember for "
    "short-term memory the night pass consolidates, propose for typed claims profile law "
    "accepts or rejects, context for a token-budgeted packet, voice_stats for index health."
)


def _jsonable(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return _jsonable(asdict(value))
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, Path):
        return str(value)
    return value


class MemgraphTools:
    """The tool implementations, usable without any MCP machinery (and tested so)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()  # one call at a time on the shared stores
        # write flag -> (location, file identity when opened, store)
        self._open: dict[bool, tuple[str, tuple[int, ...] | None, Store]] = {}
        self._embedder: tuple[Any, str | None] | None = None  # the repo cut's, once built

    @contextmanager
    def _store(self, *, write: bool = False) -> Iterator[Store]:
        location = str(self.settings.store or self.settings.store_path)
        with self._lock:
            store = self._current(location, write)
            try:
                yield store
            except MemgraphError:
                raise  # the tool's own refusal: the store is fine
            except BaseException:
                self._drop(write)  # a broken connection is not kept
                raise
            finally:
                cached = self._open.get(write)
                if cached is None or cached[2] is not store:
                    with contextlib.suppress(Exception):
                        store.close()  # not kept (no file to identify, or dropped)
                elif write:
                    # our own write moved the file's size/time: that is not a replacement
                    self._open[write] = (location, store_identity(location), store)

    def _current(self, location: str, write: bool) -> Store:
        ident = store_identity(location)
        cached = self._open.get(write)
        if cached is not None and cached[0] == location and cached[1] == ident and ident:
            return cached[2]
        # replaced, deleted or moved: open afresh, and first close EVERY handle on
        # the old file (the other slot's too: no connection outlives its file)
        for slot, (where, seen, _) in list(self._open.items()):
            if where != location or seen != ident or ident is None:
                self._drop(slot)
        if ident is None and not write and not os.path.lexists(location):
            # as the CLI's read commands: a typo in MEMGRAPH_HOME is not answered "no
            # hits" from a new empty store made at the typo (open_store would make one)
            raise StoreMissing(
                f"no store at {location} (check the server's MEMGRAPH_HOME or "
                "MEMGRAPH_STORE; `memgraph voice --backfill` starts one)"
            )
        # read tools work on a read-only store (0444 file, read-only mount)
        store = open_store(location, for_reading=not write)
        ident = store_identity(location)
        if ident is not None:  # a store we cannot identify is opened per call
            self._open[write] = (location, ident, store)
        return store

    def _drop(self, write: bool) -> None:
        cached = self._open.pop(write, None)
        if cached is not None:
            with contextlib.suppress(Exception):
                cached[2].close()

    def close(self) -> None:
        with self._lock:
            for write in list(self._open):
                self._drop(write)

    def voice_search(
        self,
        query: str,
        since: str | None = None,
        project: str | None = None,
        type: str | None = None,
        limit: int = 20,
        until: str | None = None,
        session: str | None = None,
        all: bool = False,
    ) -> list[dict[str, Any]]:
        """``memgraph voice QUERY --json`` (parameters named as the CLI's options;
        dates in any ``memgraph.dates`` form: 2026-04-14, yesterday, 7d)."""
        from memgraph.dates import parse_when
        from profiles.voice.output import format_json
        from profiles.voice.search import VoiceQuery, search_voice

        check_query(query)
        if not query.strip() and not any((since, until, project, type, session)):
            raise ValueError(  # the library's line names the CLI's --recent, --stats
                "nothing to search: give a query, or a filter (session, since, until, "
                "project, type); voice_stats tells how much the index holds"
            )
        if not 1 <= limit <= MAX_LIMIT:
            raise ValueError(f"limit must be between 1 and {MAX_LIMIT}")
        request = VoiceQuery(
            query=query,
            since=parse_when(since, flag="since") if since else None,
            until=parse_when(until, end_of_day=True, flag="until") if until else None,
            project=project,
            type=type,
            session=session,
            limit=limit,
            include_commands=all,
        )
        with self._store() as store:
            hits = search_voice(store, request)
            if not hits and (type or project):
                # a class or project the index never had is refused, as the CLI does
                from memgraph.store.interfaces import indexes
                from profiles.voice.search import check_filter_values

                voice = indexes(store).voice
                check_filter_values(request, voice.search, voice.stats)
        return [json.loads(format_json(hit)) for hit in hits]

    def voice_stats(self) -> dict[str, Any]:
        """What ``memgraph voice --stats --json`` prints."""
        from profiles.voice.output import stats_json
        from profiles.voice.search import voice_stats

        with self._store() as store:
            stats = voice_stats(store)
        return stats_json(stats)

    def note(self, text: str, session: str | None = None) -> dict[str, Any]:
        from profiles.session.api import NoteRequest, note

        request = NoteRequest(
            session_id=self._session(session),
            text=text,
            workspace=self.settings.workspace,
            harness="mcp",
            # a session this note starts is the server's persona, which `wake` reads
            new_persona=self.settings.persona,
            redact=self.settings.redact,
        )
        with self._store(write=True) as store:
            result: dict[str, Any] = _jsonable(note(store, request))
        return result

    def _session(self, session: str | None) -> str:
        """The session note, remember and propose write into, found one way for all
        three (``note`` skipped the harness's own id the other two read)."""
        from profiles.wakeup.active import resolve_session

        where, home = str(self.settings.workspace), self.settings.home
        sid, _ = resolve_session(session, self.settings.session, os.environ, where, home)
        if not sid:
            raise ValueError(
                "no session: pass session, or start the server with MEMGRAPH_SESSION set"
            )
        return sid

    def _memory_request(self, text: str, profile: str, session: str | None, **fields: Any) -> Any:
        from profiles.memory import Anchors, MemoryRequest
        from profiles.voice.nodes import resolve_project

        where = str(self.settings.workspace)
        sid = self._session(session)
        if "implication" in fields:
            fields["action_implication"] = fields.pop("implication")
        anchors = Anchors(
            transcript=fields.pop("transcript", None),
            record_uuid=fields.pop("record", None),
            files=tuple(fields.pop("file", None) or ()),
            commit=fields.pop("commit", None),
        )
        project = fields.pop("project", None) or resolve_project(where)
        return MemoryRequest(
            text=text, session_id=sid, project=project, harness="mcp", profile=profile,
            anchors=anchors, persona=self.settings.persona, **fields,
        )  # fmt: skip

    def remember(self, text: str, session: str | None = None, **fields: Any) -> dict[str, Any]:
        from profiles.memory import remember

        request = self._memory_request(text, "short_term", session, **fields)
        with self._store(write=True) as store:
            result: dict[str, Any] = _jsonable(remember(store, request))
        return result

    def propose(
        self, profile: str, text: str, session: str | None = None, **fields: Any
    ) -> dict[str, Any]:
        from profiles.memory import propose

        request = self._memory_request(text, profile, session, **fields)
        with self._store(write=True) as store:
            result: dict[str, Any] = _jsonable(propose(store, request))
        return result

    def wake(self, persona: str | None = None) -> dict[str, Any]:
        from memgraph.config import chosen_persona
        from profiles.session.api import wake
        from profiles.session.lookup import personas
        from profiles.session.records import wake_line

        chosen = chosen_persona(persona)
        with self._store() as store:
            woke = wake(store, chosen)
            known = personas(store) if woke.axiom and chosen else []
        result: dict[str, Any] = _jsonable(woke)
        if woke.axiom and chosen:  # a persona with no sessions (a typo?), as the CLI says
            result["notice"] = wake_line(woke.persona, None, True, known)
        return result

    def context(
        self,
        text: str,
        cut: str = "repo",
        budget: int = 2000,
        repo: str | None = None,
        project: str | None = None,
        as_json: bool = False,
    ) -> dict[str, Any]:
        """The packet as its item texts (``as_json``: the whole document, as
        ``memgraph context --json`` prints it; its fields take most of the budget);
        role/persona/coordinator cuts read the workspace's project unless
        ``project`` names one, as the CLI does."""
        from context_cut.api import select_context_cut
        from context_cut.render import mcp_fitted_reply
        from memgraph.documents import CutName, MemoryContextQuery

        if cut not in CutName.__members__:
            raise ValueError(f"cut must be one of {', '.join(CutName.__members__)}")
        query = text
        if not query.strip():  # as `memgraph context ""` says (it gave a packet of anything)
            raise ValueError("the query is empty")
        check_query(query, "text")
        if not 1 <= budget <= MAX_BUDGET:
            raise ValueError(f"budget must be between 1 and {MAX_BUDGET} tokens")
        if repo is not None:
            return self._repo_context(query, cut, budget, repo, as_json)
        if project is None and cut != "repo":
            from profiles.voice.nodes import resolve_project

            project = resolve_project(str(self.settings.workspace))
        request = MemoryContextQuery(
            text=query, cut=CutName(cut), budget_tokens=budget, project=project
        )
        with self._store() as store:
            packet = select_context_cut(store, request)
        return mcp_fitted_reply(packet, budget, as_json)

    def _repo_context(
        self, query: str, cut: str, budget: int, repo: str, as_json: bool
    ) -> dict[str, Any]:
        """The repo cut over a scanned repository (``repo``: its folder path)."""
        from context_cut.render import mcp_fitted_reply
        from context_cut.repo_cut import RepoCutRequest, repo_cut
        from context_cut.repo_vectors import vectors_dir_for

        if cut != "repo":
            raise ValueError("repo goes with cut='repo'")
        if not repo.strip():  # Path("") is the server's own folder, not what was meant
            raise ValueError("repo is empty: name a scanned repository's folder")
        request = RepoCutRequest(text=query, repo_path=Path(repo), budget_tokens=budget)
        embedder, notice = self._repo_embedder()
        with self._store() as store:
            where = vectors_dir_for(self.settings.home, store)
            packet = repo_cut(store, request, embedder, where).packet
        if notice:  # the client sees why its ranking lacks the past-commit signal
            packet.notices.append(notice)
        return mcp_fitted_reply(packet, budget, as_json)

    def _repo_embedder(self) -> tuple[Any, str | None]:
        """The configured embedder for the repo cut, as the CLI takes it
        (``repo_nearest.configured_embedder``), built once per server: the model
        loads in ~0.3 s. A missing extra is the result's notice on every repo cut."""
        if self._embedder is None:
            from context_cut.repo_nearest import configured_embedder

            cfg = self.settings
            self._embedder = configured_embedder(
                cfg.embedder,
                model=cfg.embed_model,
                host=cfg.ollama_host,
                timeout=cfg.ollama_timeout,
            )
        return self._embedder


def store_identity(location: str) -> tuple[int, ...] | None:
    """(device, inode, size, mtime ns) of a store file; ``(0,)`` for a server URL or
    ``:memory:`` (nothing on disk to replace); None when there is no file."""
    from memgraph.store.postgres import is_store_url

    if is_store_url(location) or location == ":memory:":
        return (0,)
    try:
        st = os.stat(location)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _tool(fn: Callable[..., T]) -> Callable[..., T]:
    """Turn our errors into tool errors with the same one-line message."""
    import functools
    import inspect

    from mcp.server.mcpserver.exceptions import ToolError

    from memgraph.mcp_schema import in_tool_words

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        try:
            check_text_args(kwargs)
            return fn(*args, **kwargs)
        except (MemgraphError, ValueError) as exc:
            said = " ".join(str(exc).split())
            raise ToolError(in_tool_words(said, inspect.signature(fn).parameters)) from None

    return wrapper


def build_server(settings: Settings) -> Any:
    """An ``mcp.server.mcpserver.MCPServer`` with memgraph's tools (``--http``; stdio
    is served by the lean loop, ``memgraph.mcp_stdio``, from the same definitions)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ImportError:
        raise MissingExtra("mcp", "mcp") from None
    from memgraph import __version__
    from memgraph.mcp_tools import tool_functions

    tools = MemgraphTools(settings)
    server = MCPServer(name="memgraph", instructions=INSTRUCTIONS, version=__version__)
    for tool in tool_functions(tools):
        server.tool(name=tool.name, description=tool.description)(_tool(tool.fn))
    return server
