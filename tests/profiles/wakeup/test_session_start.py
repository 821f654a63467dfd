"""`memgraph hook session-start` end to end (real subprocesses), and hook install/uninstall."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from profiles.wakeup.active import find_active, record_active
from profiles.wakeup.hook import project_of
from profiles.wakeup.install import install, uninstall
from tests.process import memgraph
from tests.repo_tree import write_tree


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMGRAPH_", "CLAUDE"))}
    env.update(
        HOME=str(tmp / "home"),
        XDG_CONFIG_HOME=str(tmp / "home" / ".config"),
        MEMGRAPH_HOME=str(tmp / "mg-home"),
        MEMGRAPH_VAULT=str(tmp / "vault"),
        PYTHONPATH=os.pathsep.join(sys.path),
        **extra,
    )
    return env


def mg(
    env: dict[str, str], *args: str, stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return memgraph(*args, env=env, stdin=stdin, cwd=cwd)


def _payload(cwd: Path, sid: str = "3f2a9c1e-0b7d-4e55-9a21-5c8d2f10aa01") -> str:
    return json.dumps(
        {
            "session_id": sid,
            "transcript_path": str(cwd / "t.jsonl"),
            "cwd": str(cwd),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    )


def _context(stdout: str) -> str:
    data = json.loads(stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text: str = data["hookSpecificOutput"]["additionalContext"]
    return text


def test_session_start_end_to_end(tmp_path: Path) -> None:
    project = tmp_path / "orchard"
    (project / "src").mkdir(parents=True)
    env_file = tmp_path / "claude-env"
    env = _env(tmp_path, CLAUDE_ENV_FILE=str(env_file))
    sid = "3f2a9c1e-0b7d-4e55-9a21-5c8d2f10aa01"
    # a store with a note from an earlier session and accepted role memory
    seed = mg(env, "note", "keep the orchard API backwards compatible", "--session", "old-1",
              cwd=project)  # fmt: skip
    assert seed.returncode == 0, seed.stderr
    proposed = mg(env, "propose", "role_self", "I write the migration note first",
                  "--session", "old-1", "--project", "orchard", "--json")  # fmt: skip
    assert proposed.returncode == 0, proposed.stderr
    accepted = mg(env, "review", "accept", json.loads(proposed.stdout)["id"])
    assert accepted.returncode == 0, accepted.stderr

    done = mg(env, "hook", "session-start", stdin=_payload(project, sid))
    assert done.returncode == 0 and done.stderr == ""
    text = _context(done.stdout)
    assert "wake (default, session old-1" in text and "backwards compatible" in text
    assert "I write the migration note first" in text  # the role packet
    assert "## Accepted role memory" in text and sid in text
    assert env_file.read_text() == f"export MEMGRAPH_SESSION={sid}\n"

    # the whole hook process, as Claude Code runs it: none of the heavy modules
    # (the full CLI's, and dataclasses/inspect, ~10 ms, which its lean path avoids)
    seen = tmp_path / "modules.txt"
    code = (
        "import sys\n"
        "from memgraph.cli import main\n"
        "sys.argv = ['memgraph', 'hook', 'session-start']\n"
        "try:\n"
        "    main(exit=sys.exit)\n"
        "finally:\n"
        f"    open({str(seen)!r}, 'w').write(' '.join(sorted(m for m in ('pydantic', 'typer',"
        " 'rich', 'click', 'dataclasses', 'inspect', 'memgraph.documents') if m in sys.modules)))\n"
    )
    lean = subprocess.run([sys.executable, "-c", code], input=_payload(project, sid), env=env,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert lean.returncode == 0 and "backwards compatible" in _context(lean.stdout), lean.stderr
    assert seen.read_text() == ""

    # a later note with that env lands in that session
    later = {**env, "MEMGRAPH_SESSION": sid}
    note = mg(later, "note", "x", "--json", cwd=project)
    assert note.returncode == 0, note.stderr
    assert json.loads(note.stdout)["session_id"] == sid
    # ... and without it, from inside the workspace, through the active session
    bare = mg(env, "note", "y", "--json", cwd=project / "src")
    assert bare.returncode == 0 and json.loads(bare.stdout)["session_id"] == sid
    # a repeated start does not duplicate the env line
    mg(env, "hook", "session-start", stdin=_payload(project, sid))
    assert env_file.read_text().count("MEMGRAPH_SESSION") == 1


def test_session_start_budget_is_a_ceiling(tmp_path: Path) -> None:
    from profiles.wakeup.standing import estimate_tokens

    project = tmp_path / "orchard"
    project.mkdir()
    env = _env(tmp_path)
    for i in range(30):
        mg(env, "remember", f"observation number {i} about the orchard pipeline and caching",
           "--session", "s-1", "--project", "orchard")  # fmt: skip
    done = mg(env, "hook", "session-start", "--budget", "120", stdin=_payload(project))
    assert done.returncode == 0
    text = _context(done.stdout)
    assert 0 < estimate_tokens(text) <= 120 + text.count("\n")


@pytest.mark.parametrize(
    "setup",
    ["broken_store", "missing_home", "bad_config", "bad_payload", "directory_store"],
)
def test_session_start_never_fails(tmp_path: Path, setup: str) -> None:
    project = tmp_path / "orchard"
    project.mkdir()
    env = _env(tmp_path)
    home = Path(env["MEMGRAPH_HOME"])
    stdin = _payload(project)
    if setup == "broken_store":
        home.mkdir()
        (home / "memgraph.db").write_bytes(b"this is not sqlite at all" * 100)
    elif setup == "missing_home":
        env["MEMGRAPH_HOME"] = str(tmp_path / "nowhere" / "deeper")
    elif setup == "bad_config":
        cfg = tmp_path / "config.toml"
        cfg.write_text("home = [unclosed\n")
        env["MEMGRAPH_CONFIG"] = str(cfg)
    elif setup == "bad_payload":
        stdin = '{"session_id": "../../etc"'
    else:
        (home / "memgraph.db").mkdir(parents=True)
    done = mg(env, "hook", "session-start", stdin=stdin)
    assert done.returncode == 0
    if setup != "missing_home":
        assert len(done.stderr.strip().splitlines()) == 1
        assert done.stderr.startswith("memgraph hook session-start: ")
    assert "Traceback" not in done.stderr
    context = _context(done.stdout) if done.stdout.strip() else ""
    if setup in ("broken_store", "bad_config", "bad_payload", "directory_store"):
        assert context == ""


def test_active_session_walks_up(tmp_path: Path) -> None:
    home = tmp_path / "h"
    ws = tmp_path / "ws"
    (ws / "a" / "b").mkdir(parents=True)
    assert find_active(home, ws) is None
    record_active(home, ws, "sess-1")
    assert find_active(home, ws / "a" / "b") == "sess-1"
    assert find_active(home, tmp_path) is None
    record_active(home, ws / "a", "sess-2")
    assert find_active(home, ws / "a" / "b") == "sess-2"
    assert find_active(home, ws) == "sess-1"


def test_project_of_names_the_git_top_and_the_main_repo_of_a_worktree(tmp_path: Path) -> None:
    main = tmp_path / "orchard"
    (main / ".git" / "worktrees" / "feature").mkdir(parents=True)
    (main / "pkg").mkdir()
    assert project_of(str(main / "pkg")) == "orchard"
    wt = tmp_path / "wt-feature"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'feature'}\n")
    assert project_of(str(wt)) == "orchard"
    assert project_of(str(tmp_path / "plain dir!")) == "plain-dir"


@pytest.mark.parametrize("existing", [None, "", '{\n    "model": "opus",\n  "hooks": {}}\n'])
def test_install_uninstall_is_byte_identical(tmp_path: Path, existing: str | None) -> None:
    path = tmp_path / ".claude" / "settings.json"
    if existing is not None:
        path.parent.mkdir()
        path.write_text(existing)
    assert install(path, "/opt/bin/memgraph", create=True) == ["SessionStart", "SessionEnd"]
    data = json.loads(path.read_text())
    assert data["hooks"]["SessionStart"][0]["hooks"][0]["command"] == (
        "/opt/bin/memgraph hook session-start"
    )
    assert install(path, "/opt/bin/memgraph") == []
    assert uninstall(path) == ["SessionStart", "SessionEnd"]
    if existing is None:
        assert not path.exists()
    else:
        assert path.read_text() == existing
    assert not path.with_name("settings.json.memgraph.json").exists()
    assert uninstall(path) == []


def test_uninstall_after_user_edits_removes_only_ours(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    other = {"hooks": [{"type": "command", "command": "echo bye"}]}
    path.write_text(json.dumps({"hooks": {"SessionEnd": [other]}}))
    assert install(path, "memgraph") == ["SessionStart", "SessionEnd"]
    data = json.loads(path.read_text())
    data["model"] = "sonnet"  # the user edits the file afterwards
    path.write_text(json.dumps(data))
    assert uninstall(path) == ["SessionStart", "SessionEnd"]
    assert json.loads(path.read_text()) == {"hooks": {"SessionEnd": [other]}, "model": "sonnet"}


def test_uninstall_after_edits_keeps_the_users_hooks_in_a_shared_group(tmp_path: Path) -> None:
    """The user moved our entry into their own group and added a memgraph command of
    their own: uninstall takes out exactly the entry install wrote."""
    path = tmp_path / "settings.json"
    path.write_text("{}")
    install(path, "/opt/mg")
    data = json.loads(path.read_text())
    mine = {"type": "command", "command": "/home/me/memgraph hook session-end --vault /v"}
    ours = data["hooks"]["SessionEnd"][0]["hooks"][0]
    data["hooks"]["SessionEnd"] = [{"matcher": "x", "hooks": [mine, ours]}]
    path.write_text(json.dumps(data))
    assert uninstall(path) == ["SessionStart", "SessionEnd"]
    assert json.loads(path.read_text()) == {
        "hooks": {"SessionEnd": [{"matcher": "x", "hooks": [mine]}]}
    }


def test_install_refuses_a_missing_directory(tmp_path: Path) -> None:
    from memgraph.errors import UsageError

    path = tmp_path / "nowhere" / "settings.json"
    with pytest.raises(UsageError, match="does not exist"):
        install(path, "/opt/mg")
    assert not path.parent.exists()


@pytest.mark.parametrize(
    "damage",
    [
        "{truncated",
        "[1, 2]",
        '{"added": "SessionStart"}',
        "\xff\xfe",
        "fifo",
        # entries that are not event names: a TypeError traceback before
        '{"added": [{}]}',
        '{"added": [["SessionEnd"]], "original": null}',
    ],
)
def test_a_damaged_install_record_is_refused_and_nothing_changes(
    tmp_path: Path, damage: str
) -> None:
    """Before, uninstall read a damaged record as "nothing installed" and left the
    hooks in place with a reassuring line; install dropped the first original."""
    from memgraph.errors import ConfigError

    path = tmp_path / "settings.json"
    path.write_text('{"theme": "dark"}\n')
    install(path, "/opt/mg")
    side = path.with_name("settings.json.memgraph.json")
    side.unlink()
    if damage == "fifo":
        os.mkfifo(side)
    else:
        side.write_bytes(damage.encode("latin-1"))
    installed = path.read_bytes()
    with pytest.raises(ConfigError, match=r"install record .* not changed: remove"):
        uninstall(path)
    assert path.read_bytes() == installed
    path.write_text('{"theme": "dark"}\n')
    with pytest.raises(ConfigError, match="install record"):
        install(path, "/opt/mg")
    assert path.read_text() == '{"theme": "dark"}\n'


def test_cli_install_then_uninstall(tmp_path: Path) -> None:
    env = _env(tmp_path)
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"theme": "dark"}\n')
    done = mg(env, "hook", "install")
    assert done.returncode == 0 and "installed SessionStart hook" in done.stdout
    done = mg(env, "hook", "uninstall")
    assert done.returncode == 0 and "removed SessionEnd hook" in done.stdout
    assert settings.read_text() == '{"theme": "dark"}\n'


def test_mcp_note_and_remember_use_the_workspace_active_session(tmp_path: Path) -> None:
    from memgraph.config import load_settings
    from memgraph.mcp_server import MemgraphTools

    settings = load_settings(workspace=tmp_path / "orchard")
    (tmp_path / "orchard").mkdir()
    tools = MemgraphTools(settings)
    with pytest.raises(ValueError, match="no session"):
        tools.note("before any session start")
    record_active(settings.home, settings.workspace, "sess-from-hook")
    assert tools.note("after the hook")["session_id"] == "sess-from-hook"
    remembered = tools.remember("the orchard index is rebuilt nightly")
    assert remembered["domain_id"] == "agent:orchard" and remembered["lifecycle"] == "active"


@pytest.mark.parametrize("odd", ["fifo", "symlink"])
def test_an_env_file_that_is_not_a_plain_file_is_reported_not_waited_on(
    tmp_path: Path, odd: str
) -> None:
    project = tmp_path / "orchard"
    project.mkdir()
    env_file = tmp_path / "claude-env"
    target = tmp_path / "elsewhere"
    target.write_text("precious\n")
    if odd == "fifo":
        os.mkfifo(env_file)  # a blocking open or read of it would hold the hook forever
    else:
        env_file.symlink_to(target)
    env = _env(tmp_path, CLAUDE_ENV_FILE=str(env_file))
    done = mg(env, "hook", "session-start", stdin=_payload(project))
    assert done.returncode == 0  # the session still starts, with its packet
    assert "CLAUDE_ENV_FILE not written" in _context(done.stdout) + done.stderr
    assert target.read_text() == "precious\n"  # never written through the link


def test_the_env_line_is_appended_once(tmp_path: Path) -> None:
    from profiles.wakeup.hook import write_env_file

    env_file = tmp_path / "claude-env"
    env_file.write_text("export OTHER=1\n")
    for _ in range(3):
        write_env_file(str(env_file), "sid-1")
    write_env_file(str(env_file), "sid-2")
    assert env_file.read_text() == (
        "export OTHER=1\nexport MEMGRAPH_SESSION=sid-1\nexport MEMGRAPH_SESSION=sid-2\n"
    )


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"", r"hook input is not JSON \(Expecting value at char 0\)"),
        (b'{"session_id": "s1"', r"hook input is not JSON \(Expecting ',' delimiter"),
        (b"\xff{}", r"hook input is not UTF-8 \(byte 0\)"),
        (b"[1, 2]", "hook input is not a JSON object"),
        (b'{"session_id": "../../etc"}', "hook input has no safe session_id"),
    ],
)
def test_a_bad_payload_is_named_in_the_hooks_words(raw: bytes, said: str) -> None:
    """Before, an empty or cut payload surfaced json's bare "Expecting value: line 1..."."""
    from memgraph.errors import ReaderError
    from profiles.wakeup.hook import parse_payload

    with pytest.raises(ReaderError, match=said):
        parse_payload(raw)


