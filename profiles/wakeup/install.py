"""``memgraph hook install|uninstall``: SessionStart + SessionEnd in Claude Code settings.

Install adds what is missing (a ``memgraph hook session-start`` SessionStart
hook, a ``memgraph hook session-end`` SessionEnd hook), keeps every other
setting, and records in a sidecar (``<settings>.memgraph.json``) the file's
bytes before and after. Uninstall removes exactly what install added: when
the file is still what install wrote, the original bytes come back (the file
is removed if install created it), so install + uninstall leaves settings.json
byte-identical; when the user edited it since, only the entries install added
are taken out and everything else stays.
"""

from __future__ import annotations

import json
import os
import shlex
import unicodedata
from pathlib import Path
from typing import Any, TypeGuard

from memgraph.errors import ConfigError, MemgraphError, ReaderError, UsageError

EVENTS = {"SessionStart": "hook session-start", "SessionEnd": "hook session-end"}
SIDECAR = ".memgraph.json"


def default_base() -> str:
    """This memgraph as an absolute command for a hook or a nightly job
    (``memgraph.executable``): Claude Code, cron and systemd start it without the
    caller's PATH, where a bare ``memgraph`` is a hook that never runs."""
    from memgraph.executable import shell_command

    return shell_command()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR)


def _read(path: Path) -> str:
    """A settings-sized regular file's text: a FIFO or device is refused at once
    (never read forever), a huge file is refused past the cap."""
    from memgraph.inputs import read_bounded_text
    from profiles.voice.hooks import MAX_SETTINGS_BYTES

    return read_bounded_text(path, MAX_SETTINGS_BYTES, "settings file")


