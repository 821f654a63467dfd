from __future__ import annotations

import contextlib
import os
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memgraph.store import open_store
from profiles.artifact.ingest import ingest_pages
from profiles.artifact.vault import parse_page, read_vault, split_frontmatter


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_reads_wiki_devlog_chronicle_and_counts_bad_pages(tmp_path: Path) -> None:
    v = tmp_path / "vault"
    write(
        v,
        "proj/wiki/Engine.md",
        "---\ntitle: Engine\ncreated: 2026-03-01\nupdated: 2026-03-02T10:00:00Z\nrepo: alpha\n---\nSee src/alpha/engine.py\n",
    )
    write(v, "notes/log.md", "---\ntype: devlog\ndate: 2026-03-02\nsession_id: s-1\n---\nbody\n")
    write(v, "chronicles/c.md", "---\ncreated: 2026-03-02T09:00:00+01:00\n---\n")
    write(v, "wiki/bad.md", "---\ntitle: [unclosed\n---\n")
    write(v, "wiki/list.md", "---\n- a\n- b\n---\n")
    write(v, "wiki/nodate.md", "---\ntitle: x\n---\n")
    write(v, "wiki/open.md", "---\ntitle: x\n")
    write(v, "proj/voice/2026-03-02-abcd.md", "---\ntype: voice\n---\n")  # not an artifact
    write(v, "random.md", "# just notes\n")
    (v / "wiki" / "latin1.md").write_bytes("---\ntitle: caf\xe9\n---\n".encode("latin-1"))
    read = read_vault(v)
    by_ref = {p.ref: p for p in read.pages}
    assert set(by_ref) == {"proj/wiki/Engine.md", "notes/log.md", "chronicles/c.md"}
    wiki = by_ref["proj/wiki/Engine.md"]
    assert wiki.type == "wiki_page" and wiki.repo == "alpha"
    assert wiki.valid_time == datetime(2026, 3, 2, 10, tzinfo=UTC)
    assert wiki.paths == ("src/alpha/engine.py",)
    assert by_ref["notes/log.md"].type == "devlog" and by_ref["notes/log.md"].session_id == "s-1"
    assert by_ref["chronicles/c.md"].valid_time == datetime(2026, 3, 2, 8, tzinfo=UTC)
    assert read.skipped == {
        "malformed_yaml": 1,
        "frontmatter_not_mapping": 1,
        "no_date": 1,
        "malformed_frontmatter": 1,
        "not_utf8": 1,
    }
    store = open_store(tmp_path / "s.db")
    assert ingest_pages(store, read.pages).written == 3
    assert ingest_pages(store, read_vault(v).pages).written == 0
    store.close()


def test_since_until_and_missing_vault(tmp_path: Path) -> None:
    v = tmp_path / "v"
    write(v, "wiki/a.md", "---\nupdated: 2026-03-01\n---\n")
    write(v, "wiki/b.md", "---\nupdated: 2026-03-05\n---\n")
    read = read_vault(v, since=datetime(2026, 3, 2, tzinfo=UTC))
    assert [p.ref for p in read.pages] == ["wiki/b.md"]
    assert read_vault(tmp_path / "nope").pages == []


def test_symlink_out_of_vault_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("---\ntype: wiki\nupdated: 2026-03-01\n---\n")
    v = tmp_path / "v"
    (v / "wiki").mkdir(parents=True)
    (v / "wiki" / "link.md").symlink_to(outside)
    read = read_vault(v)
    assert read.pages == [] and read.skipped == {"outside_vault": 1}


def test_alias_bomb_and_nested_values_are_ignored() -> None:
    bomb = "---\ntype: wiki\nupdated: 2026-03-01\na: &a [x, x, x]\nb: &b [*a, *a, *a]\nrepo: [*b, *b]\n---\n"
    page = parse_page(Path("wiki/x.md"), bomb)
    assert not isinstance(page, str) and page.repo is None


@given(st.text(max_size=500))
def test_parse_page_never_raises(text: str) -> None:
    result = parse_page(Path("wiki/p.md"), text)
    assert isinstance(result, str) or result.type == "wiki_page"


@given(st.text(max_size=200), st.text(max_size=200))
def test_frontmatter_truncation_never_raises(front: str, body: str) -> None:
    text = f"---\n{front}\n---\n{body}"
    for cut in (len(text), len(text) // 2, 4):
        with contextlib.suppress(ValueError):
            split_frontmatter(text[:cut])
        parse_page(Path("devlog/p.md"), text[:cut])


def test_a_fifo_named_like_a_page_is_skipped_with_a_reason(tmp_path: Path) -> None:
    v = tmp_path / "v"
    write(v, "wiki/a.md", "---\nupdated: 2026-03-01\n---\n")
    os.mkfifo(v / "wiki" / "pipe.md")  # reading it would wait for a writer forever
    read = read_vault(v)
    assert [p.ref for p in read.pages] == ["wiki/a.md"] and read.skipped == {"not_regular": 1}


def test_a_looping_link_named_like_a_page_is_skipped_with_a_reason(tmp_path: Path) -> None:
    """Python 3.11's resolve() raises RuntimeError on a loop: `windows` and `sleep`
    ended in a traceback on one looping `*.md` anywhere in the vault."""
    v = tmp_path / "v"
    write(v, "wiki/a.md", "---\nupdated: 2026-03-01\n---\n")
    (v / "wiki" / "loop.md").symlink_to(v / "wiki" / "loop.md")
    read = read_vault(v)
    assert [p.ref for p in read.pages] == ["wiki/a.md"] and read.skipped == {"symlink_loop": 1}
