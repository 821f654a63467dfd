"""The lean MCP stdio server: line-delimited JSON-RPC straight to the tools.

``memgraph mcp`` (stdio) runs this loop instead of the MCP SDK's server. Measured on
the gen_vault store (notes/benchmarks.md, 2026-12-04 k22m), the SDK's stdio server
spent a few ms of CPU per call beyond the tool itself: each line read and written
through a worker thread (anyio's wrapped files), memory streams, pydantic models for
every message, argument validation and result conversion. Here one thread reads a
line, parses it, calls the tool (``memgraph.mcp_tools``, the same functions the SDK
server registers for ``--http``) and writes one line.

The protocol is MCP's handshake era (2024-11-05 .. 2025-11-25): ``initialize`` (the
client's version when it is one of those, else the newest), ``notifications/*``
(nothing answered), ``ping``, ``tools/list``, ``tools/call``, and empty prompt and
resource lists. ``server/discover`` (the 2026-07-28 per-request envelope) answers
-32601, on which clients, the SDK's ``Client`` among them, fall back to ``initialize``.
Every request gets an answer: a line that is not JSON -32700, not a JSON-RPC request
(a batch, no method, a request without an id or with an id that is not a string or
an integer, a line over ``MAX_LINE`` bytes) -32600, an unknown method -32601, bad
params or an unknown tool -32602. A tool's own refusal (a bad argument, a query over
the caps of ``memgraph.mcp_wire``, a lone surrogate escape) is a result with
``isError``, as the SDK sent it. Results carry the same ``content`` (each list item,
or the dict, as indent=2 JSON text) and ``structuredContent`` as the SDK's.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import Any, BinaryIO

from memgraph.config import Settings
from memgraph.errors import MemgraphError
from memgraph.mcp_schema import (
    Param,
    check_arguments,
    in_tool_words,
    input_schema,
    output_schema,
    params_of,
)
from memgraph.mcp_server import INSTRUCTIONS, MemgraphTools
from memgraph.mcp_tools import ToolDef, tool_functions
from memgraph.mcp_wire import check_text_args, replace_surrogates

PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MAX_LINE = 16 * 1024 * 1024  # bytes; a longer request line is refused, not buffered
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
EMPTY_LISTS = {
    "prompts/list": "prompts",
    "resources/list": "resources",
    "resources/templates/list": "resourceTemplates",
}


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def encode(message: dict[str, Any]) -> bytes:
    """One JSON-RPC line (UTF-8; escaped ASCII when some text cannot be encoded)."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str)
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        text = json.dumps(message, ensure_ascii=True, separators=(",", ":"), default=str)
        return text.encode("ascii") + b"\n"


def error_line(rid: Any, code: int, message: str, data: Any = None) -> bytes:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return encode({"jsonrpc": "2.0", "id": rid, "error": err})


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def tool_result(value: Any) -> dict[str, Any]:
    """``content`` and ``structuredContent`` as the SDK's MCPServer builds them."""
    items = value if isinstance(value, list) else [value]
    content = [
        {"type": "text", "text": json.dumps(item, indent=2, ensure_ascii=False, default=str)}
        for item in items
    ]
    structured = {"result": value} if isinstance(value, list) else value
    return {"content": content, "structuredContent": structured, "isError": False}


def tool_error(name: str, exc: BaseException, params: list[Param] | None = None) -> dict[str, Any]:
    said = _one_line(exc)
    if params:
        said = in_tool_words(said, [p.name for p in params])
    text = f"Error executing tool {name}: {said}"
    return {"content": [{"type": "text", "text": text}], "isError": True}


