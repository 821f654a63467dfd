"""The one config resolver: CLI flags > ``MEMGRAPH_*`` env > TOML file > defaults.

Stdlib only at import, because every entry point uses it, the fast paths
(``memgraph voice``, ``memgraph note``, ``memgraph hook session-end``) included:
``resolve(...)`` gives each field's raw value from the first source that has
it, ``paths(...)`` the store file and vault, ``store_location(...)`` the store
(file or URL) and ``vectors_wanted(...)`` whether an embedder is configured (the
lean ``recall``/``context`` paths need no more). ``load_settings(**overrides)``
validates the same raw values into the pydantic ``Settings`` model
(``memgraph.settings``). Read only at entry points (CLI, MCP server) and passed
down explicitly; library code never reads the environment itself.

Env names match case-insensitively (``memgraph_home`` counts, as pydantic-settings
did), an exact-case name first. The TOML file is ``$MEMGRAPH_CONFIG``, else
``$XDG_CONFIG_HOME/memgraph/config.toml`` (``~/.config`` when unset); keys are
the field names.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from memgraph.errors import ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memgraph.settings import Settings as Settings

# Every field of ``memgraph.settings.Settings`` (a test keeps the two equal).
FIELDS = (
    "home",
    "store",
    "vault",
    "transcripts",
    "workspace",
    "session",
    "persona",
    "repos",
    "window_gap_minutes",
    "night_window",
    "classifier",
    "ollama_model",
    "ollama_host",
    "ollama_timeout",
    "ollama_retries",
    "ollama_batch_tokens",
    "qdrant_url",
    "qdrant_path",
    "qdrant_engine",
    "embedder",
    "embed_model",
    "sleep_schedule",
    "crontab",
    "systemctl",
    "hook_budget",
    "redact",
    "exclude_projects",
    "exclude_paths",
)
ENV_PREFIX = "MEMGRAPH_"
STORE_FILE = "memgraph.db"


def _environ(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def default_config_file(env: Mapping[str, str] | None = None) -> Path:
    base = _environ(env).get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "memgraph" / "config.toml"


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """The TOML file consulted (it need not exist)."""
    explicit = env_value("config", env)
    return Path(explicit) if explicit else default_config_file(env)


def default_home(env: Mapping[str, str] | None = None) -> Path:
    base = _environ(env).get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "memgraph"


def default_vault() -> Path:
    return Path.home() / "memgraph-vault"


def default_transcripts() -> list[Path]:
    home = Path.home()
    # one root per harness in profiles/voice/readers/registry.py (default_roots)
    return [home / ".claude" / "projects", home / ".codex" / "sessions", home / ".gemini" / "tmp"]


def split_paths(text: str) -> list[Path]:
    """A ``transcripts``/``repos`` setting given as one string (env or TOML):
    ``os.pathsep``-separated, ``~`` expanded, blanks dropped."""
    return [Path(p).expanduser() for p in text.split(os.pathsep) if p.strip()]


def env_value(field: str, env: Mapping[str, str] | None = None) -> str | None:
    """``MEMGRAPH_<FIELD>`` from the environment, the exact-case name first."""
    env = _environ(env)
    name = ENV_PREFIX + field.upper()
    if name in env:
        return env[name]
    lower = name.lower()
    for key, value in env.items():
        if key.lower() == lower:
            return value
    return None


def read_config_file(path: Path) -> dict[str, Any]:
    """The TOML file's table ({} when there is none); a bad file is a ``ConfigError``
    naming it. Keys that are not settings are warned about once per process."""
    if not path.is_file():
        return {}
    import tomllib

    try:
        with path.open("rb") as fh:
            table = tomllib.load(fh)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"invalid configuration: {path}: {exc}") from None
    unknown = unknown_keys(table)
    if unknown and str(path) not in _WARNED:
        import sys

        _WARNED.add(str(path))
        sys.stderr.write(f"memgraph: warning: {unknown_line(path, unknown)}\n")
    return table


# config files already warned about (a process reads its file once or twice)
_WARNED: set[str] = set()


def unknown_keys(table: Mapping[str, Any]) -> list[str]:
    """Keys of a config table that name no setting (ignored, probably typos)."""
    return sorted(k for k in table if k not in FIELDS)


def unknown_line(path: Path, unknown: Iterable[str]) -> str:
    """``<file>: unknown key 'valt' ignored (did you mean 'vault'?)``, one clause per key."""
    from difflib import get_close_matches

    parts = []
    for key in unknown:
        near = get_close_matches(key, FIELDS, n=1)
        parts.append(
            f"unknown key {key!r} ignored" + (f" (did you mean {near[0]!r}?)" if near else "")
        )
    return f"{path}: " + "; ".join(parts)


def resolve(
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    fields: Iterable[str] = FIELDS,
) -> dict[str, Any]:
    """Raw value of each of ``fields`` that some source sets (absent: use the default).

    ``overrides`` (CLI flags; ``None`` values are unset) win over the
    environment, which wins over the TOML file (read only when needed).
    """
    overrides = overrides or {}
    found: dict[str, Any] = {}
    missing: list[str] = []
    for field in fields:
        value = overrides.get(field)
        if value is None:
            value = env_value(field, env)
        if value is None:
            missing.append(field)
        else:
            found[field] = value
    if missing:
        table = read_config_file(config_file(env))
        found.update((f, table[f]) for f in missing if f in table)
    return found


def empty_folder(value: object) -> bool:
    """A folder setting given as empty text (``MEMGRAPH_HOME=``, ``home = ""`` in the
    file, ``--home ""`` on a lean path): refused, never read as the current folder,
    where a store or an index would be made wherever the command happened to run.
    Usually a shell variable that was not set."""
    return isinstance(value, str) and not value.strip()


EMPTY_FOLDER = "is empty (an unset shell variable?): name a folder, or leave it unset"


def paths(
    home: str | Path | None = None,
    vault: str | Path | None = None,
    store: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[Path, Path]:
    """(store file, vault): ``store`` if given, else the ``store`` setting when it
    names a file, else ``<home>/memgraph.db``. A ``postgresql://`` store has no
    file: callers check ``store_url`` first (the CLI's lean paths do)."""
    raw = resolve({"home": home, "vault": vault, "store": store}, env, ("home", "vault", "store"))
    for field in ("home", "vault", "store"):
        if field in raw and not isinstance(raw[field], str | Path):
            where = f" in {config_file(env)}" if env_value(field, env) is None else ""
            raise ConfigError(f"invalid configuration{where}: {field} must be a path")
    for field, given in (("home", home), ("vault", vault)):
        if field in raw and empty_folder(raw[field]):
            if given is not None:
                name = f"--{field}"
            elif env_value(field, env) is not None:
                name = ENV_PREFIX + field.upper()
            else:
                name = f"{field} in {config_file(env)}"
            raise ConfigError(f"{name} {EMPTY_FOLDER}")
    home_dir = Path(raw["home"]) if "home" in raw else default_home(env)
    vault_dir = Path(raw["vault"]) if "vault" in raw else default_vault()
    chosen = raw.get("store")
    if chosen and not is_url(str(chosen)):  # "" is unset, as in ``Settings``
        return Path(chosen), vault_dir
    return home_dir / STORE_FILE, vault_dir


# The largest token budget a packet may be asked for, on every surface (CLI, MCP, the
# SessionStart hook): a context window's worth; more is a typo (an extra zero), not a
# wish. Here rather than in context_cut.budget: the hook's path reads it and stays stdlib.
MAX_BUDGET = 200_000

URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(location: str) -> bool:
    """Whether a store location names a PostgreSQL server rather than a file."""
    return location.startswith(URL_SCHEMES)


def store_url(store: str | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """The ``postgresql://`` URL of the store (``store`` if given, else the
    ``store`` setting: env, then the TOML file), or None for a SQLite file."""
    raw = resolve({"store": store}, env, ("store",)).get("store")
    return raw if isinstance(raw, str) and is_url(raw) else None


def store_location(
    home: str | Path | None = None,
    store: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """Where the store is: ``store`` (``--store``: a file or a URL), else the
    ``store`` setting, else ``<home>/memgraph.db``; what ``load_settings`` gives,
    without building the pydantic model (``memgraph.cli.common.store_from``)."""
    if store is not None:
        return str(store)
    return store_url(None, env) or str(paths(home=home, env=env)[0])


def vectors_wanted(embedder: str | None = None, env: Mapping[str, str] | None = None) -> bool:
    """Whether an embedder is configured (``--embedder``, env, file): unset or
    ``none`` means no, so a lexical-only read (``recall``, ``context``) needs
    neither the validated ``Settings`` nor the vector stack. Anything else, a
    bad value included, is for ``load_settings`` and ``make_embedder`` to check."""
    raw = resolve({"embedder": embedder}, env, ("embedder",)).get("embedder")
    return raw not in (None, "", "none")


def _as_list(field: str, value: object, sep: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(sep) if p.strip())
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise ConfigError(f"invalid configuration: {field} must be a list of strings")


def as_bool(field: str, value: object) -> bool:
    """A boolean setting from TOML (true/false) or env text (1/0, true/false, yes/no, on/off)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"invalid configuration: {field} must be true or false, not {value!r}")


def privacy(
    redact: bool | None = None, env: Mapping[str, str] | None = None
) -> tuple[bool, tuple[str, ...], tuple[str, ...]]:
    """(redact secrets at capture, excluded projects, excluded path globs).

    ``redact`` (a CLI ``--no-redact`` gives False) wins; else ``MEMGRAPH_REDACT``,
    the file's ``redact``, default true. ``exclude_projects`` is a list (env: comma
    separated) of project names; ``exclude_paths`` a list (env: ``os.pathsep``
    separated) of globs matched against a session's cwd and transcript path
    (``~`` expanded; a directory excludes everything under it).
    """
    raw = resolve({"redact": redact}, env, ("redact", "exclude_projects", "exclude_paths"))
    on = as_bool("redact", raw["redact"]) if "redact" in raw else True
    projects = _as_list("exclude_projects", raw.get("exclude_projects", ()), ",")
    globs = _as_list("exclude_paths", raw.get("exclude_paths", ()), os.pathsep)
    return on, projects, tuple(os.path.expanduser(g) for g in globs)


def load_settings(**overrides: Any) -> Settings:
    """Settings for an entry point; ``overrides`` (CLI flags) win over everything."""
    from memgraph.settings import Settings

    raw = resolve(overrides)
    try:
        settings = Settings(**raw)
    except Exception as exc:  # pydantic ValidationError
        where = _blame_file(exc, overrides)
        raise ConfigError(f"invalid configuration{where}: {_first_problem(exc, where)}") from None
    if "OLLAMA_HOST" in os.environ and settings.ollama_host is None:
        settings.ollama_host = os.environ["OLLAMA_HOST"]
    return settings


def _first_problem(exc: Exception, where: str) -> str:
    """``MEMGRAPH_WINDOW_GAP_MINUTES='often': Input should be a valid integer...``:
    the setting as the person wrote it (the env name, or the file's key), the
    value, and pydantic's reason without its type tags and class names."""
    import re

    errors = getattr(exc, "errors", None)
    try:
        found = errors() if callable(errors) else []
        first = found[0]
        field = str(first["loc"][0])
    except Exception:
        return " ".join(str(exc).split())[:300]
    name = field if where or env_value(field) is None else ENV_PREFIX + field.upper()
    shown = repr(first.get("input"))
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    reason = re.sub(r" for <class '[^']*'>", "", str(first.get("msg", "invalid")))
    reason = reason.removeprefix("Value error, ")  # pydantic's tag on a validator's own words
    more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
    if name == field:  # the file's key (an item of a list: transcripts[0])
        name += "".join(f"[{p}]" for p in first["loc"][1:])
        return f"{name} = {shown}: {reason}{more}"
    return f"{name}={shown}: {reason}{more}"


def _blame_file(exc: Exception, overrides: Mapping[str, Any]) -> str:
    """`` in <file>`` when a field that failed validation came from the config file."""
    errors = getattr(exc, "errors", None)
    try:
        bad = {str(e["loc"][0]) for e in errors()} if callable(errors) else set()
    except Exception:
        return ""
    path = config_file()
    table = read_config_file(path)
    from_file = [f for f in bad if f in table and overrides.get(f) is None and env_value(f) is None]
    return f" in {path}" if from_file else ""


def __getattr__(name: str) -> Any:
    if name == "Settings":  # the pydantic model, built on first use
        from memgraph.settings import Settings

        return Settings
    raise AttributeError(f"module 'memgraph.config' has no attribute {name!r}")


def chosen_persona(flag: str | None) -> str | None:
    """The persona `wake` reads (CLI, fast path and MCP alike): the flag, else a
    configured one (env, then file), else None: the most recently active of any."""
    found = flag or resolve(None, None, ("persona",)).get("persona")
    return str(found) if found else None
