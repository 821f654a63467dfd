"""Past-commit subject vectors, stored at scan time so a repo cut embeds only its task.

``context_cut.repo_nearest`` compares the task text's MiniLM vector with the
subjects of the newest ``HISTORY_WINDOW`` commits on the repo's history node.
Embedding those 50 subjects cost a whole-process ``memgraph context --cut repo``
~3.8 s of its 4.7 s (notes/repo.md, m17), paid again by every process; so
``memgraph repo scan`` (with MiniLM configured) keeps them in one plain file per
repo and model in ``<home>/repo-vectors/<store>/`` (``sync_subjects``; a folder per
store: ``memgraph.home_dirs``), and the cut takes
them from there (``prime``: into ``repo_nearest``'s process memo), embedding
only the subjects the file lacks (remembered for the process, never written at
query time: a cut stays read-only).

The file, ``<repo>-<digest>.<model>.vec``: a header line ``memgraph-repo-vectors 1
<model> <dim> <count> <repo digest>``, then ``count`` 16-byte subject digests
(``memgraph.ids.digest`` of the subject text), then ``count x dim`` little-endian
float64, in the same order. float64, not the word table's float32: it holds
exactly the floats the embedder returned (MiniLM's are float32 values, another
embedder's need not be), so stored and fresh vectors rank the same, bit for bit.
Keyed by the subject's text, not the sha: the vector is a function of the text.

Written atomically (``memgraph.fileio.atomic_write_bytes``) and only when the
window's subjects differ from the file's: a rescan with no change writes nothing
and builds no embedder. A file that is not a regular file, is truncated, foreign
(another model, dimension or repo), has duplicate keys or non-finite numbers is
ignored with a one-line reason (the cut's notice) and rewritten by the next scan.
Stdlib only (``array``): reading it loads no numpy.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memgraph.errors import ReaderError
from memgraph.ids import digest
from memgraph.inputs import read_bounded

if TYPE_CHECKING:
    from context_cut.embedders import Embedder
    from memgraph.home_dirs import StoreRef
    from memgraph.store.protocol import Store

MAGIC = "memgraph-repo-vectors"
VERSION = 1
KEY_BYTES = 16
MAX_BYTES = 64 * 1024 * 1024  # a larger file is not ours (50 subjects x 384 dims: 155 KB)
_HEAD_MAX = 512


def vectors_dir_for(home: Path, store: StoreRef) -> Path:
    """Where the subject vectors of ``store`` are read (its folder
    in ``<home>/repo-vectors``; the flat files of a home from before until it has one)."""
    from memgraph.home_dirs import REPO_VECTORS, cache_dir

    return cache_dir(home, REPO_VECTORS, store)


def prepared_vectors_dir(home: Path, store: Store) -> Path:
    """Where ``memgraph repo scan`` writes them for ``store``: its own folder, made on
    first use with the flat files of a home from before that are of its repos."""
    from memgraph.home_dirs import REPO_VECTORS, prepared_dir

    known = _known_repos(store)

    def ours(name: str) -> bool:
        match = _FILE.match(name)
        return match is not None and match.group(1) in known

    return prepared_dir(home, REPO_VECTORS, store, keep=ours)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40] or "x"


def vectors_path(directory: Path, repo: str, model: str) -> Path:
    # the digest keeps two repo keys that slug alike ("a.b", "a_b") apart
    return directory / f"{_slug(repo)}-{digest(repo, length=12)}.{_slug(model)}.vec"


def subject_key(subject: str) -> bytes:
    return bytes.fromhex(digest(subject, length=KEY_BYTES * 2))


class _Unreadable(Exception):
    """A vector file that cannot be used as it is (the message is the reason)."""


def read_vectors(
    directory: Path, repo: str, model: str, dimension: int | None = None
) -> tuple[dict[bytes, list[float]] | None, str | None]:
    """(subject key -> vector, None); (None, None) when there is no file yet; (None,
    reason) when it is there but unusable. ``dimension`` None: whatever it says."""
    path = vectors_path(directory, repo, model)
    if not os.path.lexists(path):
        return None, None
    try:
        return _parse(path, repo, model, dimension), None
    except _Unreadable as exc:
        return None, f"repo vectors: {path.name} ignored ({exc}); `memgraph repo scan` rewrites it"


def _read(path: Path) -> bytes:
    try:
        return read_bounded(path, MAX_BYTES, "repo vector file", follow_links=False)
    except ReaderError as exc:
        raise _Unreadable(" ".join(str(exc).split())) from None
    except OSError as exc:
        raise _Unreadable(exc.strerror or type(exc).__name__) from None


def _parse(path: Path, repo: str, model: str, dimension: int | None) -> dict[bytes, list[float]]:
    data = _read(path)
    end = data.find(b"\n", 0, _HEAD_MAX)
    head = data[:end].decode("ascii", "replace").split(" ") if end > 0 else []
    if len(head) != 6 or head[0] != MAGIC or head[1] != str(VERSION):
        raise _Unreadable("not a repo vector file (bad header)")
    if not head[3].isdigit() or not head[4].isdigit() or int(head[3]) <= 0:
        raise _Unreadable("not a repo vector file (bad header)")
    dim, count = int(head[3]), int(head[4])
    if head[2] != _slug(model) or head[5] != digest(repo, length=12):
        raise _Unreadable("written for another model or repo")
    if dimension is not None and dim != dimension:
        raise _Unreadable(f"{dim} dimensions, the model has {dimension}")
    body = data[end + 1 :]
    need = count * (KEY_BYTES + dim * 8)
    if len(body) != need:
        raise _Unreadable(f"{len(body)} bytes after the header, {count} subjects need {need}")
    keys = [body[i * KEY_BYTES : (i + 1) * KEY_BYTES] for i in range(count)]
    if len(set(keys)) != count:
        raise _Unreadable("duplicate subjects")
    numbers = array("d")
    numbers.frombytes(body[count * KEY_BYTES :])
    if sys.byteorder != "little":
        numbers.byteswap()
    if not all(math.isfinite(x) for x in numbers):
        raise _Unreadable("non-finite numbers")
    return {k: numbers[i * dim : (i + 1) * dim].tolist() for i, k in enumerate(keys)}


def write_vectors(
    directory: Path,
    repo: str,
    model: str,
    dimension: int,
    rows: Sequence[tuple[bytes, list[float]]],
) -> None:
    from memgraph.fileio import atomic_write_bytes

    numbers = array("d")
    for _key, vector in rows:
        if len(vector) != dimension:
            raise ValueError(f"a {len(vector)}-dimension vector for a {dimension}-dimension model")
        numbers.extend(vector)
    if sys.byteorder != "little":
        numbers.byteswap()
    head = f"{MAGIC} {VERSION} {_slug(model)} {dimension} {len(rows)} {digest(repo, length=12)}\n"
    data = head.encode("ascii") + b"".join(k for k, _v in rows) + numbers.tobytes()
    # a cache: losing it to a crash costs one re-embedding, not worth an fsync
    atomic_write_bytes(vectors_path(directory, repo, model), data, durable=False)


@dataclass
class SubjectSync:
    """What ``sync_subjects`` did (``line`` for the scan's output)."""

    model: str
    subjects: int = 0
    embedded: int = 0
    kept: int = 0
    written: bool = False
    rebuilt: str | None = None  # why an unusable file was replaced

    def as_json(self) -> dict[str, object]:
        return dict(self.__dict__)

    def line(self) -> str:
        text = (
            f"subject vectors ({self.model}): {self.subjects} subjects "
            f"({self.embedded} embedded, {self.kept} kept)"
        )
        return text + (f"; rebuilt: {self.rebuilt}" if self.rebuilt else "")


def sync_subjects(
    directory: Path,
    repo: str,
    model: str,
    subjects: Sequence[str],
    make_embedder: Callable[[], Embedder],
    target: Callable[[], Path] | None = None,
) -> SubjectSync:
    """Make the repo's file hold the vectors of ``subjects`` (the history window's,
    ``repo_nearest.window_subjects``): stored ones are kept, new ones embedded in
    one batch (in window order: the batch a cut without the file would embed),
    gone ones dropped. Nothing written, and no embedder built, when it already
    holds exactly these. ``make_embedder`` must give an embedder named ``model``.
    ``target``: the folder written in when it is not ``directory`` (asked only
    when something is written: ``prepared_vectors_dir`` makes it)."""
    out = target or (lambda: directory)
    wanted = list(dict.fromkeys(subjects))
    keys = [subject_key(s) for s in wanted]
    stored, reason = read_vectors(directory, repo, model)
    report = SubjectSync(model, subjects=len(wanted), rebuilt=reason)
    if stored is not None and set(stored) == set(keys):
        report.kept = len(keys)
        if target is not None:  # the store's folder, made (with the file) if it was not
            target()
        return report
    if not wanted:  # no history (any more): no file, and nothing to embed
        if stored is not None or reason is not None:
            with contextlib.suppress(FileNotFoundError):
                vectors_path(out(), repo, model).unlink()
                report.written = True
        return report
    embedder = make_embedder()
    if embedder.name != model:
        raise ValueError(f"embedder {embedder.name!r} is not {model!r}")
    held = stored or {}
    if held and len(next(iter(held.values()))) != embedder.dimension:
        held = {}
    todo = [s for s, k in zip(wanted, keys, strict=True) if k not in held]
    fresh = dict(zip(todo, embedder.embed(todo), strict=True)) if todo else {}
    rows = [(k, held[k] if k in held else fresh[s]) for s, k in zip(wanted, keys, strict=True)]
    write_vectors(out(), repo, model, embedder.dimension, rows)
    report.embedded, report.kept, report.written = len(todo), len(wanted) - len(todo), True
    return report


def stored_subjects(
    directory: Path, repo: str, model: str, dimension: int, subjects: Sequence[str]
) -> tuple[dict[str, list[float]], str | None]:
    """subject -> stored vector for those of ``subjects`` the repo's file holds;
    why the file was ignored, if it was."""
    stored, reason = read_vectors(directory, repo, model, dimension)
    if stored is None:
        return {}, reason
    out: dict[str, list[float]] = {}
    for subject in subjects:
        vector = stored.get(subject_key(subject))
        if vector is not None:
            out[subject] = vector
    return out, None


def _scanned_window(store: Store, repo: str, setting: str) -> tuple[str, list[str]] | None:
    """(model, the history window's subjects on the repo's stored history node) when
    ``setting`` (the configured embedder) names a model the signal takes; else None."""
    from context_cut.repo_history import history_node
    from context_cut.repo_nearest import SETTINGS, window_subjects

    model = SETTINGS.get(setting)
    if model is None:
        return None
    node = history_node(store, repo)
    commits = list(node.attributes.get("commits") or []) if node is not None else []
    return model, window_subjects(commits)


def sync_scanned(
    store: Store,
    repo: str,
    directory: Path,
    setting: str,
    make_embedder: Callable[[], Embedder],
    target: Callable[[], Path] | None = None,
) -> SubjectSync | None:
    """``sync_subjects`` for the window on the repo's stored history node, when
    ``setting`` (the configured embedder) names a model the signal takes; None
    for any other (nothing is embedded for a signal that would not use it)."""
    window = _scanned_window(store, repo, setting)
    if window is None:
        return None
    model, subjects = window
    return sync_subjects(directory, repo, model, subjects, make_embedder, target)


def vector_status(store: Store, repo: str, directory: Path, setting: str) -> str | None:
    """One line for ``memgraph repo status``: how many of the history window's
    subjects the repo's file holds for the configured model, or why it is unusable;
    None when ``setting`` names no model the signal takes. Reads only."""
    window = _scanned_window(store, repo, setting)
    if window is None:
        return None
    model, subjects = window
    wanted = list(dict.fromkeys(subjects))
    stored, reason = read_vectors(directory, repo, model)
    if reason is not None:
        return f"subject vectors ({model}): unusable, {reason}"
    held = sum(subject_key(s) in stored for s in wanted) if stored is not None else 0
    line = f"subject vectors ({model}): {held} of {len(wanted)} window subjects stored"
    return line + ("" if held == len(wanted) else "; `memgraph repo scan` stores the rest")


_FILE = re.compile(r"^[a-z0-9_]+-([0-9a-f]{12})\.[a-z0-9_]+\.vec$")


def _known_repos(store: Store) -> set[str]:
    """The repo digests (as in a file's name) of the store's live history nodes."""
    from profiles.repo_scan.keys import ARCH

    return {
        digest(str(node.attributes.get("repo") or ""), length=12)
        for node in store.iter_nodes(profile=ARCH.value, kind="history")
        if node.lifecycle != "retired"
    }


def orphaned_files(store: Store, directory: Path) -> list[tuple[Path, int]]:
    """(path, size in bytes) of the subject-vector files in ``directory`` whose repo
    has no live history node in ``store`` (a repo scanned under another name, a store
    replaced): nothing reads them any more and no scan rewrites them. Reads only; a
    name that is not ``vectors_path``'s is not ours and never listed."""
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    known = _known_repos(store)
    out: list[tuple[Path, int]] = []
    for entry in entries:
        match = _FILE.match(entry.name)
        if match and match.group(1) not in known and entry.is_file(follow_symlinks=False):
            out.append((Path(entry.path), entry.stat(follow_symlinks=False).st_size))
    return out
