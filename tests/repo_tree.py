"""A small repository on disk for the repo-scan tests: files written from a mapping,
and git run in it with a fixed identity (the machine's own may be unset)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path -> text, UTF-8) under ``root``; returns ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def git(root: Path, *args: str) -> str:
    """``git -C root ARGS`` as user t <t@t>; its stdout, stripped (raises on failure)."""
    proc = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return proc.stdout.strip()
