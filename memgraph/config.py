"""One small settings model: env (MEMGRAPH_*) over a TOML file over defaults.

Read only at entry points (CLI, MCP server) and passed down explicitly;
library code never reads the environment itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from memgraph.errors import ConfigError


def default_config_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memgraph" / "config.toml"


def _default_home() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "memgraph"


def _default_transcripts() -> list[Path]:
    return [Path.home() / ".claude" / "projects", Path.home() / ".codex" / "sessions"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMGRAPH_", extra="ignore")

    home: Path = Field(default_factory=_default_home, description="store directory")
    # a postgresql:// URL (one store for a fleet of machines); unset: <home>/memgraph.db
    store: str | None = None
    vault: Path = Field(
        default_factory=lambda: Path.home() / "memgraph-vault", description="vault root"
    )
    # Path lists come from env as os.pathsep-separated text ("a:b"), or a TOML list.
    transcripts: Annotated[list[Path], NoDecode] = Field(default_factory=_default_transcripts)
    workspace: Path = Field(default_factory=Path.cwd, description="where .memgraph/ lives")
    session: str | None = None
    persona: str = "default"
    repos: Annotated[list[Path], NoDecode] = Field(default_factory=list)
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
    embedder: str = "none"  # none | hash | ollama | minilm
    embed_model: str = "all-minilm"

    @field_validator("transcripts", "repos", mode="before")
    @classmethod
    def _split_paths(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [Path(p).expanduser() for p in value.split(os.pathsep) if p.strip()]
        return value

    @property
    def store_path(self) -> Path:
        return self.home / "memgraph.db"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = Path(os.environ.get("MEMGRAPH_CONFIG") or default_config_file())
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if path.is_file():
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
        return tuple(sources)


def load_settings(**overrides: Any) -> Settings:
    """Settings for an entry point; ``overrides`` (CLI flags) win over everything."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    try:
        settings = Settings(**clean)
    except Exception as exc:  # pydantic ValidationError or a TOML syntax error
        first = str(exc).strip().splitlines()
        raise ConfigError(f"invalid configuration: {' '.join(first[:3])}") from None
    if "OLLAMA_HOST" in os.environ and settings.ollama_host is None:
        settings.ollama_host = os.environ["OLLAMA_HOST"]
    return settings
