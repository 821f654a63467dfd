"""The configured vector nerve for a command (``context``, ``recall``, ``index``,
``repo scan``), without typer: its settings resolved as ``load_settings`` resolves
them but without the pydantic model when every value is plainly valid
(``nerve_config``), and the nerve itself (``nerve_for``: the embedder, the Qdrant
index and the store's word and token tables, ``memgraph.home_dirs``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from memgraph.cli.common import settings

if TYPE_CHECKING:
    from context_cut.vectors import VectorNerve
    from memgraph.config import Settings
    from memgraph.home_dirs import StoreRef

VECTORS_OFF = "vectors not configured (MEMGRAPH_EMBEDDER=none): BM25 only"


class NerveSettings(Protocol):
    """What a vector nerve reads of the settings: ``Settings`` or ``NerveConfig``."""

    @property
    def home(self) -> Path: ...
    @property
    def embedder(self) -> str: ...
    @property
    def embed_model(self) -> str: ...
    @property
    def ollama_host(self) -> str | None: ...
    @property
    def ollama_timeout(self) -> float: ...
    @property
    def qdrant_path(self) -> Path | None: ...
    @property
    def qdrant_url(self) -> str | None: ...
    @property
    def qdrant_engine(self) -> str: ...


@dataclass(frozen=True)
class NerveConfig:
    """The settings a nerve reads, resolved like ``load_settings`` resolves them
    (flags > env > file > the same defaults) without the pydantic ``Settings``."""

    home: Path
    embedder: str = "none"
    embed_model: str = "all-minilm"
    ollama_host: str | None = None
    ollama_timeout: float = 30.0
    qdrant_path: Path | None = None
    qdrant_url: str | None = None
    qdrant_engine: str = "edge"


_NERVE_TEXT = ("embedder", "embed_model", "ollama_host", "qdrant_url", "qdrant_engine")
_NERVE_PATHS = ("home", "qdrant_path")
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def nerve_config(
    home: Path | None, embedder: str | None, qdrant_path: Path | None, qdrant_url: str | None
) -> NerveSettings:
    """A ``NerveConfig`` when every value it reads is plainly valid (text, paths, a
    number); anything else goes through ``config_for`` (pydantic words the error)."""
    from memgraph.config import default_home, resolve

    flags = {"home": home, "embedder": embedder, "qdrant_path": qdrant_path}
    raw = resolve(
        {**flags, "qdrant_url": qdrant_url}, None, (*_NERVE_TEXT, *_NERVE_PATHS, "ollama_timeout")
    )
    timeout = raw.pop("ollama_timeout", 30.0)
    if isinstance(timeout, str) and _NUMBER.fullmatch(timeout):
        timeout = float(timeout)
    plain = (
        all(isinstance(raw[f], str) for f in _NERVE_TEXT if f in raw)
        and all(isinstance(raw[f], str | Path) for f in _NERVE_PATHS if f in raw)
        and isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
    )
    if not plain:
        return config_for(home, embedder, qdrant_path, qdrant_url)
    if raw.get("ollama_host") is None and "OLLAMA_HOST" in os.environ:
        raw["ollama_host"] = os.environ["OLLAMA_HOST"]  # as load_settings does
    paths = {f: Path(raw.pop(f)) for f in _NERVE_PATHS if f in raw}
    return NerveConfig(**{"home": default_home(), **paths, **raw, "ollama_timeout": float(timeout)})


def nerve_for(
    cfg: NerveSettings, *, required: bool, store: StoreRef
) -> tuple[VectorNerve | None, str | None]:
    """The configured nerve for ``store`` (its word and token tables:
    ``memgraph.home_dirs``), or (None, one-line notice) when vectors are off or down."""
    from context_cut.embedders import make_embedder
    from context_cut.token_vectors import tokens_dir_for
    from context_cut.vectors import open_nerve
    from context_cut.word_vectors import words_dir_for
    from memgraph.errors import BackendUnavailable, MissingExtra, UsageError

    try:
        embedder = make_embedder(
            cfg.embedder, model=cfg.embed_model, host=cfg.ollama_host, timeout=cfg.ollama_timeout
        )
    except (MissingExtra, BackendUnavailable) as exc:
        if required:
            raise
        return None, f"vectors unavailable, BM25 only: {exc}"
    if embedder is None:
        if required:
            raise UsageError("no embedder configured: pass --embedder hash|ollama|minilm")
        return None, VECTORS_OFF
    path = cfg.qdrant_path or cfg.home / "qdrant"
    try:
        nerve = open_nerve(embedder, path=path, url=cfg.qdrant_url, engine=cfg.qdrant_engine)
        nerve.words_dir = words_dir_for(cfg.home, store)
        nerve.tokens_dir = tokens_dir_for(cfg.home, store)
    except (MissingExtra, BackendUnavailable) as exc:
        if required:
            raise
        return None, f"vectors unavailable, BM25 only: {exc}"
    return nerve, None


def config_for(
    home: Path | None, embedder: str | None, qdrant_path: Path | None, qdrant_url: str | None
) -> Settings:
    return settings(home=home, embedder=embedder, qdrant_path=qdrant_path, qdrant_url=qdrant_url)
