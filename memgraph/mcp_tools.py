"""The MCP tools' signatures and descriptions, written once.

Both servers are built from ``tool_functions``: the lean stdio loop
(``memgraph.mcp_stdio``: tools/list from these signatures through
``memgraph.mcp_schema``, arguments checked against them) and the SDK's
``MCPServer`` (``memgraph.mcp_server.build_server``, used for ``--http``), which
derives the same schemas from the same functions. Each function only forwards to
``MemgraphTools`` (``memgraph.mcp_server``); parameter names are the CLI's options.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from memgraph.mcp_server import MemgraphTools


class ToolDef(NamedTuple):
    name: str
    fn: Callable[..., Any]
    description: str


VOICE_SEARCH = (
    "Search the operator's own words (FTS5 bm25 + recency); parameters as "
    "`memgraph voice` options (since/until: 2026-04-14, yesterday, 7d; all: also "
    "bare slash commands such as /model)."
)
CONTEXT = (
    "A token-budgeted context packet (cut: repo|role|persona|coordinator) as its item "
    "texts; repo: a scanned repository's path for the repo cut (memgraph repo scan); "
    "project: whose memory (default: the workspace's); as_json: the whole packet document "
    "(its fields take most of the budget)."
)
PROPOSE = (
    "Propose a typed claim (role_self|incubation|agency_pressure|candidate_intervention|"
    "evidence|repo_architecture|repo_dataflow); profile law accepts or rejects it. "
    "state: only where a profile has two ways in (agency_pressure: active|obligated; "
    "repo_architecture, repo_dataflow: observed|proposed); kind: the profile's own (a "
    "refusal lists them)."
)
# the choices an agent would otherwise learn from a refusal (tests keep them equal to
# profiles.memory.REMEMBER_KINDS and the profiles' initial states)
REMEMBER = (
    "Keep a short-term memory from this session (forced sleep accounts for it). "
    "kind: observation|thought|todo; anchors: transcript (path[:line]), record (a "
    "transcript record's uuid), file (paths), commit (a sha)."
)


def tool_functions(tools: MemgraphTools) -> list[ToolDef]:
    """memgraph's seven tools bound to ``tools``, in the order tools/list gives them."""

    def voice_search(
        query: str,
        since: str | None = None,
        until: str | None = None,
        project: str | None = None,
        type: str | None = None,
        session: str | None = None,
        limit: int = 20,
        all: bool = False,
    ) -> list[dict[str, Any]]:
        return tools.voice_search(query, since, project, type, limit, until, session, all)

    def note(text: str, session: str | None = None) -> dict[str, Any]:
        return tools.note(text, session)

    def wake(persona: str | None = None) -> dict[str, Any]:
        return tools.wake(persona)

    def context(
        text: str,
        cut: str = "repo",
        budget: int = 2000,
        repo: str | None = None,
        project: str | None = None,
        as_json: bool = False,
    ) -> dict[str, Any]:
        return tools.context(text, cut, budget, repo, project, as_json)

    def remember(
        text: str,
        session: str | None = None,
        tension: str = "",
        question: str = "",
        kind: str = "observation",
        transcript: str | None = None,
        record: str | None = None,
        file: list[str] | None = None,
        commit: str | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        return tools.remember(
            text, session, tension=tension, question=question, kind=kind,
            transcript=transcript, record=record, file=file, commit=commit,
            project=project,
        )  # fmt: skip

    def propose(
        profile: str,
        text: str,
        session: str | None = None,
        kind: str | None = None,
        state: str | None = None,
        tension: str = "",
        question: str = "",
        implication: str = "",
        transcript: str | None = None,
        record: str | None = None,
        file: list[str] | None = None,
        commit: str | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        return tools.propose(
            profile, text, session, kind=kind, state=state, tension=tension,
            question=question, implication=implication, transcript=transcript,
            record=record, file=file, commit=commit, project=project,
        )  # fmt: skip

    def voice_stats() -> dict[str, Any]:
        return tools.voice_stats()

    return [
        ToolDef("voice_search", voice_search, VOICE_SEARCH),
        ToolDef("note", note, "Leave a session-bound spark note."),
        ToolDef("wake", wake, "The continuity token: the last note of the latest session."),
        ToolDef("context", context, CONTEXT),
        ToolDef("remember", remember, REMEMBER),
        ToolDef("propose", propose, PROPOSE),
        ToolDef(
            "voice_stats",
            voice_stats,
            "Health of the voice index: pages, messages, classified share.",
        ),
    ]
