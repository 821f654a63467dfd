"""Request lines and argument checks before a tool runs (memgraph/mcp_wire.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgraph.mcp_wire import (
    MAX_QUERY_CHARS,
    SURROGATE_MARK,
    check_query,
    check_text_args,
    sanitise_line,
)


def test_lone_surrogate_escape_becomes_the_mark() -> None:
    line = '{"jsonrpc":"2.0","id":1,"params":{"q":"a\\ud800b"}}\n'
    out = json.loads(sanitise_line(line))
    assert out["params"]["q"] == f"a{SURROGATE_MARK}b"
    assert out["id"] == 1


def test_valid_pair_and_plain_lines_pass_untouched() -> None:
    pair = '{"q":"\\ud83d\\ude00"}\n'
    assert sanitise_line(pair) == pair
    plain = '{"q":"plain"}\n'
    assert sanitise_line(plain) == plain
    broken = '{"q":"\\ud800'
    assert sanitise_line(broken) == broken  # the SDK answers a parse error itself


@given(st.text(max_size=200))
def test_any_line_comes_back_as_text_that_encodes(line: str) -> None:
    out = sanitise_line(line)
    out.encode("utf-8", "surrogatepass")
    if "\\u" not in line:
        assert out == line


def test_argument_checks_name_the_argument() -> None:
    with pytest.raises(ValueError, match="'text'"):
        check_text_args({"text": f"x{SURROGATE_MARK}"})
    check_text_args({"text": "fine", "limit": 3})
    with pytest.raises(ValueError, match="characters"):
        check_query("x" * (MAX_QUERY_CHARS + 1))
    with pytest.raises(ValueError, match="terms"):
        check_query("w " * 201, "text")
