"""tagblocks: the prefilter's tagged blocks give the old regexes' answers, in linear time."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from profiles.voice import prefilter, tagblocks
from profiles.voice.readers import templates

# The regexes tagblocks replaced (prefilter before 2026-12-05): quadratic in repeated
# opening tags with no closing tag after them.
OLD_IDE = re.compile(r"<(ide_selection|ide_opened_file)>.*?</\1>\s*", re.S)
OLD_CONTEXT = re.compile(r'\s*<context ref="[^"]*">.*?</context>\s*', re.S)
OLD_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.S)
OLD_CMD = re.compile(r"<command-name>(.*?)</command-name>", re.S)
OLD_ASK = re.compile(r'"=\s*"(.*?)"(?= user notes:|, "|\. You can now continue)', re.S)

PIECES = [
    "<ide_selection>",
    "</ide_selection>",
    "<ide_opened_file>",
    "</ide_opened_file>",
    '<context ref="a.py">',
    '<context ref="',
    "</context>",
    "<system-reminder>",
    "</system-reminder>",
    "<command-name>",
    "</command-name>",
    '"="',
    '"= "',
    '"',
    " user notes:",
    ', "',
    ". You can now continue",
    " ",
    "\n",
    "\t",
    "\u00a0",
    "x",
    "ok",
]
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)


@settings(max_examples=400)
@given(texts)
def test_strip_is_the_old_sub(text: str) -> None:
    assert tagblocks.strip(text, prefilter._IDE_OPEN, prefilter._IDE_CLOSE) == OLD_IDE.sub("", text)
    close = prefilter._CLOSE
    got = tagblocks.strip(text, prefilter._CONTEXT_REF, close["context"], lead=True)
    assert got == OLD_CONTEXT.sub("", text)
    got = tagblocks.strip(text, prefilter._REMINDER, close["system-reminder"])
    assert got == OLD_REMINDER.sub("", text)


@settings(max_examples=400)
@given(texts)
def test_first_inner_and_inners_are_the_old_search_and_findall(text: str) -> None:
    old = OLD_CMD.search(text)
    got = tagblocks.first_inner(text, prefilter._CMD_NAME, prefilter._CLOSE["command-name"])
    assert got == (old.group(1) if old else None)
    assert tagblocks.inners(text, prefilter._ASK_OPEN, prefilter._ASK_CLOSE) == OLD_ASK.findall(
        text
    )


def test_the_prefilter_still_strips_what_front_ends_add() -> None:
    text = (
        "<ide_selection>code</ide_selection>  fix this <system-reminder>r</system-reminder>"
        'please\n<context ref="a.py">body</context>\n'
    )
    verdict = prefilter.classify_text(text)
    assert verdict.keep and verdict.text == "fix this please"
    slash = prefilter.classify_text(
        "<command-name>/model</command-name><command-args>opus</command-args>"
    )
    assert slash.text == "/model opus"


def test_repeated_unclosed_tags_do_not_backtrack() -> None:
    # 200,000 opening tags (3.4 MB) with no closing tag: every old regex scanned to the
    # end from each one (hours); a hang would fail CI, there is no timing assertion
    for opener in ("<system-reminder>", "<ide_selection>", '<context ref="x">', '"="'):
        text = "typed words " + opener * 200_000
        verdict = prefilter.classify_text(text)
        assert verdict.keep and verdict.text.startswith("typed words")
    name = tagblocks.first_inner(
        "<command-name>" * 200_000, prefilter._CMD_NAME, prefilter._CLOSE["command-name"]
    )
    assert name is None


OLD_USER_INPUT = re.compile(
    r"^#{1,6}[ \t]*User Input[ \t]*\n+[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)\n?[ \t]*\1[ \t]*$",
    re.M | re.S | re.I,
)
TEMPLATE_PIECES = [
    "## User Input\n",
    "### user input  \n",
    "\n",
    "```",
    "~~~",
    "```text\n",
    "```\n",
    "~~~\n",
    "  ",
    "\t",
    "$ARGUMENTS",
    "fix it",
    "x",
    "# Title\n",
]


@settings(max_examples=400)
@given(st.lists(st.sampled_from(TEMPLATE_PIECES), max_size=12).map("".join))
def test_the_user_input_block_is_the_old_regexes_with_fences_of_three(text: str) -> None:
    # the old regex could also close a longer opening fence with a shorter one (by
    # backtracking into the fence); the new one takes the fence whole: compared where
    # every fence is three long
    assume(not re.search(r"`{4,}|~{4,}", text))
    old = OLD_USER_INPUT.search(text)
    got = tagblocks.first_inner(text, templates._USER_INPUT, templates._fence_end)
    assert got == (old.group(2) if old else None)
    stripped = tagblocks.strip(text, templates._USER_INPUT, templates._fence_end, trail=False)
    assert stripped == OLD_USER_INPUT.sub("", text)


def test_template_blocks_do_not_backtrack() -> None:
    # 100,000 headings with no closing fence, and one fence of 100,000 backticks: both
    # were quadratic (8,000 headings took 21 s, a 2,000-backtick fence 2.8 s)
    assert templates.split_template("## User Input\n```x\n" * 100_000) is None
    long_fence = "## User Input\n" + "`" * 100_000 + "x\n" + "a" * 500_000
    assert templates.split_template(long_fence) is None
    typed = templates.split_template("# Fix\n## User Input\n```text\nfix the cache\n```\n")
    assert typed is not None and typed.args == "fix the cache"