class LeanServer:
    """memgraph's tools over line-delimited JSON-RPC; one request at a time."""

    def __init__(self, settings: Settings, tools: MemgraphTools | None = None) -> None:
        self.tools = tools if tools is not None else MemgraphTools(settings)
        self._defs: dict[str, tuple[ToolDef, list[Param]]] = {
            t.name: (t, params_of(t.name, t.fn)) for t in tool_functions(self.tools)
        }
        self._listing: list[dict[str, Any]] | None = None

    def close(self) -> None:
        self.tools.close()

    def listing(self) -> list[dict[str, Any]]:
        if self._listing is None:
            self._listing = [
                {
                    "name": name,
                    "description": tool.description,
                    "inputSchema": input_schema(name, params),
                    "outputSchema": output_schema(name, tool.fn),
                }
                for name, (tool, params) in self._defs.items()
            ]
        return self._listing

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        tool, params = self._defs[name]
        try:
            check_text_args(arguments)
            value = tool.fn(**check_arguments(name, params, arguments))
        except (MemgraphError, ValueError) as exc:
            return tool_error(name, exc, params)  # the tool's refusal, in its own words
        except Exception as exc:  # a failure inside the tool: reported, the server lives on
            print(f"memgraph mcp: {name} failed: {_one_line(exc)}", file=sys.stderr)
            return tool_error(name, exc)
        return tool_result(value)

    def dispatch(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments")
            if not isinstance(name, str):
                raise RpcError(INVALID_PARAMS, "tools/call needs the tool's name (a string)")
            if arguments is None:
                arguments = {}
            if not isinstance(arguments, dict):
                raise RpcError(INVALID_PARAMS, "tools/call arguments must be an object")
            if name not in self._defs:
                raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
            return self.call_tool(name, arguments)
        if method == "tools/list":
            return {"tools": self.listing()}
        if method == "ping":
            return {}
        if method == "initialize":
            return self._initialize(params)
        if method in EMPTY_LISTS:
            return {EMPTY_LISTS[method]: []}
        raise RpcError(METHOD_NOT_FOUND, "Method not found", method)

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        from memgraph import __version__

        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise RpcError(INVALID_PARAMS, "initialize needs protocolVersion (a string)")
        return {
            "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "memgraph", "version": __version__},
            "instructions": INSTRUCTIONS,
        }

    def handle_line(self, line: bytes) -> bytes | None:
        """The reply line to one request line; None for a notification (or a blank line)."""
        text = line.decode("utf-8", errors="replace")  # bad bytes read as U+FFFD
        if not text.strip():
            return None
        try:
            msg = json.loads(text)
            if "\\u" in text:  # a lone surrogate escape becomes the mark the tools refuse
                msg = replace_surrogates(msg)
        except (ValueError, RecursionError):  # nesting deep enough for either to recurse out
            return error_line(None, PARSE_ERROR, "Parse error: not JSON, or nested too deep")
        try:
            return self._handle(msg)
        except Exception as exc:  # a bug here must not take the session down
            print(f"memgraph mcp: request failed: {_one_line(exc)}", file=sys.stderr)
            return error_line(None, INTERNAL_ERROR, f"Internal error: {_one_line(exc)}")

    def _handle(self, msg: Any) -> bytes | None:
        if not isinstance(msg, dict):
            return error_line(None, INVALID_REQUEST, "Invalid Request: one JSON-RPC object a line")
        rid = msg.get("id")
        good_id = isinstance(rid, str | int) and not isinstance(rid, bool)
        method = msg.get("method")
        if msg.get("jsonrpc") != "2.0" or not isinstance(method, str):
            if method is None and ("result" in msg or "error" in msg):
                return None  # a reply: this server sends no requests, nothing waits for it
            why = "Invalid Request: needs jsonrpc '2.0' and a method (a string)"
            return error_line(rid if good_id else None, INVALID_REQUEST, why)
        if "id" not in msg:
            if method.startswith("notifications/"):
                return None
            return error_line(None, INVALID_REQUEST, f"Invalid Request: {method} needs an id")
        if not good_id:
            return error_line(
                None, INVALID_REQUEST, "Invalid Request: id must be a string or integer"
            )
        params = msg.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return error_line(rid, INVALID_PARAMS, "Invalid params: params must be an object")
        try:
            result = self.dispatch(method, params)
        except RpcError as exc:
            return error_line(rid, exc.code, exc.message, exc.data)
        except Exception as exc:  # a bug here must not take the session down
            print(f"memgraph mcp: {method} failed: {_one_line(exc)}", file=sys.stderr)
            return error_line(rid, INTERNAL_ERROR, f"Internal error: {_one_line(exc)}")
        return encode({"jsonrpc": "2.0", "id": rid, "result": result})

    def serve(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        """Answer request lines until stdin ends (or the reader goes away)."""
        while line := stdin.readline(MAX_LINE + 1):
            if len(line) > MAX_LINE and not line.endswith(b"\n"):
                while (rest := stdin.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                    pass  # the rest of the oversized line, dropped unread
                why = f"Invalid Request: a request line over {MAX_LINE} bytes"
                reply: bytes | None = error_line(None, INVALID_REQUEST, why)
            else:
                reply = self.handle_line(line)
            if reply is not None:
                try:
                    stdout.write(reply)
                    stdout.flush()
                except (BrokenPipeError, ValueError):
                    return  # the client is gone


class TerminalLines:
    """``readline`` over a terminal's descriptor, waiting in 0.1 s ``select`` slices: a
    Ctrl-C landing between Python's last signal check and a blocking ``read`` would
    otherwise wait for the next line (as ``memgraph.terminal.read_stdin`` does)."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer = fd, b""

    def readline(self, limit: int = -1) -> bytes:
        import select

        while b"\n" not in self.buffer and (limit < 0 or len(self.buffer) < limit):
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            chunk = os.read(self.fd, 65536)
            if not chunk:  # Ctrl-D on an empty line: the end
                break
            self.buffer += chunk
        cut = self.buffer.find(b"\n") + 1 or len(self.buffer)
        if limit >= 0:
            cut = min(cut, limit)
        line, self.buffer = self.buffer[:cut], self.buffer[cut:]
        return line


def run(settings: Settings) -> None:
    """Serve stdin/stdout. The wire keeps a private copy of file descriptor 1, and fd 1
    (and ``sys.stdout``) then point at stderr: a stray print cannot corrupt the wire."""
    wire_out: BinaryIO = sys.stdout.buffer
    try:
        sys.stdout.flush()
        wire_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
        sys.stdout = sys.stderr
    except (OSError, ValueError, AttributeError):
        pass  # no real descriptors (embedded, tests): serve the stream as it is
    from memgraph.terminal import interactive_stdin

    wire_in: Any = TerminalLines(sys.stdin.fileno()) if interactive_stdin() else sys.stdin.buffer
    server = LeanServer(settings)
    try:
        server.serve(wire_in, wire_out)
    finally:
        server.close()
        with contextlib.suppress(OSError, ValueError):
            wire_out.close()  # a client gone mid-reply: nothing left to flush at exit
