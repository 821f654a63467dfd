"""``page_lines``: the one place a page's leading ``---`` block is found.

Voice pages and window notes are files a person edits, so the split must be the
one the block splitters (``pageblocks.split_blocks``, ``pagedigest.owned_digest_of``,
``winnote.split_note``) and ``split_frontmatter`` each made before it was shared.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from profiles.voice.frontmatter import PageError, page_lines, split_frontmatter

# a line: no newline in it, and no CR at its end (which would pair with the next LF)
_line = st.text(st.characters(exclude_characters="\n"), max_size=12).filter(
    lambda s: not s.endswith("\r")
)
_front = st.lists(_line.filter(lambda s: s != "---"), max_size=6)
_lines = st.lists(_line | st.just("---"), max_size=8)


def _old_split(text: str) -> tuple[list[str], int]:
    """The loop each block splitter held before ``page_lines`` (the reference)."""
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    if lines and lines[0] == "---":
        try:
            end = lines.index("---", 1)
        except ValueError:
            end = -1
        if end > 0:
            i = end + 1
    return lines, i


def _render(front: list[str] | None, body: list[str]) -> str:
    head = [] if front is None else ["---", *front, "---"]
    return "\n".join([*head, *body])


@given(st.text(st.sampled_from(["-", "\r", "\n", "a", " ", "\ufeff"]), max_size=30))
def test_same_split_as_the_loop_it_replaces(text: str) -> None:
    assert page_lines(text) == _old_split(text)


@given(st.text(max_size=60))
def test_same_split_as_the_loop_it_replaces_any_text(text: str) -> None:
    assert page_lines(text) == _old_split(text)


@given(_front, _lines)
def test_round_trip(front: list[str], body: list[str]) -> None:
    lines, size = page_lines(_render(front, body))
    assert (lines[1 : size - 1], lines[size:]) == (front, body)


@given(_front, _lines)
def test_crlf_is_lf(front: list[str], body: list[str]) -> None:
    text = _render(front, body)
    assert page_lines(text.replace("\n", "\r\n")) == page_lines(text)


@given(_lines)
def test_no_frontmatter(body: list[str]) -> None:
    text = _render(None, body)
    lines, size = page_lines(text)
    assert lines == text.split("\n")
    if not body or body[0] != "---":
        assert size == 0


@given(_front)
def test_unterminated_is_no_frontmatter(front: list[str]) -> None:
    text = "\n".join(["---", *front])
    assert page_lines(text) == (text.split("\n"), 0)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("", 0),
        ("---", 0),
        ("---\n", 0),
        ("---\n---", 2),
        ("---\n---\n", 2),
        ("---\na: 1\n---\nbody\n---\nmore", 3),  # a fence in the body is body
        ("---\r\na: 1\r\n---\r\nbody", 3),
        ("\ufeff---\na: 1\n---\n", 0),  # a BOM is text here
        (" ---\na: 1\n---\n", 0),
        ("--- \na: 1\n---\n", 0),
        ("---\na: 1\n--- \n", 0),
        ("---\r\na: 1\n---\r", 0),  # a lone CR stays in its line
    ],
)
def test_edge_cases(text: str, size: int) -> None:
    assert page_lines(text)[1] == size


def test_split_frontmatter_edges_unchanged() -> None:
    assert split_frontmatter("\ufeff---\r\na: 1\r\n---\r\nbody\r\n") == ({"a": 1}, ["body", ""], 4)
    assert split_frontmatter("---\na: 1\n---\nx\n---\ny") == ({"a": 1}, ["x", "---", "y"], 4)
    for text in ("", "body", "\ufeff\ufeff---\n---"):
        with pytest.raises(PageError, match="no YAML frontmatter"):
            split_frontmatter(text)
    for text in ("---", "---\na: 1", "---\r\na: 1\r\n--- "):
        with pytest.raises(PageError, match="not closed"):
            split_frontmatter(text)


def test_a_page_read_again_is_parsed_once_and_each_caller_gets_its_own_copy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One re-render read a page's frontmatter up to 8 times, each a pure-Python YAML
    parse (~4 ms): `windows` over 2,000 pages spent most of its minute there. The text
    read from disk is parsed once; a caller that changes its mapping changes no other's."""
    import yaml

    from profiles.voice import frontmatter

    frontmatter._PARSED.clear()
    parsed: list[str] = []
    real = yaml.load

    def counting(stream: str, Loader: object) -> object:
        if Loader is frontmatter._NoAliasLoader:  # the pure-Python one, not libyaml's try
            parsed.append(stream)
        return real(stream, Loader=Loader)  # type: ignore[arg-type]

    monkeypatch.setattr(frontmatter.yaml, "load", counting)
    page = "---\ntitle: hand edited\ntags:\n- voice\nnested:\n  a: [1, 2]\n---\nbody\n"
    first, body, _ = frontmatter.split_frontmatter(page)
    first["tags"].append("changed by a caller")
    first["nested"]["a"].append(3)
    second, _, _ = frontmatter.split_frontmatter(page)
    assert second == {"title": "hand edited", "tags": ["voice"], "nested": {"a": [1, 2]}}
    assert body == ["body", ""] and len(parsed) == 1
    broken = "---\ntitle: [unclosed\n---\n"
    for _ in range(2):  # an error is not kept: each read says it
        with pytest.raises(frontmatter.PageError, match="not valid YAML"):
            frontmatter.split_frontmatter(broken)
    assert len(parsed) == 3
