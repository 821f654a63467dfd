"""`memgraph repo scan|status|hook install` and `context --cut repo --repo` (CliRunner),
and the MCP tool's repo cut."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli.app import app
from memgraph.config import load_settings
from memgraph.mcp_server import MemgraphTools

runner = CliRunner()


def _repo(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text('"""The app."""\n')
    (root / "app" / "store.py").write_text(
        '"""Store rows in sqlite."""\nimport sqlite3\n\n\ndef save() -> None:\n'
        '    sqlite3.connect("x.db")\n'
    )
    (root / "app" / "web.py").write_text('"""Web handlers."""\nfrom app.store import save\n')
    (root / "app" / "bad.py").write_text("def (:\n")
    return root


def test_scan_status_and_context(tmp_path: Path) -> None:
    root = _repo(tmp_path / "proj")
    store = str(tmp_path / "g.db")
    out = runner.invoke(app, ["repo", "scan", str(root), "--store", store])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("repo proj: 4 files (4 added")
    assert "skipped  app/bad.py: syntax error line 1: not parsed" in out.stderr
    again = runner.invoke(app, ["repo", "scan", str(root), "--store", store, "--json"])
    data = json.loads(again.stdout)
    assert data["receipts"] == 0 and data["parsed_now"] == []
    (root / "app" / "web.py").write_text(
        '"""Web handlers, changed."""\nfrom app.store import save\n'
    )
    status = runner.invoke(app, ["repo", "status", str(root), "--store", store])
    assert status.exit_code == 0
    assert "drift 1 (0 added, 1 changed, 0 deleted)" in status.stdout
    assert "changed  app/web.py" in status.stdout and "unparsed app/bad.py" in status.stdout
    runner.invoke(app, ["repo", "scan", str(root), "--store", store])
    status = runner.invoke(app, ["repo", "status", str(root), "--store", store, "--json"])
    doc = json.loads(status.stdout)
    assert doc["drift"] == 0 and doc["stale_summaries"]
    ctx = runner.invoke(
        app,
        ["context", "save rows in sqlite", "--cut", "repo", "--repo", str(root), "--store", store],
    )
    assert ctx.exit_code == 0, ctx.output
    assert "app/store.py" in ctx.stdout and "warning  stale summary" in ctx.stdout
    assert "1 file not parsed (module nodes only): app/bad.py" in ctx.stderr


def test_mcp_context_tool_takes_a_repo(tmp_path: Path) -> None:
    root = _repo(tmp_path / "proj")
    home = tmp_path / "home-mg"
    settings = load_settings(home=home)
    runner.invoke(app, ["repo", "scan", str(root), "--store", str(settings.store_path)])
    tools = MemgraphTools(settings)
    data = tools.context("save rows in sqlite", cut="repo", budget=800, repo=str(root))
    # the reply is the item texts (as_json: the whole document)
    assert data["nodes"][0].split("\n")[0].endswith(" app/store.py")
    assert data["tokens_used"] <= 800
    # the whole document costs ~420 tokens a module node: a larger budget for it
    whole = tools.context(
        "save rows in sqlite", cut="repo", budget=1500, repo=str(root), as_json=True
    )
    assert whole["nodes"][0]["title"] == "app/store.py"


def test_the_cut_says_which_shown_files_changed_since_the_scan(tmp_path: Path) -> None:
    """The cut's file:line anchors come from the scan's read: a file edited since was
    shown with its old lines and nothing said so. A notice (stderr; the MCP reply's
    notices) names the shown files whose content changed, and the command to rescan."""
    root = _repo(tmp_path / "proj")
    home = tmp_path / "home-mg"
    settings = load_settings(home=home)
    store = str(settings.store_path)
    assert runner.invoke(app, ["repo", "scan", str(root), "--store", store]).exit_code == 0
    cut = ["context", "save rows in sqlite", "--cut", "repo", "--repo", str(root), "--store", store]
    before = runner.invoke(app, cut)
    assert before.exit_code == 0 and "changed since the last scan" not in before.stderr
    text = (root / "app" / "store.py").read_text()
    (root / "app" / "store.py").write_text("\n" * 40 + text)  # save() is 40 lines lower
    after = runner.invoke(app, cut)
    assert after.exit_code == 0, after.output
    assert "app/store.py" in after.stdout
    assert (
        "1 file changed since the last scan, its file:line spots may have moved: app/store.py "
        f"(run `memgraph repo scan {root.resolve()}`)"
    ) in after.stderr
    data = MemgraphTools(settings).context("save rows in sqlite", cut="repo", repo=str(root))
    assert any("app/store.py" in n and "may have moved" in n for n in data["notices"]), data
    runner.invoke(app, ["repo", "scan", str(root), "--store", store])
    assert "changed since the last scan" not in runner.invoke(app, cut).stderr


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    out = runner.invoke(
        app, ["repo", "scan", str(tmp_path / "nope"), "--store", str(tmp_path / "g.db")]
    )
    assert out.exit_code == 1
    assert out.stderr.strip().startswith("Error: ") and len(out.stderr.strip().splitlines()) == 1
    out = runner.invoke(app, ["repo", "status", str(tmp_path), "--store", str(tmp_path / "g.db")])
    assert out.exit_code == 1 and "has not been scanned" in out.stderr
    # the cut names the folder to scan (it said `memgraph repo scan PATH`)
    cut = [
        "context",
        "x",
        "--cut",
        "repo",
        "--repo",
        str(tmp_path),
        "--store",
        str(tmp_path / "g.db"),
    ]
    out = runner.invoke(app, cut)
    assert out.exit_code == 1, out.output
    assert f"run `memgraph repo scan {tmp_path.resolve()}` first" in out.stderr
    out = runner.invoke(
        app,
        [
            "context",
            "x",
            "--cut",
            "role",
            "--repo",
            str(tmp_path),
            "--store",
            str(tmp_path / "g.db"),
        ],
    )
    assert out.exit_code == 2 and "--repo goes with --cut repo" in out.stderr


def test_hook_install_appends_once(tmp_path: Path) -> None:
    root = _repo(tmp_path / "proj")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    hook = root / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\necho mine\n")
    for _ in range(2):
        out = runner.invoke(app, ["repo", "hook", "install", str(root)])
        assert out.exit_code == 0, out.output
    text = hook.read_text()
    assert text.startswith("#!/bin/sh\necho mine\n") and text.count("memgraph repo hook") == 1
    assert "repo scan" in text and hook.stat().st_mode & 0o111
    plain = tmp_path / "plain"
    plain.mkdir()
    out = runner.invoke(app, ["repo", "hook", "install", str(plain)])
    assert out.exit_code == 2 and "not inside a git repository" in out.stderr


def test_hook_install_says_when_the_repo_is_not_scanned_in_that_store(tmp_path: Path) -> None:
    """The first commit after installing into a store without a scan of the repo runs
    a full scan in the background, its output unseen: the install says so, once."""
    root = _repo(tmp_path / "proj")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    store = str(tmp_path / "g.db")
    out = runner.invoke(app, ["repo", "hook", "install", str(root), "--store", store])
    assert out.exit_code == 0, out.output
    assert out.stderr == (
        f"note: {root} is not scanned in that store yet: the first commit would run a full "
        f"scan in the background, its output unseen; run `memgraph repo scan {root}` now\n"
    )
    assert not Path(store).exists()  # finding out created no store
    assert runner.invoke(app, ["repo", "scan", str(root), "--store", store]).exit_code == 0
    again = runner.invoke(app, ["repo", "hook", "install", str(root), "--store", store])
    assert again.exit_code == 0 and again.stderr == ""


def _git(root: Path, *args: str, path: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env.update({"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    if path is not None:
        env["PATH"] = path
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def test_the_hook_runs_this_memgraph_from_a_shell_without_it_on_path(tmp_path: Path) -> None:
    """git runs the hook with the committer's PATH, which need not hold the venv
    memgraph lives in: the hook wrote a bare `memgraph` and, its output sent to
    /dev/null, never rescanned. It names this memgraph by its absolute path."""
    import time

    root = _repo(tmp_path / "proj")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    assert runner.invoke(app, ["repo", "scan", str(root)]).exit_code == 0
    out = runner.invoke(app, ["repo", "hook", "install", str(root)])
    assert out.exit_code == 0, out.output
    (root / "app" / "web.py").write_text('"""Web handlers, now with a health check."""\n')
    _git(root, "commit", "-qam", "web: health check", path="/usr/bin:/bin")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the hook rescans in the background
        status = runner.invoke(app, ["repo", "status", str(root), "--json"])
        if status.exit_code == 0 and json.loads(status.stdout)["drift"] == 0:
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"the post-commit hook did not rescan: {status.stdout}")


def test_status_after_a_commit_the_scan_had_already_read_names_this_head(tmp_path: Path) -> None:
    """A commit of files the last scan had read (or of no source file) rewrites only
    the history node: status said "scanned at OLD, HEAD NEW" right after a rescan,
    as if the hook had not run."""
    root = _repo(tmp_path / "proj")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    (root / "app" / "web.py").write_text('"""Web handlers, edited."""\n')
    assert runner.invoke(app, ["repo", "scan", str(root)]).exit_code == 0
    (root / "NOTES.txt").write_text("not a source file\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "web: edited, and notes")
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert runner.invoke(app, ["repo", "scan", str(root)]).exit_code == 0
    status = runner.invoke(app, ["repo", "status", str(root), "--json"])
    assert status.exit_code == 0, status.output
    doc = json.loads(status.stdout)
    assert (doc["scanned_head"], doc["head"], doc["drift"]) == (head, head, 0)
    line = runner.invoke(app, ["repo", "status", str(root)]).stdout.splitlines()[0]
    assert f"scanned at {head[:12]}, HEAD {head[:12]}" in line


def test_the_hook_rescans_into_the_store_it_was_installed_for(tmp_path: Path) -> None:
    """The hook line named no store: git runs it with the committer's environment, so
    a repository scanned with --home H was rescanned into whatever home the committing
    shell had (the default store), and H's graph drifted. It now carries the store the
    install resolved, absolute."""
    import time

    root = _repo(tmp_path / "proj")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    home = tmp_path / "mine"
    assert runner.invoke(app, ["repo", "scan", str(root), "--home", str(home)]).exit_code == 0
    out = runner.invoke(app, ["repo", "hook", "install", str(root), "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert f"(rescans into {home / 'memgraph.db'})" in out.stdout
    hook = (root / ".git" / "hooks" / "post-commit").read_text()
    assert f"--home {home} --store {home / 'memgraph.db'} >/dev/null" in hook
    (root / "app" / "web.py").write_text('"""Web handlers, now with a health check."""\n')
    elsewhere = tmp_path / "committer-home"
    env = {**os.environ, "MEMGRAPH_HOME": str(elsewhere)}
    env.update({"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"})
    env.update({"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    subprocess.run(["git", "-C", str(root), "commit", "-qam", "web"], check=True, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the hook rescans in the background
        status = runner.invoke(app, ["repo", "status", str(root), "--home", str(home), "--json"])
        if status.exit_code == 0 and json.loads(status.stdout)["drift"] == 0:
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"the post-commit hook did not rescan {home}: {status.stdout}")
    assert not elsewhere.exists()


def test_counts_of_one_are_singular(tmp_path: Path) -> None:
    """Counts of one: "1 receipts", "(1 files, 1 folders)", "1 nodes": counts go through
    ``memgraph.terminal.plural`` in the scan line, the status line, the summaries'
    targets and the packet's last line."""
    root = tmp_path / "one"
    root.mkdir()
    (root / "solo.py").write_text('"""Parse the options."""\n\n\ndef parse() -> None:\n    pass\n')
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    out = runner.invoke(app, ["repo", "scan", str(root)])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("repo one: 1 file (1 added,")
    (root / "NOTES.txt").write_text("not a source file\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "notes")
    out = runner.invoke(app, ["repo", "scan", str(root)])  # only the history node moves
    assert ", 1 receipt, 0 stale summaries" in out.stdout, out.stdout
    status = runner.invoke(app, ["repo", "status", str(root)])
    assert status.stdout.startswith("repo one: 1 file scanned at "), status.stdout
    ctx = runner.invoke(app, ["context", "parse the options", "--cut", "repo", "--repo", str(root)])
    assert ctx.exit_code == 0, ctx.output
    assert "-- repo cut: 1 node, 0 summaries, 0 edges, " in ctx.stdout, ctx.stdout
    summaries = runner.invoke(app, ["repo", "status", str(root), "--json"])
    assert json.loads(summaries.stdout)["fresh_summaries"] == 2
    store = load_settings().store_path
    from memgraph.store import open_store

    s = open_store(store)
    try:
        targets = sorted(x.target for x in s.export_snapshot().summaries)
    finally:
        s.close()
    assert targets == ["package . (1 file)", "repo one (1 file, 1 folder)"]


def test_installing_again_mends_a_hook_line_of_an_older_memgraph(tmp_path: Path) -> None:
    root = _repo(tmp_path / "proj")
    _git(root, "init", "-q")
    hook = root / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    old = f"(memgraph repo scan {root} >/dev/null 2>&1 &)"
    hook.write_text(f"#!/bin/sh\necho mine\n# memgraph repo hook\n{old}\necho after\n")
    out = runner.invoke(app, ["repo", "hook", "install", str(root)])
    assert out.exit_code == 0, out.output
    lines = hook.read_text().splitlines()
    assert lines[:3] == ["#!/bin/sh", "echo mine", "# memgraph repo hook"]
    assert lines[3].startswith("(/") and " repo scan " in lines[3] and lines[4] == "echo after"
    assert hook.stat().st_mode & 0o111


def test_fast_path_matches_the_typer_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from memgraph.cli import repo_fast

    root = _repo(tmp_path / "proj")
    typer_out = runner.invoke(app, ["repo", "scan", str(root), "--store", str(tmp_path / "a.db")])
    code = repo_fast.run(["scan", str(root), "--store", str(tmp_path / "b.db")])
    fast = capsys.readouterr()
    assert code == typer_out.exit_code == 0
    assert fast.out == typer_out.stdout and fast.err == typer_out.stderr
    (root / "app" / "web.py").write_text('"""Changed."""\n')
    typer_out = runner.invoke(app, ["repo", "scan", str(root), "--store", str(tmp_path / "a.db")])
    code = repo_fast.run(["scan", str(root), f"--store={tmp_path / 'b.db'}", "--no-commits"])
    fast = capsys.readouterr()
    assert fast.out == typer_out.stdout and "stale    s-" in fast.out
    # what each stale summary covers, and the command that rewrites them
    stale = [line for line in fast.out.splitlines() if line.startswith("stale    s-")]
    assert stale and all(" «" in line and line.endswith("»") for line in stale)
    assert any("«package app" in line for line in stale)
    assert fast.out.splitlines()[-1] == (
        f"(the cut shows their modules instead; rewrite them: memgraph repo scan {root} --refresh)"
    )
    missing = str(tmp_path / "missing")
    typer_out = runner.invoke(app, ["repo", "scan", missing, "--store", str(tmp_path / "a.db")])
    assert repo_fast.run(["scan", missing, "--store", str(tmp_path / "b.db")]) == 1
    assert capsys.readouterr().err == typer_out.stderr
    for other in (["status"], ["scan", "--json"], ["scan", "--help"], ["scan", "a", "b"], []):
        assert repo_fast.run(other) is None


def test_hook_install_keeps_the_hooks_bytes_and_mode_and_runs_before_its_exit(
    tmp_path: Path,
) -> None:
    """Before: a Latin-1 byte became U+FFFD (the text was decoded with errors=replace
    and written back), 0644 became 0711, and our lines went after a final `exit 0`
    where they never run."""
    root = _repo(tmp_path / "r")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    hook = root / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    mine = b"#!/bin/sh\n# caf\xe9: a Latin-1 comment\necho mine\nexit 0\n"
    hook.write_bytes(mine)
    hook.chmod(0o644)
    out = runner.invoke(app, ["repo", "hook", "install", str(root)])
    assert out.exit_code == 0, out.output
    data = hook.read_bytes()
    head, _, tail = data.partition(b"# memgraph repo hook\n")
    assert head == b"#!/bin/sh\n# caf\xe9: a Latin-1 comment\necho mine\n"
    assert tail.endswith(b" >/dev/null 2>&1 &)\nexit 0\n")
    assert stat.S_IMODE(hook.stat().st_mode) == 0o755


def test_hook_install_refuses_a_fifo_in_the_hooks_place(tmp_path: Path) -> None:
    root = _repo(tmp_path / "proj")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    hook = root / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(hook)  # reading it would wait for a writer forever
    out = runner.invoke(app, ["repo", "hook", "install", str(root)])
    assert out.exit_code == 2 and "not a regular file" in out.stderr
    assert hook.is_fifo()  # left as it was


@pytest.mark.parametrize("git", [False, True])
def test_a_file_name_that_is_not_utf8_is_skipped_not_fatal(tmp_path: Path, git: bool) -> None:
    """A name with a raw \\xfe byte made the whole scan fail: `Error: p-...: a document
    cannot be stored as UTF-8 JSON (... surrogates not allowed)`."""
    root = _repo(tmp_path / "odd")
    os.mkdir(os.fsencode(root) + b"/pk\xff")
    with open(os.fsencode(root) + b"/pk\xff/mod.py", "w") as fh:
        fh.write("def g() -> None:\n    pass\n")
    with open(os.fsencode(root) + b"/caf\xe9.py", "w") as fh:
        fh.write("X = 1\n")
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    store = str(tmp_path / "s.db")
    out = runner.invoke(app, ["repo", "scan", str(root), "--store", store])
    assert out.exit_code == 0, out.output
    skipped = [line for line in out.stderr.splitlines() if "not UTF-8" in line]
    assert skipped == [
        "skipped  caf\\xe9.py: file name is not UTF-8: not read (rename it)",
        "skipped  pk\\xff/mod.py: file name is not UTF-8: not read (rename it)",
    ]
    as_json = runner.invoke(app, ["repo", "scan", str(root), "--store", store, "--json"])
    assert as_json.exit_code == 0, as_json.output
    ledger = {x["path"] for x in json.loads(as_json.stdout)["ledger"]}
    assert {"caf\\xe9.py", "pk\\xff/mod.py"} <= ledger
    status = runner.invoke(app, ["repo", "status", str(root), "--store", store])
    assert status.exit_code == 0 and "drift 0" in status.stdout


def test_a_repository_path_that_is_not_utf8_is_one_clear_error(tmp_path: Path) -> None:
    """Before: `Error: p-...: a document cannot be stored as UTF-8 JSON (...)`."""
    root = os.fsdecode(os.fsencode(tmp_path) + b"/repo\xff")
    os.mkdir(root)
    Path(root, "a.py").write_text("X = 1\n")
    store = str(tmp_path / "s.db")
    for argv in (["repo", "scan", root], ["repo", "status", root]):
        out = runner.invoke(app, [*argv, "--store", store])
        assert out.exit_code == 1, out.output
        assert out.stderr == (
            f"Error: the repository path {tmp_path}/repo\\xff is not UTF-8: rename the folder "
            "(or the parent whose name is not) and scan again\n"
        )


def test_file_names_with_escape_sequences_are_printed_escaped(tmp_path: Path) -> None:
    """A cloned repository's `a\\x1b[2Jb.py` reached the terminal raw from scan's
    `skipped` lines and status's `added/deleted` lines (cleared the screen)."""
    root = tmp_path / "r"
    root.mkdir()
    (root / "a\x1b[2Jb.py").write_text("def f() -> None:\n    pass\n")
    (root / "c\x1b[8md.py").write_bytes(b"\x00binary")
    store = str(tmp_path / "s.db")
    out = runner.invoke(app, ["repo", "scan", str(root), "--store", store])
    assert out.exit_code == 0 and "\x1b" not in out.stdout + out.stderr, out.output
    assert "skipped  c\\x1b[8md.py: binary content: not read" in out.stderr
    (root / "a\x1b[2Jb.py").unlink()
    status = runner.invoke(app, ["repo", "status", str(root), "--store", store])
    assert status.exit_code == 0 and "\x1b" not in status.stdout, status.output
    assert "deleted  a\\x1b[2Jb.py" in status.stdout


def test_the_repo_cut_inside_a_scanned_repo_without_repo_says_how(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`context --cut repo` without --repo in a repository the store scanned ran the cut
    over every domain and said nothing of the ranking of its modules; now one tip line
    says so, and --prompt carries the repository's map as its standing part."""
    root = _repo(tmp_path / "proj")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "first")
    assert runner.invoke(app, ["repo", "scan", str(root)]).exit_code == 0
    monkeypatch.chdir(root / "app")
    done = runner.invoke(app, ["context", "save rows", "--cut", "repo", "--prompt"])
    assert done.exit_code == 0, done.output
    assert f"tip: {root} is a scanned repository: add --repo {root}" in done.stderr
    assert "## Repo map: proj" in done.stdout
    with_repo = runner.invoke(app, ["context", "save rows", "--cut", "repo", "--repo", str(root)])
    assert with_repo.exit_code == 0 and "tip:" not in with_repo.stderr
    monkeypatch.chdir(tmp_path)  # not a scanned repository: no tip
    elsewhere = runner.invoke(app, ["context", "save rows", "--cut", "repo"])
    assert elsewhere.exit_code == 0 and "tip:" not in elsewhere.stderr
