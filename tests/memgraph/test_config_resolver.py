"""One config resolver for every entry point (issue 16, item 2).

Regression: with a lower-case ``memgraph_home=/x`` in the environment the hook
wrote to ``~/.local/share/memgraph`` while ``memgraph voice`` read ``/x``.
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest

from memgraph.cli import hook_fast, session_fast, voice_fast
from memgraph.config import FIELDS, Settings, load_settings, paths, resolve
from tests.process import memgraph

sys.path.insert(0, str(Path(__file__).parents[1] / "profiles" / "voice"))
from _capture_helpers import PROMPTS, SID, claude_records, write_transcript


def test_fields_match_the_settings_model() -> None:
    assert tuple(Settings.model_fields) == FIELDS


def entry_point_stores() -> dict[str, Path | None]:
    return {
        "settings (typer, MCP)": load_settings().store_path,
        "voice fast path": voice_fast.resolve_store_path(None),
        "hook fast path": hook_fast.resolve_paths({})[0],
        "resolver": paths()[0],
    }


def test_lower_case_env_name_drift(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMGRAPH_HOME")
    monkeypatch.setenv("memgraph_home", str(isolated_env / "x"))
    expected = isolated_env / "x" / "memgraph.db"
    assert set(entry_point_stores().values()) == {expected}


def test_lower_case_env_hook_then_voice_and_note(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """End to end: what the hook captures under ``memgraph_home`` is what voice finds."""
    monkeypatch.delenv("MEMGRAPH_HOME")
    monkeypatch.setenv("memgraph_home", str(isolated_env / "x"))
    transcript = write_transcript(isolated_env / "t" / f"{SID}.jsonl", claude_records(PROMPTS))
    hook_input = json.dumps(
        {
            "session_id": SID,
            "transcript_path": str(transcript),
            "cwd": "/nonexistent/atlas",
            "hook_event_name": "SessionEnd",
            "reason": "exit",
        }
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(hook_input.encode())))
    assert hook_fast.run(["session-end"]) == 0
    assert (isolated_env / "x" / "memgraph.db").is_file()
    default = isolated_env / "home" / ".local" / "share" / "memgraph" / "memgraph.db"
    assert not default.exists()
    capsys.readouterr()
    assert voice_fast.run(["--session", SID[:8]]) == 0
    assert capsys.readouterr().out.count("\n") == 4  # the four captured prompts


@pytest.mark.parametrize("where", ["env", "toml", "flag"])
def test_every_entry_point_agrees(
    where: str, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = isolated_env / f"from-{where}"
    if where == "toml":
        monkeypatch.delenv("MEMGRAPH_HOME")
        config = isolated_env / "home" / ".config" / "memgraph" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f'home = "{target}"\n')
    elif where == "env":
        monkeypatch.setenv("MEMGRAPH_HOME", str(target))
    if where == "flag":
        assert load_settings(home=target).store_path == target / "memgraph.db"
        assert voice_fast.resolve_store_path(str(target)) == target / "memgraph.db"
        assert hook_fast.resolve_paths({"home": str(target)})[0] == target / "memgraph.db"
    else:
        assert set(entry_point_stores().values()) == {target / "memgraph.db"}


def test_precedence_flag_env_file_default(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = isolated_env / "cfg.toml"
    config.write_text('persona = "from-file"\nsession = "s-file"\nwindow_gap_minutes = 7\n')
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    monkeypatch.setenv("MEMGRAPH_PERSONA", "from-env")
    raw = resolve(
        {"persona": None, "session": "s-flag"}, fields=("persona", "session", "classifier")
    )
    assert raw == {"persona": "from-env", "session": "s-flag"}
    s = load_settings()
    assert (s.persona, s.session, s.window_gap_minutes, s.classifier) == (
        "from-env",
        "s-file",
        7,
        "rules",
    )


def test_a_bad_config_file_is_one_error_everywhere(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memgraph.errors import ConfigError

    config = isolated_env / "bad.toml"
    config.write_text("home = [unclosed\n")
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    monkeypatch.delenv("MEMGRAPH_HOME")
    with pytest.raises(ConfigError, match="invalid configuration") as a:
        load_settings()
    with pytest.raises(ConfigError) as b:
        hook_fast.resolve_paths({})
    assert str(a.value) == str(b.value)
    assert voice_fast.resolve_store_path(None) is None  # typer then reports the same line


def test_note_fast_path_uses_the_resolver(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lower-case env home: the lean note writes into the same store as `session start`."""
    from memgraph.store import open_store
    from profiles.session.api import StartRequest, start_session

    monkeypatch.delenv("MEMGRAPH_HOME")
    monkeypatch.setenv("memgraph_home", str(isolated_env / "x"))
    store = open_store(load_settings().store_path)
    start_session(store, StartRequest("s1", isolated_env / "ws", "alice"))
    store.close()
    assert session_fast.run(["hello from the lean path", "--session", "s1"]) == 0
    assert "hello" not in capsys.readouterr().err
    store = open_store(isolated_env / "x" / "memgraph.db")
    notes = [n.claim for n in store.iter_nodes("session", "note")]
    store.close()
    assert "hello from the lean path" in notes