def test_session_start_reads_the_fleets_shared_store(tmp_path: Path, pg_url: str) -> None:
    """With MEMGRAPH_STORE=postgresql://... every machine's SessionStart packet comes
    from the shared store (it read <home>/memgraph.db, absent on a fleet machine:
    'memgraph has no store yet' in every new session, whatever the fleet knew)."""
    work = tmp_path / "orchard"
    work.mkdir()
    machine_a = _env(tmp_path / "a", MEMGRAPH_STORE=pg_url, MEMGRAPH_SESSION="s-a")
    assert mg(machine_a, "remember", "the etag decides the cache key", cwd=work).returncode == 0
    assert mg(machine_a, "note", "half way through the cache refactor", cwd=work).returncode == 0
    machine_b = _env(tmp_path / "b", MEMGRAPH_STORE=pg_url)
    done = mg(machine_b, "hook", "session-start", stdin=_payload(work), cwd=work)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    context = _context(done.stdout)
    assert "no store yet" not in context
    assert "half way through the cache refactor" in context  # the wake token
    assert "the etag decides the cache key" in context  # short-term memory of 'orchard'
    assert not (tmp_path / "b" / "mg-home" / "memgraph.db").exists()


def _scanned_repo(root: Path, env: dict[str, str]) -> None:
    files = {
        "core/__init__.py": '"""Core: the orchard ledger every other package uses."""\n',
        "core/ledger.py": '"""Ledger rows."""\n\n\ndef add() -> None:\n    pass\n',
        "app/__init__.py": '"""App: the web handlers."""\n',
        "app/web.py": '"""Handlers."""\nfrom core import ledger\n',
        "app/cli.py": '"""Commands."""\nfrom core.ledger import add\n',
        "tools/__init__.py": '"""Tools."""\n',
        "tools/a.py": "from core import ledger\n",
        "tools/b.py": "x = 1\n",
        "tools/c.py": "y = 2\n",
        "tests/test_ledger.py": "from core.ledger import add\n",
        "tests/test_web.py": "from app import web\n",
        "tests/test_more.py": "from app import cli\n",
        "tests/test_x.py": "z = 3\n",
    }
    write_tree(root, files)
    git = {**env, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    git.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "first"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=git, capture_output=True)
    done = mg(env, "repo", "scan", str(root))
    assert done.returncode == 0, done.stderr


