"""`memgraph doctor` on a healthy setup and on broken ones: exit codes, the named
problem and the command that fixes it."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import memgraph
from memgraph.cli.app import app
from memgraph.store.postgres import redact

runner = CliRunner()
SAMPLE = Path(memgraph.__file__).parent / "sample"


def _fake_crontab(tmp: Path, line: str | None) -> Path:
    table = tmp / "crontab.txt"
    if line is not None:
        table.write_text(line + "\n")
    script = tmp / "fake-crontab"
    script.write_text(
        "#!/bin/sh\n"
        f'T="{table}"\n'
        'if [ "$1" = "-l" ]; then\n'
        '  if [ -f "$T" ]; then cat "$T"; else echo "no crontab for user" >&2; exit 1; fi\n'
        "else exit 2; fi\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.fixture
def healthy(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Captured sample, vault, both hooks installed, sleep scheduled."""
    monkeypatch.setenv("MEMGRAPH_TRANSCRIPTS", str(SAMPLE / "claude" / "projects"))
    result = runner.invoke(app, ["voice", "--backfill"])
    assert result.exit_code == 0, result.output
    settings = isolated_env / "home" / ".claude" / "settings.json"
    result = runner.invoke(app, ["hook", "install", "--settings", str(settings), "--create"])
    assert result.exit_code == 0, result.output
    cron = _fake_crontab(isolated_env, "0 2 * * * memgraph sleep # memgraph-sleep")
    monkeypatch.setenv("MEMGRAPH_CRONTAB", str(cron))
    return isolated_env


def _doctor(*args: str) -> tuple[int, str, dict[str, object]]:
    text = runner.invoke(app, ["doctor", *args])
    as_json = runner.invoke(app, ["doctor", "--json", *args])
    assert text.exit_code == as_json.exit_code
    return text.exit_code, text.output, json.loads(as_json.output)


