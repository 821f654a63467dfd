"""The SessionStart hook's budget: a bad value is named in the hook's words (it was
Python's "invalid literal for int() with base 10: 'abc'")."""

from __future__ import annotations

import io
import json
import sys

import pytest

from memgraph.cli import hook_fast
from profiles.wakeup.hook import load_config


@pytest.mark.parametrize("value", ["abc", "1.5", "0", "-3", " ", "2000000"])
def test_a_bad_hook_budget_is_named(value: str) -> None:
    """2,000,000: above the ceiling every surface has (``context_cut.budget.MAX_BUDGET``)."""
    with pytest.raises(ValueError) as caught:
        load_config({"MEMGRAPH_HOOK_BUDGET": value}, {})
    assert str(caught.value) == (
        "the hook budget (--budget or MEMGRAPH_HOOK_BUDGET) must be 1 to 200000 "
        f"tokens, not {value!r}"
    )


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_home_is_named_not_the_default_home(value: str) -> None:
    """The SessionStart hook read ``MEMGRAPH_HOME=`` as unset and woke from the default
    home: another store than the one the person set (and the end hook refuses)."""
    with pytest.raises(ValueError, match=r"MEMGRAPH_HOME\) is empty"):
        load_config({"MEMGRAPH_HOME": value}, {})


def test_a_good_hook_budget_is_read() -> None:
    assert load_config({"MEMGRAPH_HOOK_BUDGET": "120"}, {}).budget == 120
    assert load_config({}, {"hook_budget": "90"}).budget == 90


def test_session_start_with_a_bad_budget_says_why_and_never_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"session_id": "s1"}')))
    assert hook_fast.run(["session-start", "--budget", "abc"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == ""
    assert err == (
        "memgraph hook session-start: the hook budget (--budget or MEMGRAPH_HOOK_BUDGET) "
        "must be 1 to 200000 tokens, not 'abc'\n"
    )