def test_a_session_in_a_scanned_repo_wakes_with_its_map(tmp_path: Path) -> None:
    """An agent starting work in a scanned repository gets its map: the repo summary,
    the core packages first (most imported from outside), stale count, and how to ask
    for a task's modules; a project never scanned gets no such section."""
    root = tmp_path / "orchard"
    env = _env(tmp_path)
    _scanned_repo(root, env)
    done = mg(env, "hook", "session-start", stdin=_payload(root / "app"))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    text = _context(done.stdout)
    section = text.split("## Repo map: orchard", 1)[1].split("\n## ", 1)[0]
    assert f'`memgraph context "TASK" --cut repo --repo {root}`' in section
    lines = [ln for ln in section.splitlines() if ln.startswith("- ")]
    assert lines[0].startswith("- repo: orchard (13 files") and "0 stale summaries" in lines[0]
    packages = [ln.split(": ", 1)[1].split(" (", 1)[0] for ln in lines[1:]]
    assert packages[0] == "core" and packages[-1] == "tests", packages
    assert "the orchard ledger every other package uses" in lines[1]
    # the map goes before the unreviewed proposals, after the operator's own words
    assert text.index("## Repo map") > text.index("## Latest spark notes")
    assert text.index("## Repo map") < text.index("## Proposed role memory")
    # a changed file makes a covering summary stale once rescanned: the map says so
    (root / "core" / "ledger.py").write_text('"""Ledger rows, now with totals."""\n')
    assert mg(env, "repo", "scan", str(root)).returncode == 0
    text = _context(mg(env, "hook", "session-start", stdin=_payload(root)).stdout)
    assert "- package stale: core (" in text and "0 stale summaries" not in text
    # the repo cut's standing sections (`context --cut repo --prompt --project`) are it
    from memgraph.store.sqlite_ext.standing import LightStanding
    from profiles.wakeup.standing import gather

    reads = LightStanding(tmp_path / "mg-home" / "memgraph.db")
    try:
        assert [s.key for s in gather(reads, "repo", "orchard")] == ["repo"]
        assert gather(reads, "repo", "meadow") == []
    finally:
        reads.close()
    # elsewhere: no map
    other = tmp_path / "meadow"
    other.mkdir()
    text = _context(mg(env, "hook", "session-start", stdin=_payload(other)).stdout)
    assert "## Repo map" not in text


