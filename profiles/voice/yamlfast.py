"""The YAML of a page's frontmatter without the emitter, for the plain cases.

``dump_simple(data)`` returns exactly what ``frontmatter._dump_yaml`` gets from
``yaml.dump`` (libyaml's emitter, block style, unicode allowed, no line width)
for a mapping whose keys are plain words and whose values are strings, ints,
bools, None, dates or lists of those; None for anything else (the caller then
runs the emitter). A string is written plain when libyaml would write it plain,
quoted in single quotes when it would, and anything this module cannot decide
with certainty (breaks, tabs, control or astral characters, leading or trailing
spaces, indicator characters in the first place, ``: ``, `` #``) is left to the
emitter. ``tests/profiles/voice/test_yamlfast.py`` holds every answer to
``yaml.dump``'s and to the loader's reading of it.

Every value this module writes reads back as itself (the loader resolves a plain
string by the same rules that kept it plain), so the text memgraph just wrote
need not be parsed again: see ``frontmatter.split_frontmatter(ours=True)``.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import yaml
from yaml.resolver import Resolver

# Characters both libyaml and PyYAML call printable, with no line break among them
# (U+2028/2029 are breaks, U+FEFF a byte-order mark; astral characters are not
# printable to libyaml).
_SAFE = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]+")
# First characters that make a scalar quoted (``-``, ``?`` and ``:`` only when a
# space follows)
_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_MAX_KEY = 100  # libyaml writes a key of over 128 characters as a complex key
_resolve = Resolver().resolve  # the rules the dumper and the loaders resolve plain scalars by
_STR_TAG = "tag:yaml.org,2002:str"


def scalar(value: object) -> str | None:
    """The text libyaml writes for one scalar value (block context), or None."""
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if type(value) is int:
        return str(value)
    if type(value) is date:
        return value.isoformat()
    return None  # floats, datetimes, subclasses...: the emitter decides


def _string(s: str) -> str | None:
    """``s`` plain or in single quotes, as libyaml writes it; None when unsure."""
    if not _SAFE.fullmatch(s) or s[0] == " " or s[-1] == " ":
        return None  # breaks, tabs, control or astral characters, edge spaces
    if _resolve(yaml.ScalarNode, s, (True, False)) != _STR_TAG:  # type: ignore[no-untyped-call]
        return _quoted(s)  # plain, it would read as another type
    first = s[0]
    if first in _INDICATORS or s.startswith(("---", "...")) or ": " in s or " #" in s:
        return _quoted(s)
    if first in "-?:" and (len(s) == 1 or s[1] == " "):
        return _quoted(s)
    if s[-1] == ":":
        return None  # whether the end counts as a space after it: the emitter's call
    return s


def _quoted(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def dump_simple(data: dict[Any, Any]) -> str | None:
    """``yaml.dump(data, ...)`` as ``frontmatter._dump_yaml`` calls it, or None."""
    if not data:
        return None
    out: list[str] = []
    for key, value in data.items():
        name = _string(key) if isinstance(key, str) and len(key) <= _MAX_KEY else None
        if name is None:
            return None
        if isinstance(value, list):
            if not value:
                out.append(f"{name}: []")
                continue
            out.append(f"{name}:")
            for item in value:
                text = scalar(item)
                if text is None:
                    return None
                out.append(f"- {text}")
            continue
        text = scalar(value)
        if text is None:
            return None
        out.append(f"{name}: {text}")
    out.append("")
    return "\n".join(out)


def loads_as(data: dict[Any, Any]) -> dict[Any, Any]:
    """What the loader returns for ``dump_simple(data)``: a fresh copy of ``data``."""
    return {k: list(v) if isinstance(v, list) else v for k, v in data.items()}
