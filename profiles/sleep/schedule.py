"""``memgraph sleep --install/--uninstall``: run sleep nightly, in the night window.

Two ways, both per user and both reversible:

- ``cron``: one line in the user's crontab, marked ``# memgraph-sleep``; the
  crontab is read with ``<crontab> -l`` and written back with ``<crontab> -``
  (every other line kept as it was). Uninstall removes the marked line when it is
  the one install writes; a marked line that differs (a hand edit) is kept,
  commented out after ``KEPT``, and install does the same before adding its own.
- ``systemd``: ``memgraph-sleep.service`` + ``.timer`` under
  ``~/.config/systemd/user/``, enabled with ``<systemctl> --user``; written
  atomically, a different unit already there (a hand edit) kept in ``<unit>.bak``.
  Uninstall deletes a unit only when it is byte-identical to what install writes;
  a different one is moved to ``<unit>.bak`` (``.bak1``... when that is taken),
  which systemd ignores, so the timer stops and the edit is kept.

The ``crontab``/``systemctl`` binaries come from config (``MEMGRAPH_CRONTAB``,
``MEMGRAPH_SYSTEMCTL``), so tests point them at scripts and never touch a
real crontab.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memgraph.configfile import replace_config_file
from memgraph.errors import ConfigError
from memgraph.fileio import atomic_write_text, read_bytes_nofollow, read_text_nofollow

METHODS = ("auto", "cron", "systemd")  # sleep_schedule's values
MARK = "# memgraph-sleep"
# a hand-edited marked crontab line, commented out instead of dropped
KEPT = "# hand-edited, kept by memgraph sleep: "
UNIT = "memgraph-sleep"


@dataclass(frozen=True)
class Schedule:
    method: str  # auto | cron | systemd
    command: str  # the full `memgraph sleep` command line to run
    at: str  # HH:MM local
    crontab: str = "crontab"
    systemctl: str = "systemctl"
    config_home: Path | None = None  # ~/.config
    # MEMGRAPH_* settings the nightly run needs (home, vault...): cron and systemd
    # start it without the login shell's environment, nor the flags of --install
    env: tuple[tuple[str, str], ...] = ()


def cron_command(s: Schedule) -> str:
    """The crontab command: ``NAME=value`` assignments (sh quoting) then the command;
    ``%`` escaped (cron turns a bare one into a newline)."""
    import shlex

    words = [f"{k}={shlex.quote(v)}" for k, v in s.env] + [s.command]
    return " ".join(words).replace("%", "\\%")


def _unit_env(s: Schedule) -> str:
    """``Environment=`` lines of the service (systemd quoting; ``%`` is a specifier)."""
    out = ""
    for k, v in s.env:
        quoted = v.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
        out += f'Environment="{k}={quoted}"\n'
    return out


def night_start(night_window: str) -> str:
    from profiles.voice.classify.night import parse_window

    start, _ = parse_window(night_window)
    return f"{start.hour:02d}:{start.minute:02d}"


def _method(s: Schedule) -> str:
    if s.method != "auto":
        if s.method not in METHODS:
            raise ConfigError(f"sleep schedule {s.method!r}: use {', '.join(METHODS)}")
        return s.method
    if shutil.which(s.crontab):
        return "cron"
    if shutil.which(s.systemctl):
        return "systemd"
    raise ConfigError(
        "neither crontab nor systemctl found: set MEMGRAPH_CRONTAB or run sleep by hand"
    )


def _run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``argv``; text in and out as UTF-8 with ``surrogateescape``, so a crontab
    holding other bytes (a Latin-1 comment) is read without a UnicodeDecodeError
    and written back byte for byte."""
    try:
        done = subprocess.run(
            argv,
            input=None if stdin is None else stdin.encode("utf-8", "surrogateescape"),
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ConfigError(f"{argv[0]}: cannot run ({exc})") from None
    out, err = (b.decode("utf-8", "surrogateescape") for b in (done.stdout, done.stderr))
    return subprocess.CompletedProcess(done.args, done.returncode, out, err)


def _read_crontab(s: Schedule) -> list[str]:
    done = _run([s.crontab, "-l"])
    if done.returncode != 0:
        if "no crontab" in (done.stderr + done.stdout).lower():
            return []
        raise ConfigError(f"{s.crontab} -l failed: {done.stderr.strip()[:200]}")
    return done.stdout.splitlines()


def _write_crontab(s: Schedule, lines: list[str]) -> None:
    text = "".join(f"{line}\n" for line in lines)
    done = _run([s.crontab, "-"], stdin=text)
    if done.returncode != 0:
        raise ConfigError(f"{s.crontab} - failed: {done.stderr.strip()[:200]}")


def _units(s: Schedule) -> tuple[Path, Path]:
    base = (s.config_home or Path.home() / ".config") / "systemd" / "user"
    return base / f"{UNIT}.service", base / f"{UNIT}.timer"


def _write_unit(path: Path, text: str) -> Path | None:
    """Write one unit file atomically. A different file already there (a hand edit,
    an older install) is kept in ``<name>.bak`` (systemd ignores that suffix), which
    is returned; the same text is left alone."""
    if os.path.lexists(path):
        target = Path(os.path.realpath(path))
        old = read_text_nofollow(target) if target.is_file() else None
        if old == text:
            return None
        if old is None:
            raise ConfigError(f"{path} is not a readable text file; not changed (move it aside)")
        replace_config_file(path, text, planned_from=old)
        return target.with_name(target.name + ".bak")
    atomic_write_text(path, text, mode=0o644)
    return None


def scheduled(s: Schedule) -> str | None:
    """Where the nightly run is scheduled (read-only, for ``memgraph doctor``), or None."""
    timer = _units(s)[1]
    if timer.exists():
        return f"systemd user timer {timer}"
    if s.method in ("auto", "cron") and shutil.which(s.crontab):
        line = next((ln for ln in _read_crontab(s) if MARK in ln), None)
        return f"crontab: {line}" if line else None
    return None


def _cron_line(s: Schedule) -> str:
    hour, minute = s.at.split(":")
    return f"{int(minute)} {int(hour)} * * * {cron_command(s)} {MARK}"


def _without_ours(s: Schedule, lines: list[str]) -> tuple[list[str], int, int]:
    """The crontab without its marked lines: the one install writes is dropped, any
    other (a hand edit) commented out after ``KEPT``. Returns (lines, dropped, kept)."""
    out: list[str] = []
    dropped = kept = 0
    for line in lines:
        if MARK not in line:
            out.append(line)
        elif line.rstrip() == _cron_line(s):
            dropped += 1
        else:
            out.append(KEPT + line.replace(MARK, "").rstrip())
            kept += 1
    return out, dropped, kept


def _unit_texts(s: Schedule) -> tuple[str, str]:
    """The service and timer exactly as install writes them."""
    return (
        f"[Unit]\nDescription=memgraph night pass\n\n[Service]\nType=oneshot\n"
        f"{_unit_env(s)}ExecStart={s.command.replace('%', '%%')}\n",
        f"[Unit]\nDescription=memgraph night pass\n\n[Timer]\n"
        f"OnCalendar=*-*-* {s.at}:00\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n",
    )


def _remove_unit(path: Path, text: str) -> Path | None:
    """Delete a unit only if it is byte-identical to ``text`` (what install writes);
    anything else there (a hand edit, a symlink to another file) is moved to a free
    ``<name>.bak``/``.bakN`` name, which is returned."""
    if not os.path.lexists(path):
        return None
    target = Path(os.path.realpath(path))
    old = read_bytes_nofollow(target) if target.is_file() else None
    if old == text.encode("utf-8") and not path.is_symlink():
        path.unlink()
        return None
    n = 0
    while os.path.lexists(bak := path.with_name(f"{path.name}.bak{n or ''}")):
        n += 1
    os.rename(path, bak)  # the same directory; a symlink moves as a link
    return bak


def install(s: Schedule) -> str:
    method = _method(s)
    if method == "cron":
        lines, _, kept_lines = _without_ours(s, _read_crontab(s))
        lines.append(_cron_line(s))
        _write_crontab(s, lines)
        note = (
            "; the previous entry differed (a hand edit?): kept, commented out"
            if kept_lines
            else ""
        )
        return f"installed: crontab entry at {s.at} ({cron_command(s)}){note}"
    service, timer = _units(s)
    kept = [
        _write_unit(path, text) for path, text in zip((service, timer), _unit_texts(s), strict=True)
    ]
    _run([s.systemctl, "--user", "daemon-reload"])
    done = _run([s.systemctl, "--user", "enable", "--now", f"{UNIT}.timer"])
    if done.returncode != 0:
        raise ConfigError(f"systemctl enable failed: {done.stderr.strip()[:200]}")
    note = "".join(f"; the previous unit is kept in {p}" for p in kept if p is not None)
    return f"installed: systemd user timer {UNIT}.timer at {s.at}{note}"


def uninstall(s: Schedule) -> str:
    method = _method(s)
    if method == "cron":
        lines, dropped, kept_lines = _without_ours(s, _read_crontab(s))
        if not dropped and not kept_lines:
            return "not installed: no memgraph-sleep crontab entry"
        _write_crontab(s, lines)
        if kept_lines:
            return (
                "uninstalled: the crontab entry differs from what install writes (a hand "
                "edit?), so it is commented out, not deleted "
                f"(`{s.crontab} -e` to delete the line starting {KEPT.strip()!r})"
            )
        return "uninstalled: crontab entry removed"
    service, timer = _units(s)
    if not os.path.lexists(timer) and not os.path.lexists(service):
        return "not installed: no memgraph-sleep systemd units"
    _run([s.systemctl, "--user", "disable", "--now", f"{UNIT}.timer"])
    service_text, timer_text = _unit_texts(s)
    kept = [
        (timer, _remove_unit(timer, timer_text)),
        (service, _remove_unit(service, service_text)),
    ]
    _run([s.systemctl, "--user", "daemon-reload"])
    note = "".join(
        f"; {unit.name} differs from what install writes (a hand edit?): kept as {bak}"
        for unit, bak in kept
        if bak is not None
    )
    return f"uninstalled: systemd user timer removed{note}"
