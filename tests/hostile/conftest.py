"""Fixtures of the hostile suite (the harness itself is ``hostile_harness``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """``root`` (memgraph's dirs live here) and ``outside`` (must never change)."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    for p in (root, outside):
        p.mkdir()
    (outside / "keep.txt").write_text("not memgraph's\n")
    yield {"root": root, "outside": outside}
