"""A voice page as blocks: what memgraph owns, what a person wrote, and the merge.

memgraph OWNS the frontmatter (its keys, ``MG_KEYS``), the ``# title``, the
``## Messages`` heading and the day headings under it, each message block -- its
``<!-- mg -->`` marker and its ``> `` lines --, the ``## Classifications`` heading
and table. Everything else is the USER's: lines under a message, a ``## Notes``
section, a new heading anywhere. Blank lines are layout, owned by nobody.

``split_blocks`` cuts a page into owned blocks and user lines, ``owned_digest``
hashes the owned text (what ``profiles.voice.pagekeep`` records of memgraph's
writes), and ``merge`` carries a person's text into a fresh render, each run of it
after the owned block it followed (after the nearest earlier one when that block
is gone). Window notes use the same machinery with their own splitter
(``profiles.activity.winnote``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from profiles.voice.frontmatter import PageError, page_lines, split_frontmatter
from profiles.voice.pagerender import (
    CLASSIFICATIONS_HEADING,
    DAY_HEADING,
    MESSAGES_HEADING,
    MG_V1,
    MG_V2,
    marker_version,
)

_MG_END = " -->"


@dataclass(frozen=True)
class Block:
    key: str | None  # None: user-owned line(s)
    lines: tuple[str, ...]
    # what of this block memgraph owns, when not simply its lines: for the
    # frontmatter, the canonical JSON of memgraph's keys (Obsidian's property
    # editor re-serialises YAML; the values are what count)
    owned: str | None = None
    extra: tuple[tuple[str, object], ...] = ()  # frontmatter keys a person added


# the keys memgraph writes (profiles.voice.pages.frontmatter); any other key is the user's
MG_KEYS = frozenset(
    {
        "title",
        "constellation",
        "type",
        "created",
        "updated",
        "status",
        "session_id",
        "project",
        "valid_from",
        "valid_to",
        "message_count",
        "ingested_at",
        "sources",
        "activity_window",
        "tags",
        "harness",
        "branch",
        "cwd",
    }
)


def _scalar(value: object) -> str:
    """Dates and times as memgraph writes them (an editor may unquote a timestamp,
    which YAML then reads as a datetime: the same value)."""
    if isinstance(value, datetime):
        when = value if value.tzinfo else value.replace(tzinfo=UTC)
        return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def frontmatter_block(
    lines: list[str], keys: frozenset[str] = MG_KEYS, *, ours: bool = False
) -> Block:
    """The frontmatter as a block: memgraph's ``keys`` owned, the rest a person's
    (``ours``: text memgraph just wrote, see ``split_frontmatter``)."""
    try:
        data, _, _ = split_frontmatter("\n".join(lines), ours=ours)
    except PageError:
        return Block("frontmatter", tuple(lines))  # unreadable: its text is what counts
    # ``tags`` are shared: memgraph's (project, classifications) and the user's
    # own; the user's are kept, memgraph's re-added, and no tag edit is a conflict
    mine = {str(k): v for k, v in data.items() if k in keys and k != "tags"}
    owned = json.dumps(mine, sort_keys=True, default=_scalar, ensure_ascii=True)
    extra = tuple((k, v) for k, v in data.items() if k not in keys or k == "tags")
    return Block("frontmatter", tuple(lines), owned, extra)


def _marker_key(line: str, n: int) -> str:
    prefix = MG_V2 if marker_version(line) == 2 else MG_V1
    try:
        data = json.loads(line[len(prefix) : -len(_MG_END)])
    except (ValueError, RecursionError):
        return f"msg?{n}"
    if not isinstance(data, dict):
        return f"msg?{n}"
    return f"msg:{data.get('uuid')}:{data.get('version', 1)}"


def heading_key(line: str, seen: set[str]) -> str | None:
    """The key of the owned one-line block ``line`` opens (title, messages heading, a
    day heading under it, classifications heading), given the structural keys
    ``seen`` before it; None for a line of the person's."""
    if line.startswith("# ") and "title" not in seen and "messages" not in seen:
        return "title"
    if line == MESSAGES_HEADING and "messages" not in seen:
        return "messages"
    if (
        DAY_HEADING.match(line)
        and "messages" in seen
        and "classifications" not in seen
        and f"day:{line}" not in seen
    ):
        return f"day:{line}"
    if line == CLASSIFICATIONS_HEADING and "classifications" not in seen:
        return "classifications"
    return None


def table_starts(line: str, seen: set[str]) -> bool:
    """``line`` opens the classifications table (the owned run of ``|`` lines)."""
    return line.startswith("|") and "classifications" in seen and "table" not in seen


