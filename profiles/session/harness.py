"""Which agent harness runs us, and its own session id when it exposes one.

Stdlib only; callers pass the environment mapping (library code never reads
``os.environ`` itself). What the harnesses expose to child processes, as of
early-to-mid 2026:

- Claude Code sets ``CLAUDECODE=1`` and ``CLAUDE_CODE_ENTRYPOINT`` (cli,
  sdk-ts, ...) for Bash-tool children. It does NOT export its session id:
  ``CLAUDE_SESSION_ID`` is a long-standing feature request (anthropics/claude-code
  #13733, #25642, #47018); the id reaches hooks and the status line only as
  ``session_id`` in their stdin JSON. We still honour ``CLAUDE_SESSION_ID`` and
  ``CLAUDE_CODE_SESSION_ID`` if set (a SessionStart hook can export one via
  ``CLAUDE_ENV_FILE``).
- Codex CLI injects ``CODEX_THREAD_ID`` (the thread/session uuid) into shell
  tool commands (openai/codex #10096), but not into stdio MCP servers; nested
  ``codex exec`` may inherit the parent's id (openai/codex #15527). Other
  ``CODEX_*`` variables (``CODEX_SANDBOX``, ``CODEX_SANDBOX_NETWORK_DISABLED``,
  ``CODEX_HOME``) only tell us the harness.
"""

from __future__ import annotations

from collections.abc import Mapping

CLAUDE_SESSION_VARS = ("CLAUDE_SESSION_ID", "CLAUDE_CODE_SESSION_ID")
CODEX_SESSION_VARS = ("CODEX_THREAD_ID", "CODEX_SESSION_ID")
_CODEX_MARKERS = ("CODEX_THREAD_ID", "CODEX_SESSION_ID", "CODEX_SANDBOX", "CODEX_MANAGED_BY_NPM")


def detect_harness(env: Mapping[str, str]) -> str:
    """``claude-code``, ``codex`` or ``cli`` (a person at a terminal)."""
    if env.get("CLAUDECODE") or env.get("CLAUDE_CODE_ENTRYPOINT"):
        return "claude-code"
    if any(env.get(k) for k in _CODEX_MARKERS):
        return "codex"
    return "cli"


def harness_session_id(env: Mapping[str, str], harness: str) -> str | None:
    """The harness's own session id when it exposes one to child processes."""
    names = {"claude-code": CLAUDE_SESSION_VARS, "codex": CODEX_SESSION_VARS}.get(harness, ())
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def active_session(
    flag: str | None, env: Mapping[str, str], harness: str
) -> tuple[str | None, str]:
    """(session id, where it came from): --session, MEMGRAPH_SESSION, then the harness."""
    if flag:
        return flag, "--session"
    if env.get("MEMGRAPH_SESSION"):
        return env["MEMGRAPH_SESSION"], "MEMGRAPH_SESSION"
    own = harness_session_id(env, harness)
    if own:
        return own, f"{harness} session id"
    return None, ""


NO_SESSION = (
    "no active session: pass --session ID, set MEMGRAPH_SESSION, or run "
    "`memgraph session start ID` in this workspace (Claude Code does not expose its "
    "session id to commands; Codex sets CODEX_THREAD_ID)"
)
