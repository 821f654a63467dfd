"""The fast paths' reads of a store file, without the store class (stdlib only).

``memgraph voice`` answers from here in a fresh process inside its 150 ms
budget. Every function returns None when the file is not something this path
can answer for sure (absent tables: an older store that the full path will
migrate; an unreadable file): the caller then takes the full path, which opens
the store and reports or migrates.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memgraph.store.rows import RegistryRow
from memgraph.store.sqlite_ext.base import LightSQLite
from memgraph.store.sqlite_ext.voice_index import SQLiteVoiceIndex
from memgraph.store.voice_rows import VoiceIndexStats, VoiceRow, VoiceSearch


def _open(path: Path) -> LightSQLite | None:
    try:
        light = LightSQLite(path, readonly=True)
        if light.has_table("voice_index") and light.has_table("voice_tri"):
            return light  # else an older store: the full path migrates it
        light.close()
    except sqlite3.Error:
        pass
    return None


def voice_search(path: Path, request: VoiceSearch) -> list[VoiceRow] | None:
    light = _open(path)
    if light is None:
        return None
    try:
        return SQLiteVoiceIndex(light).search(request)
    except sqlite3.Error:
        return None
    finally:
        light.close()


def voice_stats(path: Path) -> VoiceIndexStats | None:
    light = _open(path)
    if light is None:
        return None
    try:
        return SQLiteVoiceIndex(light).stats()
    except sqlite3.Error:
        return None
    finally:
        light.close()


def registry_rows(path: Path) -> dict[str, RegistryRow] | None:
    """Every transcript registry row by path (the lean backfill rerun); None when
    the file has no registry yet or cannot be read."""
    from memgraph.store.sqlite_ext.registry import SQLiteRegistry

    if not path.is_file():
        return None
    try:
        light = LightSQLite(path, readonly=True)
    except sqlite3.Error:
        return None
    try:
        if not light.has_table("voice_registry"):
            return None
        return {row.path: row for row in SQLiteRegistry(light).rows()}
    except sqlite3.Error:
        return None
    finally:
        light.close()