def split_blocks(text: str, *, ours: bool = False) -> list[Block]:
    """The page as owned blocks and user lines (blank lines: ``key=None`` too);
    ``ours``: text memgraph just wrote (its frontmatter parses faster)."""
    lines, i = page_lines(text)
    blocks: list[Block] = []
    if i:
        blocks.append(frontmatter_block(lines[:i], ours=ours))
    seen: set[str] = set()
    while i < len(lines):
        line = lines[i]
        if marker_version(line):
            j = i + 1
            while j < len(lines) and (lines[j] == ">" or lines[j].startswith("> ")):
                j += 1
            mkey = _marker_key(line, i)
            blocks.append(Block(mkey if mkey not in seen else f"{mkey}#{i}", tuple(lines[i:j])))
            seen.add(mkey)
            i = j
            continue
        if table_starts(line, seen):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            blocks.append(Block("table", tuple(lines[i:j])))
            seen.add("table")
            i = j
            continue
        key = heading_key(line, seen)
        if key is not None:
            seen.add(key)
        blocks.append(Block(key, (line,)))
        i += 1
    return blocks


def owned_digest(blocks: list[Block]) -> str:
    owned = "\n".join(
        b.owned if b.owned is not None else "\n".join(b.lines) for b in blocks if b.key is not None
    )
    return hashlib.sha256(owned.encode("utf-8", "surrogatepass")).hexdigest()


def user_segments(blocks: list[Block]) -> list[tuple[str, list[str]]]:
    """(key of the owned block before it, its lines) for each run of user text."""
    out: list[tuple[str, list[str]]] = []
    anchor = ""
    run: list[str] = []

    def flush() -> None:
        while run and not run[-1].strip():
            run.pop()
        while run and not run[0].strip():
            run.pop(0)
        if run:
            out.append((anchor, list(run)))
        run.clear()

    for block in blocks:
        if block.key is None:
            run.extend(block.lines)
        else:
            flush()
            anchor = block.key
    flush()
    return out


Splitter = Callable[[str], list[Block]]


def merge(
    new_text: str,
    old_blocks: list[Block],
    old_ours: frozenset[str] = frozenset(),
    split: Splitter | None = None,
) -> str:
    """``new_text`` (a fresh render) with the user's text of ``old_blocks`` carried over.

    ``old_ours``: the tags memgraph itself put on the old page (``memgraph_tags``);
    they are not carried, so a classification that changed replaces its tag."""
    segments = user_segments(old_blocks)
    extra = next((b.extra for b in old_blocks if b.key == "frontmatter"), ())
    if not segments and not extra:
        return new_text
    new_blocks = (split or split_blocks)(new_text)
    if extra:
        new_blocks = [
            _with_extra(b, extra, old_ours) if b.key == "frontmatter" else b for b in new_blocks
        ]
    present = {b.key for b in new_blocks if b.key is not None}
    order = [b.key for b in old_blocks if b.key is not None]
    placed: dict[str, list[list[str]]] = {}
    for anchor, lines in segments:
        target = anchor
        if target not in present:  # its block is gone: the nearest earlier one left
            idx = order.index(anchor) if anchor in order else len(order)
            earlier = [k for k in order[:idx] if k in present]
            target = earlier[-1] if earlier else ""
        if target == "":  # before everything: after the frontmatter, so it stays a page
            target = next(b.key for b in new_blocks if b.key is not None)
        placed.setdefault(target, []).append(lines)
    out: list[str] = []
    for block in new_blocks:
        out.extend(block.lines)
        for seg in placed.get(block.key or "\0", []):
            out += ["", *seg]
    return "\n".join(out)


def _with_extra(
    block: Block, extra: tuple[tuple[str, object], ...], old_ours: frozenset[str] = frozenset()
) -> Block:
    """The new frontmatter with the keys a person added, after memgraph's."""
    import yaml

    tags = dict(extra).get("tags")
    extra = tuple((k, v) for k, v in extra if k != "tags")
    if isinstance(tags, list):
        block = _with_tags(block, tags, old_ours)
    if not extra:
        return block
    try:
        text = yaml.safe_dump(
            dict(extra), sort_keys=False, allow_unicode=True, default_flow_style=False
        )
    except yaml.YAMLError:
        return block
    added = [line for line in text.split("\n") if line]
    if any(line in ("---", "...") for line in added):
        return block  # would end the frontmatter early: keep memgraph's alone
    lines = list(block.lines)
    return Block(block.key, (*lines[:-1], *added, lines[-1]), block.owned, extra)


def _with_tags(block: Block, old: list[object], old_ours: frozenset[str] = frozenset()) -> Block:
    """The new frontmatter whose ``tags`` also hold the page's earlier tags that
    memgraph did not put there (a person's own, after memgraph's)."""
    from profiles.voice.pages import _dump_yaml

    try:
        data, _, _ = split_frontmatter("\n".join(block.lines))
        new = data.get("tags")
        if not isinstance(new, list):
            return block
        added = [t for t in old if isinstance(t, str) and t not in new and t not in old_ours]
        if not added:
            return block
        data["tags"] = [*new, *added]
        body = _dump_yaml(data).rstrip("\n").split("\n")
    except PageError:
        return block
    return Block(block.key, ("---", *body, "---"), block.owned, block.extra)
