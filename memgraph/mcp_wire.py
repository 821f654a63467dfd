"""What reaches the MCP tools from the wire: request lines and argument checks.

The SDK's JSON parser rejects a request line holding a lone UTF-16 surrogate escape
and, having no request id, answers nothing (the caller waits forever); a query of
50,000 words kept the server busy for seconds. Both are stopped here, before a tool
runs, so the caller gets a tool error naming the argument. The lean stdio loop
(``mcp_stdio``) parses with Python's parser and applies ``replace_surrogates`` to the
request; ``run_stdio`` serves the SDK's server through ``SanitisedStdin`` (the bench
compares the two). This module imports nothing of the SDK until ``run_stdio`` runs.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

# A query is matched term by term; 50,000 words or 5,000 ORs kept the server busy
# for seconds. Past these caps the caller gets a tool error, not a stall.
MAX_QUERY_CHARS = 10_000
MAX_QUERY_TERMS = 200
# What a lone surrogate escape (\ud800..\udfff) in a request becomes (see
# ``sanitise_line``): a noncharacter no client sends on purpose.
SURROGATE_MARK = "\U0010fffe"


def check_query(query: str, name: str = "query") -> None:
    """ValueError (a tool error) for a query too long to answer promptly."""
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"{name} is {len(query)} characters; at most {MAX_QUERY_CHARS}")
    terms = len(query.split())
    if terms > MAX_QUERY_TERMS:
        raise ValueError(f"{name} has {terms} terms; at most {MAX_QUERY_TERMS}")


def check_text_args(kwargs: dict[str, Any]) -> None:
    for name, value in kwargs.items():
        texts = value if isinstance(value, list) else [value]
        if any(isinstance(text, str) and SURROGATE_MARK in text for text in texts):
            raise ValueError(
                f"argument {name!r} holds a lone UTF-16 surrogate escape (\\ud800-\\udfff); "
                "send valid Unicode text"
            )


def replace_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "".join(SURROGATE_MARK if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
        return value
    if isinstance(value, list):
        return [replace_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {replace_surrogates(k): replace_surrogates(v) for k, v in value.items()}
    return value


def sanitise_line(line: str) -> str:
    """One JSON-RPC line with every lone surrogate escape replaced by SURROGATE_MARK.

    The SDK's JSON parser rejects such a line outright and, having no request id,
    answers nothing: the caller would wait forever. Python's parser accepts it,
    so the request goes through and the tool names the offending argument.
    """
    if "\\u" not in line:
        return line
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return line
    cleaned = replace_surrogates(data)
    if cleaned == data and json.dumps(cleaned) == json.dumps(data):
        return line
    return json.dumps(cleaned, ensure_ascii=True) + "\n"


class SanitisedStdin:
    """Text lines from the binary stdin, each passed through ``sanitise_line``."""

    def __init__(self, raw: Any) -> None:
        import io

        self._text = io.TextIOWrapper(raw, encoding="utf-8", errors="replace")

    def readline(self, *args: Any) -> str:
        line = self._text.readline()
        return sanitise_line(line) if line else line

    def __iter__(self) -> Iterator[str]:
        while line := self.readline():
            yield line

    def close(self) -> None:
        # the buffer is the process's stdin: not ours to close
        with contextlib.suppress(ValueError):
            self._text.detach()


def run_stdio(server: Any) -> None:
    """``server.run()`` for stdio, reading requests through ``SanitisedStdin``."""
    import sys

    import anyio
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        stdin = anyio.wrap_file(SanitisedStdin(sys.stdin.buffer))  # type: ignore[arg-type]
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            low = server._lowlevel_server
            await low.run(read_stream, write_stream, low.create_initialization_options())

    anyio.run(main)
