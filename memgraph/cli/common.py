"""Helpers shared by command modules: settings, store opening, output.

Stdlib at import (the lean ``recall``/``context`` paths import it): the pydantic
``Settings`` model is built only by ``settings()``, and ``store_from`` finds the
store with the resolver alone (``memgraph.config.store_location``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memgraph.config import load_settings
from memgraph.store import open_store

if TYPE_CHECKING:
    from memgraph.config import Settings
    from memgraph.store import Store


def settings(**overrides: Any) -> Settings:
    return load_settings(**overrides)


def store_from(
    home: Path | None = None, store: str | Path | None = None, *, for_reading: bool = False
) -> Store:
    """Open the store named by ``--store`` (a file or a postgresql:// URL), else
    ``MEMGRAPH_STORE``, else ``<home>/memgraph.db``.

    ``for_reading``: a read-only store (0444 file, read-only dir) opens read-only.
    """
    from memgraph.config import store_location as where

    return open_store(where(home=home, store=store), for_reading=for_reading)


def existing_store(
    home: Path | None = None, store: str | Path | None = None, *, for_reading: bool = False
) -> Store:
    """``store_from`` for a command with nothing to do on a store that does not exist
    (review, reindex, forget, index): a typo in ``--home`` is a ``StoreError``,
    not a new empty store and a report of nothing."""
    from memgraph.config import is_url
    from memgraph.config import store_location as where
    from memgraph.errors import StoreError

    location = where(home=home, store=store)
    if not is_url(location) and not _is_file(location):
        raise StoreError(
            f"no store at {location} (check --home/MEMGRAPH_HOME or --store/MEMGRAPH_STORE)"
        )
    return open_store(location, for_reading=for_reading)


def _is_file(location: str) -> bool:
    """``Path.is_file`` that lets a path the OS cannot take (a NUL byte, too long)
    raise, so the CLI names it (``memgraph.errors``) instead of "no store at"."""
    import os
    import stat

    try:
        return stat.S_ISREG(os.stat(location).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


def store_location(cfg: Settings, store: str | Path | None = None) -> str:
    """``--store`` (a file or a postgresql:// URL), else ``MEMGRAPH_STORE``, else
    ``<home>/memgraph.db``."""
    if store is not None:
        return str(store)
    return cfg.store or str(cfg.store_path)


def print_json_line(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")


def is_tty() -> bool:
    return sys.stdout.isatty()