def test_the_map_comes_from_the_fleets_shared_store_too(tmp_path: Path, pg_url: str) -> None:
    root = tmp_path / "orchard"
    _scanned_repo(root, _env(tmp_path / "a", MEMGRAPH_STORE=pg_url))
    machine_b = _env(tmp_path / "b", MEMGRAPH_STORE=pg_url)
    done = mg(machine_b, "hook", "session-start", stdin=_payload(root), cwd=root)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    text = _context(done.stdout)
    assert "## Repo map: orchard" in text and "- package: core (" in text


def test_the_map_reads_dependents_in_either_wording() -> None:
    """Summaries from before s41 say "3 module(s) outside import it"; newer ones say
    "1 module" / "3 modules": the map orders packages by that number in all three."""
    from profiles.wakeup.standing import _dependents

    for text, n in (
        ("3 module(s) outside import it (most: a.py, 2): check them", 3),
        ("1 module outside import it (most: a.py, 1): check them", 1),
        ("12 modules outside import it (most: a.py, 7): check them", 12),
        ("no module outside imports it: changes stay local", 0),
    ):
        assert _dependents({"action_implication": text}) == n, text


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"cwd": "/work/caf\udce9"}, None),  # bytes of another encoding: recorded
        ({"source": "start\ud800"}, None),
        ({"cwd": "/work/a\x00b"}, "active session not recorded: workspace '/work/a\\x00b' holds"),
    ],
)
def test_an_odd_cwd_or_source_leaves_no_temp_file(
    tmp_path: Path, fields: dict[str, str], said: str | None
) -> None:
    """Before (audit s41): a lone surrogate in the payload's cwd or source failed the
    record's write half-way, "active session not recorded: 'utf-8' codec can't encode
    character '\\ud800' ...", and left an empty `.<key>.json.<pid>.tmp` behind on every
    session start; a NUL in the cwd was recorded as a workspace."""
    from profiles.wakeup.hook import session_start

    home = tmp_path / "mg-home"
    payload = {"session_id": "s-41", "cwd": str(tmp_path), "source": "startup", **fields}
    raw = json.dumps(payload).encode()
    out, problems = session_start(raw, {"MEMGRAPH_HOME": str(home)}, {})
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    records = home / "active-sessions"
    left = [p.name for p in records.iterdir()] if records.exists() else []
    assert not [name for name in left if name.endswith(".tmp")]
    if said is None:
        assert problems == []
        assert find_active(home, payload["cwd"]) == "s-41"
    else:
        assert len(problems) == 1 and said in problems[0]
        assert left == []
