"""The validated settings model (pydantic); values come from ``memgraph.config.resolve``.

Import ``Settings`` and ``load_settings`` from ``memgraph.config``: this module
only defines the fields, their defaults and their parsing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memgraph.config import (
    EMPTY_FOLDER,
    STORE_FILE,
    default_home,
    default_transcripts,
    default_vault,
    empty_folder,
    split_paths,
)


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=False)

    home: Path = Field(default_factory=default_home, description="store directory")
    # the store: a postgresql:// URL (one store for a fleet of machines) or a file;
    # unset: <home>/memgraph.db
    store: str | None = None
    vault: Path = Field(default_factory=default_vault, description="vault root")
    # Path lists come from env as os.pathsep-separated text ("a:b"), or a TOML list.
    transcripts: list[Path] = Field(default_factory=default_transcripts)
    workspace: Path = Field(default_factory=Path.cwd, description="where .memgraph/ lives")
    session: str | None = None
    persona: str = "default"
    repos: list[Path] = Field(default_factory=list)
    window_gap_minutes: int = 15
    night_window: str = "02:00-06:00"
    classifier: str = "rules"
    ollama_model: str = "gemma4:e2b"
    ollama_host: str | None = None
    ollama_timeout: float = 30.0
    ollama_retries: int = 2  # extra attempts per request after the first
    ollama_batch_tokens: int = 500  # messages per /api/chat request, in estimated tokens
    qdrant_url: str | None = None
    qdrant_path: Path | None = None
    qdrant_engine: str = "edge"  # embedded engine: edge (Qdrant Edge) | qdrant-client
    embedder: str = "none"  # none | hash | ollama | minilm | minilm-torch
    embed_model: str = "all-minilm"
    sleep_schedule: str = "auto"  # auto | cron | systemd (memgraph sleep --install)
    crontab: str = "crontab"  # the crontab binary sleep --install runs
    systemctl: str = "systemctl"
    hook_budget: int = 1500  # tokens the SessionStart hook may print
    # privacy (memgraph.config.privacy reads the same keys for the capture paths)
    redact: bool = True  # secrets redacted at capture (--no-redact: off for one run)
    exclude_projects: list[str] = Field(default_factory=list)  # never captured
    exclude_paths: list[str] = Field(default_factory=list)  # cwd/transcript globs

    @field_validator("home", "vault", "workspace", "qdrant_path", mode="before")
    @classmethod
    def _not_empty(cls, value: Any) -> Any:
        if empty_folder(value):
            raise ValueError(EMPTY_FOLDER)
        return value

    @field_validator("transcripts", "repos", mode="before")
    @classmethod
    def _split_paths(cls, value: Any) -> Any:
        return split_paths(value) if isinstance(value, str) else value

    @field_validator("exclude_projects", "exclude_paths", mode="before")
    @classmethod
    def _split_names(cls, value: Any, info: Any) -> Any:
        if isinstance(value, str):
            sep = "," if info.field_name == "exclude_projects" else os.pathsep
            return [p.strip() for p in value.split(sep) if p.strip()]
        return value

    @property
    def store_path(self) -> Path:
        return self.home / STORE_FILE
