"""Tagged blocks in a message (``<system-reminder>...</system-reminder>``), found in
linear time.

The prefilter used to find them with regexes of the form ``OPEN(.*?)CLOSE``
(``re.S``). Those are quadratic when the opening tag repeats with no closing tag
after it: the engine scans to the end of the text from every opening tag. A
message of 4,000 ``<system-reminder>`` (68 KB) took 1.8 s per regex, and a
message line may hold 32 MB (``readers.jsonl.MAX_LINE_BYTES``), so a hostile
transcript could hang the SessionEnd hook. Here every opening tag is looked at
once, and a closing pattern that has no match after one position has none after
a later one either, so it is never searched again.

The results are the regexes' results (the tests compare them on generated text):
``blocks`` is ``finditer`` of ``OPEN(.*?)CLOSE``; ``strip`` is ``sub("", ...)``
of ``OPEN.*?CLOSE\\s*``, or of ``\\s*OPEN.*?CLOSE\\s*`` with ``lead=True``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

Closer = Callable[["re.Match[str]"], "re.Pattern[str]"]


@dataclass(frozen=True)
class Block:
    start: int  # the opening tag's first character
    inner: tuple[int, int]  # what lies between the tags
    end: int  # just after the closing tag


def closing(pattern: re.Pattern[str]) -> Closer:
    """A closer that does not depend on the opening tag."""
    return lambda _match: pattern


def closing_by(build: Callable[[str], re.Pattern[str]]) -> Closer:
    """A closer built from the opening tag's first group (``</NAME>`` for ``<NAME>``,
    the same fence), each built once."""
    built = functools.lru_cache(maxsize=64)(build)
    return lambda match: built(match.group(1))


def blocks(text: str, opener: re.Pattern[str], closer: Closer, pos: int = 0) -> Iterator[Block]:
    """Each ``OPEN(.*?)CLOSE`` block from ``pos`` on, leftmost first, not overlapping."""
    dead: set[str] = set()  # closing patterns with no match after some opening tag
    while True:
        found = opener.search(text, pos)
        if found is None:
            return
        close = closer(found)
        end = None if close.pattern in dead else close.search(text, found.end())
        if end is None:
            dead.add(close.pattern)
            pos = found.start() + 1  # where the regex would try next
            continue
        yield Block(found.start(), (found.end(), end.start()), end.end())
        pos = end.end()


def first_inner(text: str, opener: re.Pattern[str], closer: Closer) -> str | None:
    """What the first block holds between its tags (``search(...).group(1)``)."""
    for block in blocks(text, opener, closer):
        return text[block.inner[0] : block.inner[1]]
    return None


def inners(text: str, opener: re.Pattern[str], closer: Closer) -> list[str]:
    """What every block holds between its tags (``findall``)."""
    return [text[b.inner[0] : b.inner[1]] for b in blocks(text, opener, closer)]


def strip(
    text: str, opener: re.Pattern[str], closer: Closer, *, lead: bool = False, trail: bool = True
) -> str:
    """``text`` without its blocks and the whitespace after each (``trail``; and before
    each with ``lead``, never reaching back into what an earlier block left). One
    pass: an opening tag never starts with whitespace, so skipping the whitespace
    after a block does not change which block comes next."""
    out: list[str] = []
    pos = 0
    for block in blocks(text, opener, closer):
        start = block.start
        while lead and start > pos and text[start - 1].isspace():  # \s is str.isspace
            start -= 1
        out.append(text[pos:start])
        pos = block.end
        while trail and pos < len(text) and text[pos].isspace():
            pos += 1
    out.append(text[pos:])
    return "".join(out)