def _finite(text: str) -> float:
    """A JSON number as a float, refused when it does not fit one (``1e400``):
    written back it would be ``Infinity``, which no JSON reader accepts."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    if not os.path.lexists(path):
        return None, {}
    try:
        text = _read(path)
        data = (
            json.loads(text, parse_float=_finite, parse_constant=_no_constant)
            if text.strip()
            else {}
        )
    except RecursionError:
        raise ConfigError(f"{path} is not readable JSON (nested too deeply); not changed") from None
    except ReaderError as exc:  # not UTF-8 (saved in Latin-1), too big, not a regular file
        raise ConfigError(f"{exc}; not changed") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path} is not readable JSON ({exc}); not changed") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a JSON object; not changed")
    return text, data


def _groups(data: dict[str, Any], event: str, path: Path, create: bool) -> list[Any]:
    hooks = data.setdefault("hooks", {}) if create else data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f"{path}: 'hooks' is not an object; not changed")
    groups = hooks.setdefault(event, []) if create else hooks.get(event, [])
    if not isinstance(groups, list):
        raise ConfigError(f"{path}: 'hooks.{event}' is not a list; not changed")
    return groups


def _ours(group: Any, mark: str) -> bool:
    hooks = group.get("hooks", []) if isinstance(group, dict) else []
    return any(
        isinstance(h, dict) and isinstance(h.get("command"), str) and mark in h["command"]
        and "memgraph" in h["command"]
        for h in hooks
    )  # fmt: skip


def installed_events(path: Path) -> list[str]:
    """The events whose memgraph hook is in the settings file (for ``memgraph doctor``);
    an unreadable file is a ``ConfigError`` naming it."""
    _, data = _load(path)
    return [
        e
        for e, mark in EVENTS.items()
        if any(_ours(g, mark) for g in _groups(data, e, path, False))
    ]


def unreachable_hooks(path: Path) -> list[tuple[str, str, bool]]:
    """(event, command, broken) for each memgraph hook of the settings file whose
    program Claude Code may not start: ``broken`` when it is a path that is not an
    executable file (a venv moved or removed), else a bare name found through a
    PATH the hook may not have (a `hook install` run before it wrote absolute
    paths)."""
    _, data = _load(path)
    found: list[tuple[str, str, bool]] = []
    for event, mark in EVENTS.items():
        for group in _groups(data, event, path, False):
            if not _ours(group, mark):
                continue
            for hook in group.get("hooks", []):
                command = hook.get("command") if isinstance(hook, dict) else None
                if not isinstance(command, str) or mark not in command:
                    continue
                try:
                    program = os.path.expanduser(shlex.split(command)[0])
                except (ValueError, IndexError):
                    continue
                if "/" not in program:
                    found.append((event, command, False))
                elif not (os.path.isfile(program) and os.access(program, os.X_OK)):
                    found.append((event, command, True))
    return found


def hook_command(base: str, event: str) -> str:
    """The command line install writes for ``event``."""
    return f"{base} {EVENTS[event]}"


def install(path: Path, base: str | None = None, *, create: bool = False) -> list[str]:
    """Add the missing hooks; the events added (empty: nothing to do). A missing
    parent directory is created only with ``create`` (else a ``UsageError``: a
    typo in the path, or Claude Code is not installed)."""
    from memgraph.configfile import replace_config_file
    from memgraph.fileio import atomic_write_text

    base = base or default_base()
    bad = next((c for c in base if unicodedata.category(c) in ("Cc", "Zl", "Zp")), None)
    if bad is not None:  # a newline would make the hook run a second command
        raise UsageError(
            f"--command holds a control character ({bad!r}): one line of printable text, please"
        )
    original, data = _load(path)
    added: list[str] = []
    for event, mark in EVENTS.items():
        groups = _groups(data, event, path, create=True)
        if any(_ours(g, mark) for g in groups):
            continue
        groups.append({"hooks": [{"type": "command", "command": hook_command(base, event)}]})
        added.append(event)
    if not added:
        return []
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if not path.parent.is_dir():
        if not create:
            raise UsageError(
                f"{path.parent} does not exist (is Claude Code installed?); nothing changed. "
                "Create it, or rerun with --create"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
    side = _sidecar(path)
    commands = {e: hook_command(base, e) for e in added}
    record: dict[str, Any] = {
        "original": original,
        "installed": text,
        "added": added,
        "commands": commands,
    }
    if os.path.lexists(side):  # a second install on top: keep the first original
        earlier = _record(side, path)
        record["original"] = earlier.get("original", original)
        record["added"] = sorted({*earlier.get("added", []), *added} & set(EVENTS))
        earlier_commands = earlier.get("commands")
        if isinstance(earlier_commands, dict):
            record["commands"] = {**earlier_commands, **commands}
    atomic_write_text(side, json.dumps(record, ensure_ascii=False) + "\n")
    # a symlinked settings file keeps its link and mode (memgraph.fileio)
    replace_config_file(path, text, planned_from=original)
    return added


def _record(side: Path, path: Path) -> dict[str, Any]:
    """The install record, or a ``ConfigError``: guessing would remove the wrong
    entries or claim nothing is installed while memgraph's hooks stay in place."""
    try:
        record = json.loads(_read(side))
    except (OSError, ValueError, MemgraphError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        record, problem = None, f"cannot be read ({reason})"
    else:
        problem = "is not an install record"
    if not _is_record(record):
        raise ConfigError(
            f"memgraph's install record {side} {problem}; {path} not changed: remove the "
            "memgraph SessionStart/SessionEnd hooks from it by hand, then delete the record"
        )
    return record


def _is_record(record: Any) -> TypeGuard[dict[str, Any]]:
    """Whether a parsed sidecar has the shape install writes (a hand-edited or
    damaged one must not reach the code that trusts it)."""
    if not isinstance(record, dict):
        return False
    added, commands = record.get("added", []), record.get("commands") or {}
    return (
        isinstance(added, list)
        and all(isinstance(e, str) for e in added)
        and all(isinstance(record.get(k), str | None) for k in ("original", "installed"))
        and isinstance(commands, dict)
        and all(isinstance(c, str) for c in commands.values())
    )


def _without(groups: list[Any], mark: str, command: Any) -> list[Any]:
    """``groups`` minus the hook entry install added: the exact recorded command
    (older sidecars: any memgraph entry with the mark); a group left empty goes."""

    def added(h: Any) -> bool:
        if not isinstance(h, dict) or not isinstance(h.get("command"), str):
            return False
        if isinstance(command, str):
            return bool(h["command"] == command)
        return mark in h["command"] and "memgraph" in h["command"]

    kept: list[Any] = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list) or not any(added(h) for h in inner):
            kept.append(group)
            continue
        rest = [h for h in inner if not added(h)]
        if rest:
            kept.append({**group, "hooks": rest})
    return kept


def uninstall(path: Path) -> list[str]:
    """Remove what install added; the events removed."""
    from memgraph.configfile import replace_config_file

    side = _sidecar(path)
    record: dict[str, Any] = {}
    if os.path.lexists(side):
        record = _record(side, path)
    added = [e for e in record.get("added", []) if e in EVENTS]
    if not added:
        return []
    current, data = _load(path)
    if current is not None and current == record.get("installed"):
        original = record.get("original")
        if original is None:
            path.unlink()
        else:
            replace_config_file(path, original, planned_from=current)
        side.unlink()
        return added
    hooks = data.get("hooks")
    commands = record.get("commands")
    commands = commands if isinstance(commands, dict) else {}
    if isinstance(hooks, dict):
        for event in added:
            groups = _groups(data, event, path, create=False)
            kept = _without(groups, EVENTS[event], commands.get(event))
            if kept:
                hooks[event] = kept
            else:
                hooks.pop(event, None)
        if not hooks:
            data.pop("hooks", None)
    if current is not None:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        replace_config_file(path, text, planned_from=current)
    side.unlink()
    return added
