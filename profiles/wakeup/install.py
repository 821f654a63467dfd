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
import shlex
import shutil
from pathlib import Path
from typing import Any

from memgraph.errors import ConfigError

EVENTS = {"SessionStart": "hook session-start", "SessionEnd": "hook session-end"}
SIDECAR = ".memgraph.json"


def default_base() -> str:
    exe = shutil.which("memgraph")
    return shlex.quote(exe) if exe else "memgraph"


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + SIDECAR)


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    if not path.exists():
        return None, {}
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if text.strip() else {}
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


def install(path: Path, base: str | None = None) -> list[str]:
    """Add the missing hooks; the events added (empty: nothing to do)."""
    from memgraph.fileio import atomic_write_text, replace_config_file

    original, data = _load(path)
    base = base or default_base()
    added: list[str] = []
    for event, mark in EVENTS.items():
        groups = _groups(data, event, path, create=True)
        if any(_ours(g, mark) for g in groups):
            continue
        groups.append({"hooks": [{"type": "command", "command": f"{base} {mark}"}]})
        added.append(event)
    if not added:
        return []
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    side = _sidecar(path)
    record: dict[str, Any] = {"original": original, "installed": text, "added": added}
    if side.exists():  # a second install on top: keep the first original
        try:
            earlier = json.loads(side.read_text(encoding="utf-8"))
            record["original"] = earlier.get("original", original)
            record["added"] = sorted(set(earlier.get("added", [])) | set(added))
        except (OSError, ValueError):
            pass
    atomic_write_text(side, json.dumps(record, ensure_ascii=False) + "\n")
    # a symlinked settings file keeps its link and mode (memgraph.fileio)
    replace_config_file(path, text)
    return added


def uninstall(path: Path) -> list[str]:
    """Remove what install added; the events removed."""
    from memgraph.fileio import replace_config_file

    side = _sidecar(path)
    record: dict[str, Any] = {}
    if side.exists():
        try:
            record = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {}
    added = [e for e in record.get("added", []) if e in EVENTS]
    if not added:
        return []
    current, data = _load(path)
    if current is not None and current == record.get("installed"):
        original = record.get("original")
        if original is None:
            path.unlink()
        else:
            replace_config_file(path, original)
        side.unlink()
        return added
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event in added:
            groups = _groups(data, event, path, create=False)
            kept = [g for g in groups if not _ours(g, EVENTS[event])]
            if kept:
                hooks[event] = kept
            else:
                hooks.pop(event, None)
        if not hooks:
            data.pop("hooks", None)
    if current is not None:
        replace_config_file(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    side.unlink()
    return added
