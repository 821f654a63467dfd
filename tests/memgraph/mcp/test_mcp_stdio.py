"""The lean stdio loop (memgraph/mcp_stdio.py), in process: every line gets an answer.

Protocol replies, malformed and hostile lines, argument checks, and tools/list
against the schemas the MCP SDK derives from the same tool functions.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgraph import mcp_stdio
from memgraph.config import load_settings
from memgraph.mcp_stdio import LeanServer
from memgraph.mcp_wire import MAX_QUERY_TERMS

Seed = Callable[[Path], dict[str, str]]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory, seed_store: Seed) -> dict[str, str]:
    return seed_store(tmp_path_factory.mktemp("lean"))


@pytest.fixture(scope="module")
def fuzz_server(seeded: dict[str, str]) -> Iterator[LeanServer]:
    lean = LeanServer(load_settings(home=Path(seeded["MEMGRAPH_HOME"])))
    yield lean
    lean.close()


@pytest.fixture
def server(seeded: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[LeanServer]:
    for key, value in seeded.items():
        monkeypatch.setenv(key, value)
    lean = LeanServer(load_settings())
    yield lean
    lean.close()


def ask(server: LeanServer, message: Any) -> dict[str, Any]:
    raw = message if isinstance(message, bytes) else json.dumps(message).encode()
    reply = server.handle_line(raw + b"\n")
    assert reply is not None and reply.endswith(b"\n") and reply.count(b"\n") == 1
    out: dict[str, Any] = json.loads(reply)
    assert out["jsonrpc"] == "2.0"
    return out


def call(server: LeanServer, tool: str, arguments: Any, rid: int = 7) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return ask(server, {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})


def req(method: str, params: Any = None, rid: Any = 1) -> dict[str, Any]:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def test_initialize_negotiates_the_protocol_version(server: LeanServer) -> None:
    info = {"name": "t", "version": "0"}
    for asked, given_back in (
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", "2024-11-05"),
        ("2031-01-01", "2025-11-25"),  # unknown: the newest we speak; the client decides
    ):
        out = ask(server, req("initialize", {"protocolVersion": asked, "clientInfo": info}))
        assert out["id"] == 1
        assert out["result"]["protocolVersion"] == given_back
        assert out["result"]["serverInfo"]["name"] == "memgraph"
        assert out["result"]["capabilities"] == {"tools": {"listChanged": False}}
    bad = ask(server, req("initialize", {"capabilities": {}}))
    assert bad["error"]["code"] == -32602


def test_ping_notifications_and_empty_lists(server: LeanServer) -> None:
    assert ask(server, req("ping", rid="p-1")) == {"jsonrpc": "2.0", "id": "p-1", "result": {}}
    for note in (b'{"jsonrpc":"2.0","method":"notifications/initialized"}', b"", b"   "):
        assert server.handle_line(note + b"\n") is None
    cancelled = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"x": 1}}
    assert server.handle_line(json.dumps(cancelled).encode()) is None
    assert server.handle_line(b'{"jsonrpc":"2.0","id":3,"result":{}}') is None  # a reply
    assert ask(server, req("prompts/list"))["result"] == {"prompts": []}
    assert ask(server, req("resources/list"))["result"] == {"resources": []}


@pytest.mark.parametrize(
    ("line", "code", "rid"),
    [
        (b"not json", -32700, None),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping"', -32700, None),  # cut short
        (b"[" * 100_000, -32700, None),  # nesting past the parser's recursion limit
        # parsed, then deep enough for the surrogate pass to recurse out
        (b"[" * 900 + b'"\\u0041"' + b"]" * 900, -32700, None),
        (b'{"id": 1e999999}', -32600, None),
        (b"\xff\xfe{}", -32700, None),  # not UTF-8, and then not JSON
        (b"[]", -32600, None),
        (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, None),  # no batches
        (b"42", -32600, None),
        (b'{"jsonrpc":"2.0","id":4}', -32600, 4),  # no method
        (b'{"jsonrpc":"1.0","id":4,"method":"ping"}', -32600, 4),
        (b'{"jsonrpc":"2.0","id":5,"method":7}', -32600, 5),
        (b'{"jsonrpc":"2.0","method":"tools/list"}', -32600, None),  # a request, no id
        (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600, None),
        (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, None),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, None),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, None),
        (b'{"jsonrpc":"2.0","id":6,"method":"nope"}', -32601, 6),
        (b'{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{}}', -32601, 6),
        (b'{"jsonrpc":"2.0","id":6,"method":"notifications/initialized"}', -32601, 6),
        (b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":[1]}', -32602, 8),
        (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}', -32602, 8),
        (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope"}}', -32602, 8),
        (
            b'{"jsonrpc":"2.0","id":8,"method":"tools/call",'
            b'"params":{"name":"voice_search","arguments":[1]}}',
            -32602,
            8,
        ),
        (b'{"jsonrpc":"2.0","id":"\\ud800","method":"nope"}', -32601, "\U0010fffe"),
    ],
)
def test_malformed_lines_get_a_json_rpc_error(
    server: LeanServer, line: bytes, code: int, rid: Any
) -> None:
    out = ask(server, line)
    assert out["error"]["code"] == code, out
    assert out["id"] == rid
    assert out["error"]["message"]


def test_tools_call_matches_the_tool_and_the_sdk_shape(server: LeanServer) -> None:
    direct = server.tools.voice_search("backoff")
    out = call(server, "voice_search", {"query": "backoff"})["result"]
    assert out["isError"] is False
    assert out["structuredContent"] == {"result": direct}
    assert [json.loads(block["text"]) for block in out["content"]] == direct
    assert out["content"][0]["text"] == json.dumps(direct[0], indent=2, ensure_ascii=False)
    stats = call(server, "voice_stats", {})["result"]
    assert stats["structuredContent"]["messages"] >= 10
    assert json.loads(stats["content"][0]["text"]) == stats["structuredContent"]
    empty = call(server, "voice_search", {"query": "zzqqxxnothing"})["result"]
    assert empty == {"content": [], "structuredContent": {"result": []}, "isError": False}


@pytest.mark.parametrize(
    ("tool", "arguments", "expect"),
    [
        ("voice_search", {}, "missing required argument 'query'"),
        ("voice_search", {"query": "x", "limit": "many"}, "'limit' must be an integer"),
        ("voice_search", {"query": "x", "limit": True}, "'limit' must be an integer"),
        ("voice_search", {"query": "x", "limit": 0}, "between 1 and 500"),
        ("voice_search", {"query": 5}, "'query' must be a string"),
        ("voice_search", {"query": None}, "'query' must be a string"),
        ("voice_search", {"query": "x", "since": "not-a-date"}, "since"),
        ("voice_search", {"query": "x", "all": "maybe"}, "'all' must be true or false"),
        ("voice_search", {"query": "x", "session_id": "s"}, "does not take 'session_id'"),
        ("voice_search", {"query": "a\ud800b"}, "'query'"),
        ("voice_search", {"query": "w " * (MAX_QUERY_TERMS + 1)}, "at most"),
        ("remember", {"text": "x", "file": "a.py"}, "'file' must be a list of strings"),
        ("remember", {"text": "x", "file": ["ok", "\udc00"]}, "'file'"),
        ("context", {"text": "cache", "cut": "nope"}, "cut must be one of"),
        # a class or project the index never had: refused as the CLI does, not []
        ("voice_search", {"query": "backoff", "type": "nope"}, "unknown class 'nope'; valid:"),
        ("voice_search", {"query": "x", "project": "nowhere"}, "no project 'nowhere' in the"),
        ("voice_stats", {"extra": 1}, "takes: no arguments"),
    ],
)
def test_bad_arguments_are_tool_errors_naming_them(
    server: LeanServer, tool: str, arguments: dict[str, Any], expect: str
) -> None:
    # a surrogate sent as a JSON escape, as a client would
    raw = json.dumps(req("tools/call", {"name": tool, "arguments": arguments}), ensure_ascii=True)
    out = ask(server, raw.encode())["result"]
    assert out["isError"] is True
    assert expect in out["content"][0]["text"], out
    assert out["content"][0]["text"].startswith(f"Error executing tool {tool}: ")


def test_deep_arguments_are_answered(server: LeanServer) -> None:
    deep = "[" * 950 + "1" + "]" * 950
    line = (
        '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"voice_search",'
        f'"arguments":{{"query":{deep}}}}}}}'
    )
    out = ask(server, line.encode())["result"]
    assert out["isError"] is True
    assert "'query' must be a string, not [[[" in out["content"][0]["text"]


def test_lax_arguments_the_sdk_accepted_still_work(server: LeanServer) -> None:
    out = call(server, "voice_search", {"query": "backoff", "limit": "2", "all": "true"})
    assert out["result"]["isError"] is False
    assert len(out["result"]["structuredContent"]["result"]) <= 2
    as_float = call(server, "voice_search", {"query": "backoff", "limit": 1.0})["result"]
    assert len(as_float["structuredContent"]["result"]) == 1


def test_a_failing_tool_is_a_tool_error_and_the_server_lives_on(
    server: LeanServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> dict[str, Any]:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(server.tools, "voice_stats", broken)
    out = call(server, "voice_stats", {})["result"]
    assert out == {
        "content": [
            {"type": "text", "text": "Error executing tool voice_stats: disk on fire second line"}
        ],
        "isError": True,
    }
    assert call(server, "voice_search", {"query": "backoff"})["result"]["isError"] is False


def test_tools_list_is_what_the_sdk_derives_from_the_same_functions(
    server: LeanServer,
) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from memgraph.mcp_server import build_server

    sdk = build_server(server.tools.settings)
    sdk_tools = [
        t.model_dump(mode="json", by_alias=True, exclude_none=True)
        for t in anyio.run(sdk.list_tools)
    ]
    lean = ask(server, req("tools/list"))["result"]["tools"]
    assert [t["name"] for t in lean] == [t["name"] for t in sdk_tools]
    for mine, theirs in zip(lean, sdk_tools, strict=True):
        assert mine == {k: theirs[k] for k in mine}, mine["name"]


def test_serve_answers_each_line_in_order_and_drops_an_oversized_one(
    server: LeanServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mcp_stdio, "MAX_LINE", 64)
    lines = [
        json.dumps(req("ping", rid=1)),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        json.dumps(req("ping", rid="x" * 200)),  # over MAX_LINE: refused, not parsed
        "garbage",
        json.dumps(req("ping", rid=4)),
    ]
    out = io.BytesIO()
    server.serve(io.BytesIO(("\n".join(lines) + "\n").encode()), out)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r.get("id") for r in replies] == [1, None, None, 4]
    assert [r.get("error", {}).get("code") for r in replies] == [None, -32600, -32700, None]


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(str.encode),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner),
            max_leaves=12,
        ).map(lambda v: json.dumps(v).encode()),
        st.fixed_dictionaries(
            {
                "jsonrpc": st.just("2.0"),
                "method": st.sampled_from(["tools/call", "tools/list", "initialize", "ping", "x"]),
            },
            optional={
                "id": st.integers() | st.text(),
                "params": st.dictionaries(st.text(), st.text()),
            },
        ).map(lambda v: json.dumps(v).encode()),
    )
)
def test_any_line_gets_one_json_reply_or_none(fuzz_server: LeanServer, line: bytes) -> None:
    reply = fuzz_server.handle_line(line.replace(b"\n", b" ") + b"\n")
    if reply is not None:
        assert reply.endswith(b"\n") and reply.count(b"\n") == 1
        msg = json.loads(reply)
        assert msg["jsonrpc"] == "2.0" and ("result" in msg) != ("error" in msg)


def test_terminal_lines_split_and_end_like_readline() -> None:
    """The terminal reader (select slices, for Ctrl-C) reads lines as readline does;
    a pipe stands in for the terminal's descriptor."""
    import os

    from memgraph.mcp_stdio import TerminalLines

    read, write = os.pipe()
    os.write(write, b'{"a":1}\n{"b":2}\nover-long-line\npartial')
    os.close(write)
    lines = TerminalLines(read)
    try:
        assert lines.readline(100) == b'{"a":1}\n'
        assert lines.readline(100) == b'{"b":2}\n'
        assert lines.readline(5) == b"over-"  # the limit cuts, the rest stays
        assert lines.readline(100) == b"long-line\n"
        assert lines.readline(100) == b"partial"  # the end without a newline
        assert lines.readline(100) == b""
    finally:
        os.close(read)


def test_the_mcp_command_help_names_every_tool(server: LeanServer) -> None:
    """`memgraph mcp --help` listed five of the seven tools (remember, propose missing)."""
    from memgraph.cli.mcp import mcp

    names = [t["name"] for t in ask(server, req("tools/list"))["result"]["tools"]]
    doc = " ".join((mcp.__doc__ or "").split())
    assert doc == f"Run the MCP server (tools: {', '.join(names)})."