def _statuses(report: dict[str, object]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    checks = report["checks"]
    assert isinstance(checks, list)
    for c in checks:
        found.setdefault(c["name"], set()).add(c["status"])
    return found


def test_healthy_setup_is_all_ok(healthy: Path) -> None:
    code, out, report = _doctor()
    assert code == 0, out
    assert out.rstrip().endswith("no problems found")
    statuses = _statuses(report)
    for name in ("config", "store", "vault", "capture", "ledger", "hooks", "sleep", "extras"):
        assert statuses.get(name) == {"ok"}, (name, out)
    paths = report["paths"]
    assert isinstance(paths, dict)
    assert paths["store"] == str(healthy / "mg-home" / "memgraph.db")
    assert paths["vault"] == str(healthy / "vault")
    assert "SessionStart, SessionEnd" in out
    assert "quick_check ok, schema" in out
    assert "last capture 20" in out
    # times for people, as listings print them (TZ=UTC in tests), not ISO `...123456Z`
    import re

    assert re.search(r"capture: last capture \d{4}-\d\d-\d\d \d\d:\d\d UTC \(", out), out


def test_fresh_install_warns_but_passes(isolated_env: Path) -> None:
    code, out, report = _doctor()
    assert code == 0
    assert "fix: memgraph voice --backfill" in out
    assert "fix: memgraph hook install" in out
    assert report["problems"] == 0
    assert not (isolated_env / "mg-home" / "memgraph.db").exists()  # never created here
    # the last line counts the warnings above it: not a bare "no problems found"
    warned = out.count("\nwarn ")
    assert warned >= 2 and out.rstrip().endswith(f"no problems found, {warned} warnings")


def test_corrupt_store_is_a_problem(healthy: Path) -> None:
    db = healthy / "mg-home" / "memgraph.db"
    for side in ("-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    code, out, _ = _doctor()
    assert code == 1
    assert f"problem  store: {db}" in out
    assert "fix: restore a copy made by `memgraph backup`" in out
    assert "Traceback" not in out


@pytest.mark.parametrize("kind", ["file", "device"])
def test_a_home_that_is_not_a_directory_is_a_problem(isolated_env: Path, kind: str) -> None:
    """Before, a home that was a file said "no store yet" and offered a fix that fails."""
    home = isolated_env / "not-a-dir"
    if kind == "file":
        home.write_text("x")
    else:
        home = Path("/dev/null")
    code, out, report = _doctor("--home", str(home))
    assert code == 1, out
    assert f"problem  store: {home} (the store's folder) is not a directory" in out
    assert "no store yet" not in out and "Traceback" not in out
    assert report["problems"] == 1


def test_bad_config_names_the_file(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = healthy / "config.toml"
    config.write_text("vault = [unclosed\n")
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    code, out, report = _doctor()
    assert code == 1
    assert f"problem  config: invalid configuration: {config}" in out
    assert _statuses(report)["store"] == {"ok"}  # the other checks still ran


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_a_config_env_naming_no_file_is_a_warning(
    healthy: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """MEMGRAPH_CONFIG with a typo (or naming a folder) was `ok config: defaults (no
    file)`: every setting in the file the person meant was silently ignored."""
    config = healthy / ("confg.toml" if kind == "missing" else "conf.d")
    if kind == "directory":
        config.mkdir()
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    _, out, report = _doctor()
    assert f"warn     config: MEMGRAPH_CONFIG names {config}, which " in out
    assert "fix: point MEMGRAPH_CONFIG at your config.toml, or unset it" in out
    assert _statuses(report)["config"] == {"warn"}


def test_unknown_config_key_is_a_warning(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = healthy / "config.toml"
    config.write_text('valt = "/x"\n')
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    code, out, _ = _doctor()
    assert code == 0
    assert f"warn     config: {config}: unknown key(s) valt are ignored" in out
    # every command warns once on stderr, with a suggestion
    import memgraph.config

    monkeypatch.setattr(memgraph.config, "_WARNED", set())
    result = runner.invoke(app, ["stats"])
    assert "unknown key 'valt' ignored (did you mean 'vault'?)" in result.stderr


def test_bad_config_value_names_the_file(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = healthy / "config.toml"
    config.write_text('window_gap_minutes = "often"\n')
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    code, out, _ = _doctor()
    assert code == 1
    assert f"invalid configuration in {config}" in out


@pytest.mark.parametrize(
    ("env", "value", "named"),
    [
        ("MEMGRAPH_EMBEDDER", "minilm2", "embedder = 'minilm2'"),
        ("MEMGRAPH_CLASSIFIER", "gpt", "classifier = 'gpt'"),
        ("MEMGRAPH_QDRANT_ENGINE", "rocks", "qdrant_engine = 'rocks'"),
        ("MEMGRAPH_SLEEP_SCHEDULE", "weekly", "sleep_schedule = 'weekly'"),
        ("MEMGRAPH_HOOK_BUDGET", "0", "hook_budget = 0"),
        ("MEMGRAPH_OLLAMA_TIMEOUT", "-3", "ollama_timeout = -3.0"),
        ("MEMGRAPH_OLLAMA_RETRIES", "-1", "ollama_retries = -1"),
        ("MEMGRAPH_OLLAMA_BATCH_TOKENS", "0", "ollama_batch_tokens = 0"),
        ("MEMGRAPH_WINDOW_GAP_MINUTES", "0", "window_gap_minutes = 0"),
        ("MEMGRAPH_NIGHT_WINDOW", "late", "night_window = 'late'"),
    ],
)
def test_a_value_only_its_command_reads_is_a_problem(
    healthy: Path, monkeypatch: pytest.MonkeyPatch, env: str, value: str, named: str
) -> None:
    """Each of these passed doctor ("no problems found") and failed only when the
    command that reads it ran (the hook, at the start of every session)."""
    monkeypatch.setenv(env, value)
    code, out, _ = _doctor()
    assert code == 1, out
    assert f"problem  config: {named}: the commands that use it refuse it" in out
    assert env in out  # the fix names where to change it
    assert out.count("problem  ") == 1


def test_missing_vault_with_pages_is_a_problem(healthy: Path) -> None:
    import shutil

    shutil.rmtree(healthy / "vault")
    code, out, _ = _doctor()
    assert code == 1
    assert "problem  vault:" in out and "fix: memgraph render" in out


def test_conflict_and_broken_hooks(healthy: Path) -> None:
    page = next((healthy / "vault").glob("*/voice/*.md"))
    conflict = page.with_name(page.stem + ".conflict.md")
    conflict.write_text("x")
    settings = healthy / "home" / ".claude" / "settings.json"
    settings.write_text("{not json")
    code, out, _ = _doctor()
    assert code == 1
    assert f"problem  conflict: {conflict}" in out
    assert "problem  hooks:" in out and f"fix: fix the JSON in {settings}" in out


def test_a_session_view_conflict_is_described_as_what_it_holds(healthy: Path) -> None:
    """A session `.conflict.yaml` holds the user's own edit (the view shows the store),
    but doctor said `memgraph's render waits in this file` and advised merging it into
    the view, where an edit of a stored note conflicts again. And the ledger line read
    `ledger: ledger: N lines read ...`."""
    folder = healthy / "workspace" / ".memgraph" / "personas" / "default" / "sessions"
    folder.mkdir(parents=True)
    kept = folder / "s1.conflict.yaml"
    kept.write_text("notes: [")
    code, out, report = _doctor()
    assert code == 1
    assert f"problem  conflict: {kept}: your edit of a session view" in out
    assert "render waits" not in out
    assert f"fix: add what you still need as new notes (memgraph note), then delete {kept}" in out
    checks = report["checks"]
    assert isinstance(checks, list)
    (ledger,) = [c["detail"] for c in checks if c["name"] == "ledger"]
    assert ledger.split(" ", 2)[1:2] == ["lines"] and f"ok       ledger: {ledger}" in out
    probed = runner.invoke(app, ["probe"]).output
    assert f"conflict: {kept} (your edit of a session view, kept; the view shows the store)" in (
        probed
    )


def test_a_hook_claude_code_cannot_start_is_reported(healthy: Path) -> None:
    """Hooks installed as a bare `memgraph hook ...` (what `hook install` wrote when
    memgraph was not on PATH) or through a venv since removed were `ok       hooks`."""
    settings = healthy / "home" / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["SessionEnd"][0]["hooks"][0]["command"] = "memgraph hook session-end"
    gone = str(healthy / "old-venv" / "bin" / "memgraph")
    data["hooks"]["SessionStart"][0]["hooks"][0]["command"] = f"{gone} hook session-start"
    settings.write_text(json.dumps(data))
    code, out, report = _doctor()
    assert code == 1
    assert (
        f"problem  hooks: SessionStart hook '{gone} hook session-start': its program is not "
        "an executable file"
    ) in out
    assert (
        "warn     hooks: SessionEnd hook 'memgraph hook session-end': names memgraph by PATH"
    ) in out
    assert "fix: memgraph hook uninstall && memgraph hook install" in out
    assert _statuses(report)["hooks"] == {"ok", "warn", "problem"}


def test_settings_nested_too_deeply_is_a_hooks_problem_not_an_abort(healthy: Path) -> None:
    """Before, a RecursionError ended the whole report with one unrelated line."""
    settings = healthy / "home" / ".claude" / "settings.json"
    settings.write_text("[" * 100_000 + "]" * 100_000)
    code, out, _ = _doctor()
    assert code == 1
    assert "problem  hooks:" in out and "nested too deeply" in out
    assert "ok       store:" in out  # the other checks still ran


def test_configured_extra_missing_is_a_problem(
    healthy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "ollama" else real(name, *a),
    )
    monkeypatch.setenv("MEMGRAPH_CLASSIFIER", "ollama")
    code, out, _ = _doctor()
    assert code == 1
    assert "fix: pip install 'memgraph[ollama]'" in out


def test_a_postgresql_store_is_opened_read_only_and_checked(
    isolated_env: Path, pg_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """doctor said 'PostgreSQL store (not checked here)' and checked nothing that reads
    the store; the paths line showed the URL with its password."""
    import psycopg

    name = pg_server.create_database()
    url = name.replace("postgres@", "postgres:s3cret@", 1)  # trust auth: ignored
    monkeypatch.setenv("MEMGRAPH_STORE", url)
    code, out, report = _doctor()
    assert "s3cret" not in out + json.dumps(report)
    assert f"warn     store: no memgraph store yet in {redact(url)}" in out
    assert _statuses(report)["store"] == {"warn"} and "capture" not in _statuses(report)
    monkeypatch.setenv("MEMGRAPH_TRANSCRIPTS", str(SAMPLE / "claude" / "projects"))
    assert runner.invoke(app, ["voice", "--backfill"]).exit_code == 0
    code, out, report = _doctor()
    assert "s3cret" not in out + json.dumps(report)
    statuses = _statuses(report)
    assert statuses["store"] == {"ok"} and statuses["capture"] == {"ok"}, out
    assert f"ok       store: {redact(url)}: schema " in out and "last capture 20" in out
    with psycopg.connect(name) as conn:  # read only: nothing written
        before = conn.execute("SELECT count(*) FROM receipts").fetchone()
        _doctor()
        assert conn.execute("SELECT count(*) FROM receipts").fetchone() == before
    pg_server_down = url.replace(f":{pg_server.port}/", ":1/", 1)
    monkeypatch.setenv("MEMGRAPH_STORE", pg_server_down)
    code, out, report = _doctor()
    assert code == 1
    assert (
        "problem  store: cannot connect to PostgreSQL store postgresql://postgres@127.0.0.1:1/"
        in out
    )
    assert "s3cret" not in out


@pytest.mark.parametrize("kind", ["directory", "fifo", "dangling"])
def test_something_other_than_a_file_at_the_config_path_is_a_warning(
    healthy: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """At the default configuration path (no MEMGRAPH_CONFIG), a folder, FIFO or
    dangling link is read as no file; doctor said `ok config: defaults (no file)` and
    `(absent: defaults)`, so the settings kept there were silently not in force."""
    import os

    monkeypatch.delenv("MEMGRAPH_CONFIG", raising=False)
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "memgraph" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    if kind == "directory":
        config.mkdir()
    elif kind == "fifo":
        os.mkfifo(config)
    else:
        config.symlink_to(config.parent / "gone.toml")
    _, out, report = _doctor()
    assert f"warn     config: {config} is not a regular file: the defaults are used" in out
    assert f"{config} (not a file: defaults)" in out
    assert _statuses(report)["config"] == {"warn"}


def test_a_voice_page_gone_from_the_vault_is_a_warning_render_fixes(healthy: Path) -> None:
    """A page a person deleted (or a sync tool lost) went unnoticed: doctor said ok.
    A page `forget` removed is no loss and is not reported."""
    pages = sorted((healthy / "vault").glob("*/voice/*.md"))
    assert len(pages) >= 2
    pages[0].unlink()
    code, out, _report = _doctor()
    assert code == 0 and "warn     pages: 1 voice page(s) the store wrote are gone" in out, out
    assert pages[0].relative_to(healthy / "vault").as_posix() in out
    assert "fix: memgraph render" in out
    assert runner.invoke(app, ["render"]).exit_code == 0
    assert pages[0].is_file()
    assert "pages" not in _statuses(_doctor()[2])
    # forget a whole session: its page goes, and that is not a loss
    sid = next(
        line.split(":", 1)[1].strip().strip('"')
        for line in pages[1].read_text(encoding="utf-8").splitlines()
        if line.startswith("session_id:")
    )
    done = runner.invoke(app, ["forget", "--session", sid, "--reason", "test", "--yes"])
    assert done.exit_code == 0, done.output
    assert not pages[1].exists()
    assert "pages" not in _statuses(_doctor()[2])
