"""Hand edits to voice pages are never silently overwritten.

A voice page is a view of the store, but it lives in an Obsidian vault where people
write. The page is split into what memgraph OWNS and what the USER owns
(``profiles.voice.pageblocks``). On every re-render:

- user-owned text is carried over verbatim, each run of it after the owned block it
  followed (after the nearest earlier one when that block is gone);
- when the owned text on disk is not what memgraph last wrote there (a typo fixed in
  a message, a retitled page), the page is left alone and the new render (with the
  user's own text carried) goes beside it as ``<page>.conflict.md``, reported on
  stderr and listed by ``memgraph probe`` (``list_conflicts``).

What memgraph last wrote is recorded as the sha256 of the page's owned text in a
hidden sidecar ``.<page>.mg`` (JSON). A page without a sidecar (written before this
existed, or the sidecar was lost) is trusted when its owned text is exactly what
rendering its own parse gives and every message's text equals the store's.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from memgraph.fileio import atomic_write_text, read_text_nofollow, unreadable_view
from profiles.voice.frontmatter import PageError, split_frontmatter
from profiles.voice.pageblocks import Block, Splitter, merge, owned_digest, split_blocks
from profiles.voice.pagerender import PageLike, render_page

TYPE_CHECKING = False
if TYPE_CHECKING:  # pydantic: imported only for a page on disk (``_parsed``)
    from profiles.voice.pages import VoicePage

CONFLICT_SUFFIX = ".conflict.md"
HISTORY = 8  # owned-text digests of memgraph's recent renders kept in the sidecar

# -- the sidecar: what memgraph last wrote -------------------------------------


def sidecar(path: Path) -> Path:
    return path.with_name(f".{path.name}.mg")


def conflict_path(path: Path) -> Path:
    return path.with_name(path.name.removesuffix(".md") + CONFLICT_SUFFIX)


def _read_sidecar(path: Path) -> dict[str, object] | None:
    try:
        text = read_text_nofollow(sidecar(path), 1 << 16)
    except OSError:
        return None
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def recorded_digests(path: Path) -> list[str] | None:
    """The owned-text digests of memgraph's recent writes of ``path`` (None: no record)."""
    record = _read_sidecar(path)
    owned = record.get("owned") if record else None
    return [d for d in owned if isinstance(d, str)] if isinstance(owned, list) else None


def _write_sidecar(path: Path, owned: list[str], conflict: str | None) -> None:
    data = {"owned": owned, "conflict": conflict}
    # a lost sidecar only means the next write checks the page itself: no fsync
    atomic_write_text(sidecar(path), json.dumps(data, sort_keys=True) + "\n", durable=False)


def _parsed(existing: str) -> VoicePage | None:
    """The page on disk read back (None: it does not parse); ``plan`` reads it once
    for the trust check and the tags (a parse is ~2 ms of a re-render)."""
    from profiles.voice.pages import parse_page  # pydantic: only for a page on disk

    try:
        return parse_page(existing)
    except PageError:
        return None


def _legacy_trusted(parsed: VoicePage | None, blocks: list[Block], page: PageLike) -> bool:
    """No record: trust a page (``parsed``: read back) whose owned text is exactly a
    render of itself and whose message texts are the store's."""
    if parsed is None:
        return False
    digest = owned_digest(blocks)
    if owned_digest(split_blocks(render_page(parsed))) != digest:
        from profiles.voice import pages_v1  # a page in the format before issue 20

        if owned_digest(split_blocks(pages_v1.render_page(parsed))) != digest:
            return False
    texts = {(e.record_uuid, e.version): e.text for e in page.messages}
    return all(texts.get((e.record_uuid, e.version), e.text) == e.text for e in parsed.messages)


def memgraph_tags(existing: str) -> frozenset[str]:
    """The tags memgraph rendered on a page (its project and its messages'
    classifications); when the page no longer parses, its project's tag and
    every tag that is a classification label."""
    return _tags(existing, _parsed(existing))


