"""Message text on a voice page: one logical line -> one markdown line, reversibly.

Two layers, applied in this order on render and undone in reverse on parse:

1. ``escape_line``: characters a markdown line cannot hold (controls, CR, NUL,
   lone surrogates, line separators, BOM, non-characters) become ``\\u{hex}``;
   a literal backslash that would start such a sequence is ``\\u{5c}``.
2. ``md_escape`` (pages written since issue 20, marker ``<!-- mg2``): whatever
   Markdown, Obsidian or math could read as structure is backslash-escaped
   (CommonMark shows ``\\#`` as ``#``), so pasted ``$$`` blocks, ``<p>``, headings,
   list markers, tables, code fences, ``[[links]]``, ``#tags``, ``%%comments%%``
   and ``==highlights==`` render as the text that was typed. Leading whitespace
   (an indented code block) is written as a character reference (``&#32;``).

``md_unescape`` removes the backslash before any ASCII punctuation character
and decodes a leading ``&#32;``/``&#9;``; ``md_escape`` writes ``\\\\`` for every
backslash that precedes punctuation (or ends the line), so
``md_unescape(md_escape(s)) == s`` for every string ``s``.
"""

from __future__ import annotations

import re

_CODE = re.compile(r"\\u\{([0-9a-f]{1,6})\}")
# controls (not tab), DEL/C1, lone surrogates, line/paragraph separators, BOM and
# non-characters; plus a backslash that would otherwise read as an escape
_SPECIAL = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\ufeff\ufffe\uffff]|\\(?=u\{)"
)
PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# escaped wherever they stand: inline structure (math, code spans, emphasis,
# tables, links and embeds, tags, block ids)
_ALWAYS = frozenset("$`*|[#^")
# escaped when doubled: strikethrough / fences, highlights, Obsidian comments
_DOUBLED = frozenset("~=%")
# escaped as the first character of a line: block structure
_LINE_START = frozenset("-+>=~:")
_ORDERED = re.compile(r"\d{1,9}[.)]")
_LEAD = {" ": "&#32;", "\t": "&#9;"}
# every character md_escape may change (PUNCT includes the backslash)
_PUNCT_RE = re.compile("[" + re.escape("".join(sorted(PUNCT))) + "]")


def escape_line(text: str) -> str:
    """Make one logical line safe for a markdown line, reversibly."""
    return _SPECIAL.sub(lambda m: f"\\u{{{ord(m.group(0)):x}}}", text)


def unescape_line(text: str) -> str:
    def decode(m: re.Match[str]) -> str:
        code = int(m.group(1), 16)
        return chr(code) if code <= 0x10FFFF else m.group(0)

    return _CODE.sub(decode, text)


def _needs(text: str, i: int) -> bool:
    c = text[i]
    if c in _ALWAYS:
        return True
    prev = text[i - 1] if i else ""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if c in _DOUBLED and c in (prev, nxt):
        return True
    if i == 0 and c in _LINE_START:
        return True
    if c == "_":  # only word-internal underscores can never be emphasis
        return not (prev.isalnum() and nxt.isalnum())
    if c == "<":  # raw HTML, comments, autolinks
        return nxt.isascii() and (nxt.isalpha() or nxt in "/!?")
    if c == "&":  # entity and character references
        return nxt == "#" or (nxt.isascii() and nxt.isalpha())
    return False


def md_escape(text: str) -> str:
    """Backslash-escape what Markdown would read as structure (see module doc)."""
    out: list[str] = []
    start = 0
    if text and text[0] in _LEAD:
        out.append(_LEAD[text[0]])
        start = 1
    ordered = _ORDERED.match(text)
    mark = ordered.end() - 1 if ordered else -1
    n = len(text)
    done = start  # text[start:done] is in ``out``; only punctuation may change
    for found in _PUNCT_RE.finditer(text, start):
        i = found.start()
        c = text[i]
        if c == "\\":
            nxt = text[i + 1] if i + 1 < n else ""
            sub = "\\\\" if nxt == "" or nxt in PUNCT else "\\"
        elif i == mark or _needs(text, i):
            sub = "\\" + c
        else:
            continue
        out.append(text[done:i])
        out.append(sub)
        done = i + 1
    out.append(text[done:])
    return "".join(out)


def md_unescape(text: str) -> str:
    """The inverse of ``md_escape`` (for any string ``md_escape`` can produce)."""
    prefix = ""
    for lead, ref in _LEAD.items():
        if text.startswith(ref):
            prefix, text = lead, text[len(ref) :]
            break
    if "\\" not in text:
        return prefix + text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in PUNCT:
            out.append(text[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return prefix + "".join(out)


def display_escape(text: str) -> str:
    """One line of human-only text (title heading, table cell): both layers."""
    return md_escape(escape_line(text))
