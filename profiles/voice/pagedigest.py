"""The owned-text digest of a page memgraph just wrote, without building blocks.

``owned_digest_of(text)`` equals ``pageblocks.owned_digest(pageblocks.split_blocks(text,
ours=True))`` for every text (a property test holds the two together): the digest
only needs which lines are owned, not the blocks' keys, so message markers are not
JSON-decoded (their keys all start with ``msg`` and never meet the structural
keys ``split_blocks`` tracks) and no ``Block`` is made. ``record_written`` runs it
after every page write.
"""

from __future__ import annotations

import hashlib

from profiles.voice.pagerender import marker_version


def owned_digest_of(text: str) -> str:
    """sha256 of the page's owned text (see ``pageblocks.owned_digest``)."""
    from profiles.voice.frontmatter import page_lines
    from profiles.voice.pageblocks import frontmatter_block, heading_key, table_starts

    lines, i = page_lines(text)
    owned: list[str] = []  # owned lines, and the frontmatter's owned text
    n = len(lines)
    if i:
        block = frontmatter_block(lines[:i], ours=True)
        owned.append(block.owned if block.owned is not None else "\n".join(block.lines))
    seen: set[str] = set()  # the structural keys split_blocks has met
    while i < n:
        line = lines[i]
        if marker_version(line):
            j = i + 1
            while j < n and (lines[j] == ">" or lines[j].startswith("> ")):
                j += 1
            owned.extend(lines[i:j])
            i = j
            continue
        if table_starts(line, seen):
            j = i
            while j < n and lines[j].startswith("|"):
                j += 1
            owned.extend(lines[i:j])
            seen.add("table")
            i = j
            continue
        key = heading_key(line, seen)
        if key is not None:
            seen.add(key)
            owned.append(line)
        i += 1
    return hashlib.sha256("\n".join(owned).encode("utf-8", "surrogatepass")).hexdigest()
