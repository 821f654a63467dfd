"""The argv shim of the lean paths: what it takes, and that it hands anything
unsure to typer (None) instead of guessing or failing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memgraph.cli.lean_args import Spec, parse, parse_strings


def spec(text: str = "one") -> Spec:
    return Spec(
        valued={"--home": "home", "-n": "limit", "--limit": "limit"},
        flags={"--json": "as_json", "-q": "quiet"},
        ints=("limit",),
        short=("-n",),
        text=text,
    )


SPEC = spec()


def test_text_modes() -> None:
    one, optional, none = (
        SPEC,
        spec("optional"),
        spec("none"),
    )
    assert parse(["x", "--home=h", "-n", "3", "--json"], one) == {
        "text": "x",
        "home": "h",
        "limit": 3,
        "as_json": True,
    }
    assert parse([], one) is None and parse(["a", "b"], one) is None
    assert parse([], optional) == {} and parse(["p"], optional) == {"text": "p"}
    assert parse(["a", "b"], optional) is None
    assert parse([], none) == {} and parse(["a"], none) is None
    assert parse(["--", "-x"], one) == {"text": "-x"}  # after --, a dash is text


def test_unsure_is_none() -> None:
    for argv in (
        ["x", "--help"],
        ["x", "--home"],
        ["x", "-n=3"],
        ["x", "-n", "three"],
        ["x", "--bogus"],
    ):
        assert parse(argv, SPEC) is None, argv


def test_parse_strings_turns_flags_into_one() -> None:
    assert parse_strings(["x", "-q", "--home", "h", "-n", "3"], SPEC) == {
        "text": "x",
        "quiet": "1",
        "home": "h",
        "limit": "3",
    }
    assert parse_strings(["x", "--bogus"], SPEC) is None


@given(
    st.lists(
        st.sampled_from(["x", "-", "--", "--home", "--home=", "-n", "5", "--json", "-q", "=", ""])
        | st.text(max_size=8),
        max_size=8,
    )
)
def test_any_argv_is_parsed_or_none(argv: list[str]) -> None:
    for text in ("one", "optional", "none"):
        found = parse(argv, spec(text))
        assert found is None or set(found) <= {"text", "home", "limit", "as_json", "quiet"}
