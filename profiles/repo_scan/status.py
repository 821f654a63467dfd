"""``repo status`` (stale summaries, drift since the last scan) and the
optional git post-commit hook that rescans."""

from __future__ import annotations

import re
import shlex
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgraph.errors import NotFound, UsageError
from memgraph.fileio import atomic_write_bytes
from memgraph.inputs import printable_path
from memgraph.store.protocol import Store
from memgraph.terminal import plural
from profiles.repo_scan.files import (
    Folders,
    LedgerLine,
    SourceFile,
    check_root,
    list_files,
    read_source,
)
from profiles.repo_scan.graph import repo_node_id
from profiles.repo_scan.history import history_node_id

if TYPE_CHECKING:
    from memgraph.documents.views import NodeView

HOOK_MARK = "# memgraph repo hook"


@dataclass
class RepoStatus:
    repo: str
    root: str
    scanned_head: str | None
    head: str | None
    files: int
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    stale_summaries: list[tuple[str, str, str]] = field(default_factory=list)  # id, target, why
    fresh_summaries: int = 0
    unparsed: list[str] = field(default_factory=list)

    @property
    def drift(self) -> int:
        return len(self.added) + len(self.changed) + len(self.deleted)

    def lines(self) -> list[str]:
        head = (self.head or "-")[:12]
        out = [
            f"repo {printable_path(self.repo)}: {plural(self.files, 'file')} scanned at "
            f"{(self.scanned_head or '-')[:12]}, "
            f"HEAD {head}; drift {self.drift} ({len(self.added)} added, "
            f"{len(self.changed)} changed, {len(self.deleted)} deleted); "
            f"{len(self.stale_summaries)} stale / {self.fresh_summaries} fresh summaries"
        ]
        # file names come from the repository: escaped, never raw escape sequences
        show = printable_path
        out += [f"added    {show(p)}" for p in self.added]
        out += [f"changed  {show(p)}" for p in self.changed]
        out += [f"deleted  {show(p)}" for p in self.deleted]
        out += [
            f"stale    {sid} «{show(target)}» ({show(why)})"
            for sid, target, why in self.stale_summaries
        ]
        out += [f"unparsed {show(p)}" for p in self.unparsed]
        return out

    def as_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["drift"] = self.drift
        data["stale_summaries"] = [
            {"id": i, "target": t, "why": w} for i, t, w in self.stale_summaries
        ]
        return data


def is_scanned(store: Store, path: Path) -> bool:
    """Whether ``store`` holds a (live) scan of the repository at ``path``."""
    from profiles.repo_scan.keys import find_repo_key

    rid = repo_node_id(find_repo_key(store, check_root(path)))
    with store.reader() as reader:
        node = reader.get_nodes([rid]).get(rid)
    return node is not None and node.lifecycle != "retired"


def repo_status(store: Store, path: Path, name: str | None = None) -> RepoStatus:
    """What changed on disk since the last scan, and which summaries are stale."""
    from profiles.repo_scan.keys import find_repo_key

    root = check_root(path)
    repo = find_repo_key(store, root, name)
    rid = repo_node_id(repo)
    hid = history_node_id(repo)
    with store.reader() as reader:
        found = reader.get_nodes([rid, hid])
        node = found.get(rid)
        if node is None:
            raise NotFound(f"repo {repo!r} has not been scanned: run `memgraph repo scan {path}`")
        summaries = reader.get_summaries(list(node.attributes.get("summaries") or []))
    manifest: dict[str, str] = dict(node.attributes.get("manifest") or {})
    listing = list_files(root)
    current: dict[str, str] = {}
    with Folders(root) as folders:
        for rel in listing.paths:
            got: SourceFile | LedgerLine | None = read_source(folders, rel)
            if isinstance(got, SourceFile):
                current[rel] = got.digest
    status = RepoStatus(
        repo=repo,
        root=str(root),
        scanned_head=_scanned_head(node, found.get(hid)),
        head=listing.head,
        files=len(manifest),
        added=sorted(p for p in current if p not in manifest),
        changed=sorted(p for p in current if p in manifest and manifest[p] != current[p]),
        deleted=sorted(p for p in manifest if p not in current),
        unparsed=list(node.attributes.get("unparsed") or []),
    )
    for s in sorted(summaries.values(), key=lambda s: s.id):
        if s.freshness.state.value == "stale":
            why = ", ".join(s.freshness.stale_ids[:3]) or s.freshness.reason
            status.stale_summaries.append((s.id, s.target, why))
        else:
            status.fresh_summaries += 1
    return status


def changed_since_scan(root: str, manifest: dict[str, str], paths: list[str]) -> list[str]:
    """Which of ``paths`` (relative to ``root``) no longer hold the content the last
    scan read (edited, deleted, unreadable): their stored file:line spots may point
    at other code. Read the way a scan reads (inside the root, bounded); a root that
    cannot be opened is reported as every path changed."""
    from memgraph.errors import MemgraphError

    try:
        with Folders(Path(root)) as folders:
            out = []
            for rel in paths:
                got = read_source(folders, rel)
                if not isinstance(got, SourceFile) or got.digest != manifest.get(rel):
                    out.append(rel)
            return out
    except (OSError, MemgraphError):
        return list(paths)