def _tags(existing: str, parsed: VoicePage | None) -> frozenset[str]:
    """``memgraph_tags`` of ``existing``, read back as ``parsed``."""
    from profiles.voice.classify.labels import LABELS
    from profiles.voice.pages import page_tags

    if parsed is None:
        try:
            data, _, _ = split_frontmatter(existing)
        except PageError:
            return frozenset(LABELS)
        project = data.get("project")
        return frozenset(page_tags(str(project), list(LABELS)) if project else LABELS)
    return frozenset(page_tags(parsed.project, [e.classification for e in parsed.messages]))


@dataclass(frozen=True)
class KeepResult:
    page_text: str | None  # write this to the page ...
    conflict_text: str | None = None  # ... or, when its owned text was edited, this beside it


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def plan(path: Path, existing: str | None, rendered: str, page: PageLike) -> KeepResult:
    """What to write for ``path`` now holding ``existing`` (None: no file)."""
    if existing is None:
        return KeepResult(rendered)
    blocks = split_blocks(existing)
    record = _read_sidecar(path)
    owned = record.get("owned") if record else None
    parsed = _parsed(existing)
    if isinstance(owned, list):
        trusted = owned_digest(blocks) in owned
    else:
        trusted = _legacy_trusted(parsed, blocks, page)
    merged = merge(rendered, blocks, _tags(existing, parsed))
    return KeepResult(merged) if trusted else KeepResult(None, merged)


def record_written(path: Path, text: str, split: Splitter | None = None) -> None:
    """After the page got ``text``: remember its owned text; drop our stale conflict."""
    record = _read_sidecar(path)
    if record and isinstance(record.get("conflict"), str):
        conflict = conflict_path(path)
        held = read_text_nofollow(conflict)
        if held is not None and _digest(held) == record.get("conflict"):
            conflict.unlink(missing_ok=True)  # resolved, and it held nothing the page lacks
    # a few recent digests, not one: two writers racing on one page (hook and
    # backfill) may leave the sidecar of the other's render; both are ours
    old = record.get("owned") if record else None
    recent = [d for d in old if isinstance(d, str)] if isinstance(old, list) else []
    # the text was just written by memgraph: its frontmatter is its dumper's
    if split is not None:
        digest = owned_digest(split(text))
    else:  # = owned_digest(split_blocks(text, ours=True)), without the blocks
        from profiles.voice.pagedigest import owned_digest_of

        digest = owned_digest_of(text)
    _write_sidecar(path, [digest, *[d for d in recent if d != digest]][:HISTORY], None)


def kept_unreadable(
    path: Path, existing: str | None, rendered: str, split: Splitter | None = None
) -> bool:
    """A page or note there that is not text we can read (``existing`` None: an editor
    saved it in Latin-1, or it is too big) is never replaced: the new render goes
    beside it and is reported. True when that was the case (the caller writes nothing)."""
    if existing is not None or not unreadable_view(path):
        return False
    write_conflict(path, "", rendered, split, why="is not UTF-8 text memgraph can read")
    return True


def write_conflict(
    path: Path,
    existing: str,
    merged: str,
    split: Splitter | None = None,
    why: str = "was edited inside memgraph's text",
) -> Path | None:
    """Put ``merged`` beside ``path`` and report it; the conflict path when it changed."""
    conflict = conflict_path(path)
    record = _read_sidecar(path)
    old = record.get("owned") if record else None
    recent = [d for d in old if isinstance(d, str)] if isinstance(old, list) else []
    changed = read_text_nofollow(conflict) != merged
    if changed:
        atomic_write_text(conflict, merged)
    # the page's edited owned text stays "not ours"; the conflict render's is ours,
    # so a user who copies the conflict file over the page resolves it
    digest = owned_digest((split or split_blocks)(merged))
    owned = [digest, *[d for d in recent if d != digest]][:HISTORY]
    _write_sidecar(path, owned, _digest(merged))
    sys.stderr.write(f"memgraph: {path} {why}; left as is, new render in {conflict.name}\n")
    return conflict if changed else None


def list_conflicts(vault: Path) -> list[Path]:
    """Voice pages and window notes whose new render waits beside them (``*.conflict.md``)."""
    try:
        pages = list(vault.glob(f"*/voice/*{CONFLICT_SUFFIX}"))
        return sorted([*pages, *vault.glob(f"windows/*{CONFLICT_SUFFIX}")])
    except OSError:
        return []