def test_privacy_settings_from_env_file_and_flag(tmp_path: Path) -> None:
    from memgraph.config import privacy
    from memgraph.errors import ConfigError

    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'redact = false\nexclude_projects = ["billing"]\nexclude_paths = ["~/clients"]\n'
    )
    env = {"MEMGRAPH_CONFIG": str(cfg), "HOME": str(tmp_path)}
    on, projects, paths_ = privacy(env=env)
    assert (on, projects) == (False, ("billing",))
    assert paths_ == (os.path.expanduser("~/clients"),)
    assert privacy(env={**env, "MEMGRAPH_REDACT": "1"})[0] is True
    assert privacy(False, env={**env, "MEMGRAPH_REDACT": "yes"})[0] is False  # the flag wins
    listed = {"MEMGRAPH_EXCLUDE_PROJECTS": "a, b,,c", "MEMGRAPH_CONFIG": str(tmp_path / "none")}
    assert privacy(env=listed) == (True, ("a", "b", "c"), ())
    with pytest.raises(ConfigError, match="redact must be true or false"):
        privacy(env={"MEMGRAPH_REDACT": "maybe", "MEMGRAPH_CONFIG": str(tmp_path / "none")})
    cfg.write_text("exclude_projects = 3\n")
    with pytest.raises(ConfigError, match="exclude_projects must be a list"):
        privacy(env={"MEMGRAPH_CONFIG": str(cfg)})


@pytest.mark.parametrize(
    ("env", "file", "flags"),
    [
        ({}, "", {}),
        ({"MEMGRAPH_HOME": "{t}/env-home"}, "", {}),
        ({"memgraph_home": "{t}/lower"}, 'home = "{t}/file-home"\n', {}),
        ({}, 'home = "{t}/file-home"\n', {"home": "{t}/flag-home"}),
        ({}, 'store = "{t}/file.db"\n', {}),
        ({"MEMGRAPH_STORE": "{t}/env.db"}, 'store = "{t}/file.db"\n', {}),
        ({"MEMGRAPH_STORE": ""}, "", {}),  # empty: unset, as in Settings
        ({"MEMGRAPH_STORE": "postgresql://db.example/mg"}, "", {}),
        ({}, 'store = "postgresql://db.example/mg"\n', {"home": "{t}/flag-home"}),
        ({}, "", {"store": "{t}/flag.db"}),
    ],
)
def test_store_location_is_what_settings_say(
    isolated_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    file: str,
    flags: dict[str, str],
) -> None:
    """The lean read paths find the store with ``config.store_location`` (no
    pydantic model); it must name the store ``load_settings`` names."""
    from memgraph.cli.common import store_location as from_settings
    from memgraph.config import store_location

    t = str(isolated_env)
    monkeypatch.delenv("MEMGRAPH_HOME")
    for key, value in env.items():
        monkeypatch.setenv(key, value.replace("{t}", t))
    config = isolated_env / "cfg.toml"
    config.write_text(file.replace("{t}", t))
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    home = flags.get("home", "").replace("{t}", t) or None
    store = flags.get("store", "").replace("{t}", t) or None
    cfg = load_settings(home=Path(home) if home else None)
    assert store_location(home=home, store=store) == from_settings(cfg, store)


@pytest.mark.parametrize(
    ("env", "flag", "wanted"),
    [
        ({}, None, False),
        ({"MEMGRAPH_EMBEDDER": "none"}, None, False),
        ({"MEMGRAPH_EMBEDDER": "hash"}, None, True),
        ({"MEMGRAPH_EMBEDDER": "hash"}, "none", False),
        ({}, "minilm", True),
        ({"MEMGRAPH_EMBEDDER": "word2vec"}, None, True),  # make_embedder reports it
    ],
)
def test_vectors_wanted_follows_the_embedder_setting(
    isolated_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    flag: str | None,
    wanted: bool,
) -> None:
    from memgraph.config import vectors_wanted

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert vectors_wanted(flag) is wanted
    assert (load_settings(embedder=flag).embedder != "none") is wanted


