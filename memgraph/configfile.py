"""A user's own config file (Claude Code's settings.json, a systemd unit), rewritten
the way they keep it: the one writer in memgraph that follows a link on purpose (a
settings file kept by a dotfile manager), keeping the file's mode and a byte-for-byte
backup, and never replacing a save made after the caller's read.

Its writes go through ``memgraph.fileio`` (called through the module, so a test that
replaces one of its functions reaches this writer too).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from memgraph import fileio
from memgraph.beneath import FileEscape
from memgraph.errors import StoreError


def replace_config_file(
    path: Path, text: str, *, planned_from: str | None, backup_suffix: str = ".bak"
) -> Path:
    """Rewrite a user's config file (e.g. Claude Code settings) the way they keep it.

    A symlink is followed (dotfile managers link settings files: the link stays, its
    target gets the new text), the file's permission bits are kept (mkstemp would
    make it 0600), and the previous bytes are kept in ``<target><backup_suffix>``
    (whatever their encoding: a Latin-1 file is never replaced without its copy; one
    that cannot be read whole raises ``StoreError`` and is left as it is).

    ``planned_from`` is the text the caller read and planned ``text`` from (None: there
    was no file). A file that no longer holds it (saved by an editor or by Claude Code
    itself since the caller's read), or that is saved again while this writes, is not
    replaced: ``StoreError``, nothing written. Returns the file that was written.
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    mode = None
    old: bytes | None = None
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise FileEscape(f"{path} is not a regular file; not changed")
        mode = stat.S_IMODE(st.st_mode)
        # byte for byte: a file saved in Latin-1 (or any bytes) is backed up as it is
        old = fileio.read_bytes_nofollow(target)
        if old is None:
            raise StoreError(
                f"{path} cannot be read whole (unreadable, or over "
                f"{fileio.MAX_VIEW_BYTES >> 20} MiB) to keep a backup; not changed"
            )
    # surrogateescape: a caller that read undecodable bytes that way plans from them too
    if old != (None if planned_from is None else planned_from.encode("utf-8", "surrogateescape")):
        raise StoreError(f"{path} changed while memgraph read it; nothing overwritten, rerun")
    if old is not None:
        fileio.atomic_write_bytes(target.with_name(target.name + backup_suffix), old, mode=mode)
    # a save in between (an editor, Claude Code itself) is not replaced by what was
    # planned from the bytes before it
    data = text.encode("utf-8")
    if not fileio.replace_if_unchanged(target, data, old, mode=0o644 if mode is None else mode):
        raise StoreError(f"{path} changed while memgraph wrote it; nothing overwritten, rerun")
    return target
