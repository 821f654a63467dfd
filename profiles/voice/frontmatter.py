"""YAML frontmatter of vault pages: written by the safe dumper only, read by a
SafeLoader that refuses aliases; every problem is one ``PageError`` line.

``page_lines`` is where a page's leading ``---`` block is found (the YAML reader
here, and the block splitters of voice pages and window notes).
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

from memgraph.errors import ReaderError
from profiles.voice.yamlfast import dump_simple, loads_as

_MAX_FRONTMATTER = 1 << 20
# Frontmatter read from disk, parsed, by its text (``_canonical`` or the reference
# loader): one page's re-render reads it up to 8 times (the keep plan, the trust
# check, the block split, the merge), each a pure-Python YAML parse of ~4 ms;
# `windows` over 2,000 pages spent ~60 s of its 66 there. Bounded: 64 entries of at
# most 64 kB.
_PARSED: dict[str, dict[str, Any]] = {}
_PARSED_MAX = 64
_PARSED_MAX_CHARS = 64 * 1024
# The last frontmatter ``dump_simple`` wrote and its mapping: a page's own render
# is read back right after it is written (its owned digest), as this mapping.
_LAST_DUMP: tuple[str, dict[str, Any]] = ("", {})


class PageError(ReaderError):
    """A voice page cannot be parsed (malformed, truncated or tampered)."""


class _NoAliasDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """The safe dumper, never writing an anchor or alias: the same object twice (one
    ``date`` as both ``created`` and ``updated``) would otherwise be written as
    ``&id001``/``*id001``, which the page reader refuses (``_NoAliasLoader``)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _dump_yaml(data: dict[str, Any]) -> str:
    global _LAST_DUMP
    text = dump_simple(data)  # the same text, without the emitter, when it is plain
    if text is not None:
        _LAST_DUMP = (text, loads_as(data))
    else:
        text = yaml.dump(
            data,
            Dumper=_NoAliasDumper,
            sort_keys=False,
            allow_unicode=True,
            width=1 << 30,
            default_flow_style=False,
        )
    # Top-level values are indented by the emitter, so a fence line cannot occur;
    # check anyway, since a fake fence would cut the frontmatter short.
    if any(line in ("---", "...") for line in text.split("\n")):
        raise PageError("frontmatter would contain a document marker line")
    return text


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader without anchors/aliases: a page's frontmatter never needs them,
    and alias bombs would blow up validation downstream."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise PageError("frontmatter uses YAML aliases, which voice pages never contain")
        return super().compose_node(parent, index)


# libyaml's loader, when installed: ~10x faster than the pure-Python one. Used only
# for text memgraph itself just wrote (``ours``), with no anchor or alias possible
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


def _canonical(raw: str) -> dict[str, Any] | None:
    """The mapping ``raw`` holds when ``raw`` is exactly what ``dump_simple`` writes
    for it (every page memgraph wrote and nobody re-serialised), else None.

    libyaml reads it (~0.3 ms against the pure-Python loader's ~1.6 ms: a first
    pass over 2,000 pages parses each page read from disk twice); the answer is
    then checked by writing it back: ``dump_simple(data) == raw`` means the
    reference loader reads ``raw`` as ``data`` (``yamlfast``'s contract, held by
    ``tests/profiles/voice/test_yamlfast.py``), whatever libyaml did. A text with
    an ``&`` or ``*`` (an anchor or alias), or any libyaml error, is the
    reference loader's to read and word."""
    if _FAST_LOADER is None or "&" in raw or "*" in raw:
        return None
    try:
        data = yaml.load(raw, Loader=_FAST_LOADER)  # CSafeLoader: a safe loader
    except (yaml.YAMLError, RecursionError):
        return None
    if not isinstance(data, dict) or dump_simple(data) != raw + "\n":
        return None
    return data


def page_lines(text: str) -> tuple[list[str], int]:
    """(the text's lines, CRLF read as LF; how many of them the leading frontmatter
    takes, both ``---`` fences included: 0 when the first line is not ``---`` or no
    later ``---`` line closes it). The first ``---`` after the opening one closes
    it, so a ``---`` in the body is body. A BOM is text: the caller strips it when
    it reads one as nothing (``split_frontmatter`` does, the block splitters keep it
    as a person's line)."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[0] != "---":
        return lines, 0
    try:
        return lines, lines.index("---", 1) + 1
    except ValueError:
        return lines, 0


def split_frontmatter(
    text: str, source: str = "page", *, ours: bool = False
) -> tuple[dict[str, Any], list[str], int]:
    """(frontmatter mapping, body lines, line number of the first body line).

    ``ours``: the text is what memgraph's dumper just wrote (a page's own render,
    before the sidecar records it): when it is the last frontmatter ``dump_simple``
    wrote, its mapping (what any loader reads from it); else parsed by libyaml when
    it is installed and the frontmatter holds no ``&``/``*`` (so no anchor or
    alias); anything else, and any error, takes the pure-Python loader, whose
    answers are the reference (unless the text is exactly what memgraph's dumper
    writes for libyaml's reading of it, see ``_canonical``)."""
    lines, size = page_lines(text.removeprefix("\ufeff"))
    if lines[0] != "---":
        raise PageError(f"{source}: no YAML frontmatter (a page starts with a '---' line)")
    if not size:
        raise PageError(f"{source}: frontmatter is not closed by a '---' line")
    end = size - 1  # the closing fence
    raw = "\n".join(lines[1:end])
    if len(raw) > _MAX_FRONTMATTER:
        raise PageError(f"{source}: frontmatter larger than {_MAX_FRONTMATTER} bytes")
    if ours and raw + "\n" == _LAST_DUMP[0]:
        return loads_as(_LAST_DUMP[1]), lines[end + 1 :], end + 2
    if ours and _FAST_LOADER is not None and "&" not in raw and "*" not in raw:
        try:
            data = yaml.load(raw, Loader=_FAST_LOADER)  # CSafeLoader: a safe loader
        except (yaml.YAMLError, RecursionError):
            pass  # the reference loader below words the error
        else:
            if isinstance(data, dict):
                return data, lines[end + 1 :], end + 2
    cached = _PARSED.get(raw)
    if cached is not None:  # a copy: callers may change the mapping they get
        return copy.deepcopy(cached), lines[end + 1 :], end + 2
    data = _canonical(raw)
    if data is None:
        try:
            data = yaml.load(raw, Loader=_NoAliasLoader)
        except PageError as exc:
            raise PageError(f"{source}: {exc}") from None
        except yaml.YAMLError as exc:
            first = " ".join(str(exc).split())[:200]
            raise PageError(f"{source}: frontmatter is not valid YAML: {first}") from None
        except RecursionError:
            raise PageError(f"{source}: frontmatter is nested too deeply") from None
        if not isinstance(data, dict):
            raise PageError(f"{source}: frontmatter is not a YAML mapping")
    if len(raw) <= _PARSED_MAX_CHARS:
        if len(_PARSED) >= _PARSED_MAX:
            del _PARSED[next(iter(_PARSED))]  # the oldest
        _PARSED[raw] = copy.deepcopy(data)
    return data, lines[end + 1 :], end + 2