def test_vectors_wanted_reads_the_file(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memgraph.config import vectors_wanted

    config = isolated_env / "cfg.toml"
    config.write_text('embedder = "hash"\n')
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    assert vectors_wanted() is True
    config.write_text('embedder = "none"\n')
    assert vectors_wanted() is False


@pytest.mark.parametrize(
    ("source", "expect"),
    [
        (
            "env",
            "invalid configuration: MEMGRAPH_WINDOW_GAP_MINUTES='often': Input should be a "
            "valid integer, unable to parse string as an integer",
        ),
        (
            "file",
            "invalid configuration in {config}: window_gap_minutes = 'often': Input should be "
            "a valid integer, unable to parse string as an integer",
        ),
        (
            "list",
            "invalid configuration in {config}: transcripts[0] = 5: Input is not a valid path",
        ),
    ],
)
def test_a_bad_value_names_the_setting_as_written_without_pydantic_tags(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, source: str, expect: str
) -> None:
    """Before: `1 validation error for Settings window_gap_minutes Input should be ...
    [type=int_parsing, input_value='often', input_type=str]`, and the env variable unnamed."""
    from memgraph.errors import ConfigError

    config = isolated_env / "config.toml"
    monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
    if source == "env":
        monkeypatch.setenv("MEMGRAPH_WINDOW_GAP_MINUTES", "often")
    elif source == "file":
        config.write_text('window_gap_minutes = "often"\n')
    else:
        monkeypatch.delenv("MEMGRAPH_TRANSCRIPTS", raising=False)
        config.write_text("transcripts = [5]\n")
    with pytest.raises(ConfigError) as exc:
        load_settings()
    assert str(exc.value) == expect.format(config=config)


@pytest.mark.parametrize("where", ["env", "env-blank", "toml", "vault-env"])
def test_an_empty_folder_setting_is_refused_everywhere(
    where: str, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``MEMGRAPH_HOME=`` (a variable exported empty) read as the current folder put
    a store wherever the command ran; now every entry point refuses it by name."""
    from memgraph.errors import ConfigError

    if where == "toml":
        monkeypatch.delenv("MEMGRAPH_HOME")
        config = isolated_env / "cfg.toml"
        config.write_text('home = ""\n')
        monkeypatch.setenv("MEMGRAPH_CONFIG", str(config))
        named = f"home in {config}"
    elif where == "vault-env":
        monkeypatch.setenv("MEMGRAPH_VAULT", "")
        named = "MEMGRAPH_VAULT"
    else:
        monkeypatch.setenv("MEMGRAPH_HOME", "" if where == "env" else "  ")
        named = "MEMGRAPH_HOME"
    monkeypatch.chdir(isolated_env)
    with pytest.raises(ConfigError, match="is empty") as lean:
        paths()
    assert str(lean.value).startswith(named)
    with pytest.raises(ConfigError, match="is empty"):
        load_settings()
    with pytest.raises(ConfigError, match="is empty"):
        hook_fast.resolve_paths({})
    assert not (isolated_env / "memgraph.db").exists()


def test_an_empty_home_is_one_line_and_writes_nothing(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMGRAPH_HOME", "")
    work = isolated_env / "cwd"
    work.mkdir()
    for args in (["voice", "retry"], ["note", "a spark"], ["recall", "retry"]):
        proc = memgraph(*args, cwd=work, timeout=60)
        assert proc.returncode == 1, (args, proc.stderr)
        assert proc.stderr.startswith("Error: ") and proc.stderr.count("\n") == 1, proc.stderr
        assert "MEMGRAPH_HOME" in proc.stderr and "is empty" in proc.stderr
        assert "Value error" not in proc.stderr
    assert list(work.iterdir()) == []


def test_a_symlink_loop_reaching_the_cli_is_one_usage_line() -> None:
    import errno

    from memgraph.errors import UsageError, unexpected_as_error

    for exc in (
        RuntimeError("Symlink loop from '/h/loop'"),
        OSError(errno.ELOOP, "Too many levels of symbolic links", "/h/loop"),
    ):
        err = unexpected_as_error(exc)
        assert isinstance(err, UsageError)
        assert str(err).startswith("/h/loop is a symlink loop (a link that leads back to itself)")
    assert unexpected_as_error(RuntimeError("something else")) is None
