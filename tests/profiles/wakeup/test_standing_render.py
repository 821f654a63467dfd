"""``profiles.wakeup.standing.render``: sections within a token budget."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from profiles.wakeup.standing import Item, Section, estimate_tokens, render


def _section(key: str, n: int) -> Section:
    s = Section(key, f"{key} heading")
    s.items = [
        Item(f"n-{key}{i}", "node", "voice/decision", f"{key} item {i} " * 3) for i in range(n)
    ]
    if not n:
        s.empty = f"no {key} yet"
    return s


def test_a_heading_is_never_written_without_its_first_line() -> None:
    """A role prompt at a tight budget ended in '## Latest spark notes' and nothing."""
    sections = [_section("a", 1), _section("b", 2)]
    first_a, used_a, _ = render(sections[:1], 1000)
    budget = used_a + estimate_tokens("## b heading") + 1  # room for b's heading only
    text, used, left = render(sections, budget)
    assert "b heading" not in text and left == 2 and used <= budget
    assert text == first_a


@given(sizes=st.lists(st.integers(0, 3), min_size=1, max_size=5), budget=st.integers(0, 200))
def test_every_heading_has_a_line_under_it_and_the_budget_holds(
    sizes: list[int], budget: int
) -> None:
    sections = [_section(chr(97 + k), n) for k, n in enumerate(sizes)]
    text, used, left = render(sections, budget)
    lines = text.splitlines()
    assert used <= budget
    for k, line in enumerate(lines):
        if line.startswith("## "):
            assert k + 1 < len(lines) and lines[k + 1].startswith("- ")
    shown = sum(1 for line in lines if line.startswith("- ") and "(empty:" not in line)
    assert shown + left == sum(sizes)
