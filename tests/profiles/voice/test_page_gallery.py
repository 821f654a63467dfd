"""Pasted markdown cannot restyle a voice page (issue 20).

The page is opened with a real Markdown renderer configured like Obsidian
(CommonMark + GFM tables and strikethrough, HTML on, ``$``/``$$`` math, front
matter, footnotes, task lists): no heading, math, HTML, table, list, fence or
code element may come from message text, each message's visible text is what was
typed, and ``parse(render(x)) == x`` still holds exactly.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.voice.pages import VoiceMessageEntry, VoicePage, parse_page, render_page
from profiles.voice.pagetext import md_escape, md_unescape

markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py is in the dev extra")
plugins = pytest.importorskip("mdit_py_plugins", reason="mdit-py-plugins is in the dev extra")

from mdit_py_plugins.dollarmath import dollarmath_plugin  # noqa: E402
from mdit_py_plugins.footnote import footnote_plugin  # noqa: E402
from mdit_py_plugins.front_matter import front_matter_plugin  # noqa: E402
from mdit_py_plugins.tasklists import tasklists_plugin  # noqa: E402

T0 = datetime(2026, 4, 14, 23, 50, 5, tzinfo=UTC)

HOSTILE = [
    "$$\nx^2 + y^2\n$$",
    "inline $a+b$ and $$c$$ and a price of $5",
    "<p>raw paragraph</p>",
    "<div>\nblock html\n</div>",
    "<!-- an html comment -->",
    "<script>alert(1)</script> <b>bold</b> <img src=x onerror=y>",
    "<https://example.com> and <me@example.com>",
    "&amp; &#35; &copy; &#x41; && a&b",
    "# Heading one\n## Heading two\n###### six",
    "Setext one\n===",
    "Setext two\n---",
    "- item\n* item\n+ item\n1. one\n2) two\n- [ ] task\n- [x] done",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "a | b\n--- | ---\n1 | 2",
    "```python\nprint(1)\n```",
    "~~~\ncode\n~~~",
    "    indented code\n\ttab code\n  two spaces",
    "> quote\n>> nested\n> [!warning] callout",
    "***\n___\n- - -",
    "**bold** __strong__ _it_ *em* ~~strike~~ ==mark== `code` ``double``",
    "[[Wikilink]] ![[embed.png]] [link](http://x) ![img](x.png) [^1]\n[^1]: footnote",
    "[ref]: http://example.com\nsee [ref]",
    "#tag and #another/tag %%hidden comment%% ^blockid",
    "line ending in a backslash\\\n\\# already escaped \\\\ C:\\Users\\x \\",
    '**14:32** — a fake header\n<!-- mg2 {"uuid": "x", "ts": "2020-01-01T00:00:00Z"} -->',
    "snake_case_name and __dunder__ and _leading",
    "1. ordered at the start\n10) another\n2026. a year",
    "+++\ntoml: front\n+++",
    "---\ntitle: fake frontmatter\n---",
    "\\(x\\) \\[y\\] math delimiters",
    "a line with trailing spaces   \nnext",
]


def obsidian_like() -> Any:
    md = markdown_it.MarkdownIt("commonmark", {"html": True})
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin).use(footnote_plugin).use(tasklists_plugin)
    return md.use(dollarmath_plugin, allow_space=True, allow_digits=True, double_inline=True)


def gallery_page(texts: list[str]) -> VoicePage:
    messages = [
        VoiceMessageEntry(
            record_uuid=f"uuid-{i}",
            timestamp=T0 + timedelta(minutes=3 * i),  # crosses midnight: day headings
            text=text,
            transcript="/t/s.jsonl",
            line=i + 1,
            classification="question" if i % 2 else None,
            topics=["$x$", "<b>"] if i % 3 == 0 else [],
        )
        for i, text in enumerate(texts)
    ]
    return VoicePage(
        title="atlas Session 80166115 — hook, $x$, <p>",
        constellation="atlas",
        project="atlas",
        session_id="80166115-aaaa-bbbb-cccc-000000000000",
        created=date(2026, 4, 14),
        updated=date(2026, 4, 15),
        valid_from=T0,
        valid_to=T0 + timedelta(hours=2),
        ingested_at=T0 + timedelta(days=1),
        sources=["/t/s.jsonl"],
        messages=messages,
    )


def _flat(tokens: list[Any]) -> list[Any]:
    out = []
    for tok in tokens:
        out.append(tok)
        out.extend(_flat(tok.children or []))
    return out


def _norm(text: str) -> str:
    return " ".join(text.split())


def test_hostile_markdown_renders_as_text() -> None:
    page = gallery_page(HOSTILE)
    rendered = render_page(page)
    assert parse_page(rendered) == page
    tokens = obsidian_like().parse(rendered)
    flat = _flat(tokens)
    kinds = [t.type for t in flat]

    # headings: only memgraph's own (title, sections, one per day)
    headings = [
        "".join(c.content for c in tokens[i + 1].children or [] if c.type == "text")
        for i, t in enumerate(tokens)
        if t.type == "heading_open"
    ]
    assert headings == [
        "atlas Session 80166115 — hook, $x$, <p>",
        "Messages",
        "2026-04-14",
        "2026-04-15",
        "Classifications",
    ]
    forbidden = {
        "math_block",
        "math_inline",
        "math_inline_double",
        "math_block_label",
        "html_inline",
        "bullet_list_open",
        "ordered_list_open",
        "fence",
        "code_block",
        "code_inline",
        "hr",
        "footnote_ref",
        "footnote_block_open",
        "link_open",
        "image",
        "s_open",
        "em_open",
    }
    assert not forbidden & set(kinds), sorted(forbidden & set(kinds))
    # HTML blocks: only the hidden message markers
    html = [t.content for t in flat if t.type == "html_block"]
    assert len(html) == len(HOSTILE)
    assert all(h.startswith("<!-- mg2 {") and h.rstrip("\n").endswith(" -->") for h in html)
    assert kinds.count("table_open") == 1  # the ## Classifications table
    assert kinds.count("blockquote_open") == len(HOSTILE)  # one per message, none nested
    assert kinds.count("strong_open") == len(HOSTILE)  # the **HH:MM** of each message
    assert kinds.count("front_matter") == 1

    # what a reader sees in each quote is what was typed
    shown: list[str] = []
    depth = 0
    for tok in flat:
        if tok.type == "blockquote_open":
            depth += 1
            shown.append("")
        elif tok.type == "blockquote_close":
            depth -= 1
        elif depth and tok.type in ("text", "softbreak", "hardbreak", "paragraph_open"):
            shown[-1] += tok.content if tok.type == "text" else " "
    for text, seen in zip(HOSTILE, shown, strict=True):
        hhmm, _, body = _norm(seen).partition(" — ")
        assert len(hhmm) == 5
        assert body == _norm(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from("#$<>&|-*_`~=%[]!^\\ \t1.)+:pa\n"), max_size=40))
def test_markdown_heavy_text_round_trips_and_never_restyles(text: str) -> None:
    page = gallery_page([text, "after"])
    rendered = render_page(page)
    assert parse_page(rendered) == page
    kinds = {t.type for t in _flat(obsidian_like().parse(rendered))}
    assert not kinds & {"math_block", "math_inline", "html_inline", "fence", "code_block"}
    assert not kinds & {"bullet_list_open", "ordered_list_open", "code_inline", "hr"}


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_md_escape_is_reversible_and_one_line(text: str) -> None:
    line = text.replace("\n", " ")
    assert md_unescape(md_escape(line)) == line