def _scanned_head(node: NodeView, history: NodeView | None) -> str | None:
    """HEAD at the last scan. The repo node is rewritten only when a file changed, the
    history node whenever HEAD moved: after a commit of files the scan had already
    read (or of no source file), the repo node's HEAD is an older commit and status
    said "scanned at OLD, HEAD NEW" right after a rescan."""
    head = node.attributes.get("head")
    if (
        history is not None
        and history.lifecycle != "retired"
        and history.updated_at >= node.updated_at
    ):
        return history.attributes.get("head") or head
    return head


def install_hook(
    path: Path, command: str | None = None, force: bool = False, store_args: Sequence[str] = ()
) -> Path:
    """Add a post-commit hook that rescans the repo in the background.

    An existing hook we did not write is kept: our lines are appended to it
    (once; installing again rewrites our line if the command changed); ``force``
    is not needed for that, only to replace a foreign, non-shell hook.
    ``command`` is shell words (default: this memgraph, absolute:
    ``memgraph.executable``); ``store_args`` the scan's store words
    (``hook_store_args``: ``--store FILE``, ``--home DIR``), quoted here.
    """
    from profiles.artifact.gitrun import run_git

    root = check_root(path)
    proc = run_git(root, "rev-parse", "--git-path", "hooks")
    if proc.returncode != 0:
        raise UsageError(f"{root} is not inside a git repository: no hook to install")
    hooks = Path(proc.stdout.decode().strip())
    hooks = hooks if hooks.is_absolute() else root / hooks
    hooks.mkdir(parents=True, exist_ok=True)
    hook = hooks / "post-commit"
    if command is None:  # absolute: git runs the hook without the caller's venv on PATH
        from memgraph.executable import shell_command

        command = shell_command()
    words = " ".join(shlex.quote(w) for w in [str(root), *store_args])
    line = f"{HOOK_MARK}\n({command} repo scan {words} >/dev/null 2>&1 &)\n"
    if hook.is_symlink():
        raise UsageError(f"{hook} is a symlink: refusing to write through it")
    if hook.exists() and not hook.is_file():
        raise UsageError(f"{hook} is not a regular file: refusing to read or replace it")
    ours = line.encode("utf-8")
    mode = 0o755
    if hook.exists():
        # bytes, not text: a hook in Latin-1 keeps its bytes (a decode with
        # errors="replace" wrote U+FFFD over them), and its permission bits
        data = hook.read_bytes()
        mode = stat.S_IMODE(hook.stat().st_mode) | 0o111
        if HOOK_MARK.encode() in data:
            # ours already: rewrite our line if it differs (one written before the
            # command was absolute ran a bare `memgraph` that the hook's PATH lacks)
            lines = data.split(b"\n")
            at = lines.index(HOOK_MARK.encode()) if HOOK_MARK.encode() in lines else -1
            want = ours.rstrip(b"\n").split(b"\n")[1]
            if at < 0 or at + 1 >= len(lines) or lines[at + 1] == want:
                return hook
            lines[at + 1] = want
            atomic_write_bytes(hook, b"\n".join(lines), mode=mode)
            return hook
        if not data.startswith((b"#!/bin/sh", b"#!/usr/bin/env sh")):
            if not force:
                raise UsageError(f"{hook} exists and is not a sh script: pass --force to replace")
            data = b"#!/bin/sh\n"
        new = _before_final_exit(data.rstrip(b"\n").split(b"\n"), ours)
    else:
        new = b"#!/bin/sh\n" + ours
    atomic_write_bytes(hook, new, mode=mode)
    return hook


def hook_store_args(home: Path | str | None = None, store: str | None = None) -> list[str]:
    """The store a hook's rescan writes to, named as the installing command resolved
    it (flag, env, config file), absolute. The hook carried none: git runs it with the
    committer's environment, so a repository scanned with ``--home H`` or
    ``MEMGRAPH_HOME=H`` was rescanned into the default store (or into whatever home
    the committing shell had), and H's graph drifted. A file store is always named;
    a postgresql:// URL only when typed as ``--store`` (the hook file is in the
    repository's .git: a password from the environment is not copied there)."""
    import os

    from memgraph.config import is_url, resolve, store_location

    raw = resolve({"home": home, "store": store}, None, ("home", "store"))
    out: list[str] = []
    if raw.get("home"):
        out += ["--home", os.path.abspath(os.path.expanduser(str(raw["home"])))]
    location = store_location(home=home, store=store)
    if not is_url(location):
        out += ["--store", os.path.abspath(os.path.expanduser(location))]
    elif store is not None:
        out += ["--store", store]
    return out


def _before_final_exit(lines: list[bytes], ours: bytes) -> bytes:
    """The hook with our lines added at its end, or just before a last top-level
    ``exit`` (appended after it they would never run)."""
    last = len(lines) - 1
    while last > 0 and not lines[last].strip():
        last -= 1
    if last > 0 and re.match(rb"exit(\s|$)", lines[last]):
        return b"\n".join(lines[:last]) + b"\n" + ours + b"\n".join(lines[last:]) + b"\n"
    return b"\n".join(lines) + b"\n" + ours
