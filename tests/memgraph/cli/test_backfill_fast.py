"""The lean `memgraph voice --backfill` rerun: same lines as typer when nothing is
new, no typer or pydantic in the process, and every case with work to do (or
anything unusual) left to the typer command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memgraph.cli import backfill_fast
from memgraph.cli.app import app

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "profiles" / "voice"))
from _capture_helpers import PROMPTS, claude_records, write_transcript

runner = CliRunner()
NEVER = ("typer", "click", "pydantic", "pydantic_settings", "profiles.voice.capture", "rich")
SID_A = "aaaa1111-0000-0000-0000-000000000001"
SID_B = "bbbb2222-0000-0000-0000-000000000002"


def _tree(root: Path) -> list[Path]:
    a = write_transcript(root / "a" / f"{SID_A}.jsonl", claude_records(PROMPTS, sid=SID_A))
    b = write_transcript(root / "b" / f"{SID_B}.jsonl", claude_records(PROMPTS[:1], sid=SID_B))
    return [a, b]


@pytest.fixture
def done(isolated_env: Path) -> list[Path]:
    """Two transcripts backfilled once (one paged, one too short)."""
    files = _tree(isolated_env / "transcripts")
    first = runner.invoke(app, ["voice", "--backfill"])
    assert first.exit_code == 0, first.output
    return files


def _masked(text: str) -> str:
    return re.sub(r"in [0-9.]+ s", "in T s", text)


def _process(argv: list[str]) -> tuple[int, str, str, list[str]]:
    """``memgraph *argv`` in a fresh process: (code, stdout, stderr, NEVER modules loaded)."""
    code = (
        "import sys\n"
        "from memgraph.cli import main\n"
        f"sys.argv = ['memgraph', *{argv!r}]\n"
        "try:\n"
        "    main(exit=sys.exit)\n"
        "finally:\n"
        f"    never = sorted(m for m in {NEVER!r} if m in sys.modules)\n"
        "    sys.stderr.write('\\nLOADED ' + ' '.join(never))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy(),
        timeout=120,
    )  # fmt: skip
    err, _, loaded = proc.stderr.rpartition("\nLOADED ")
    return proc.returncode, proc.stdout, err, loaded.split()


@pytest.mark.parametrize("extra", [[], ["-v"], ["--verbose"], ["-q"]])
def test_nothing_new_same_lines_as_typer_without_typer(done: list[Path], extra: list[str]) -> None:
    code, out, err, loaded = _process(["voice", "--backfill", *extra])
    assert code == 0, err
    assert loaded == []  # the lean path answered
    typer_run = runner.invoke(app, ["voice", "--backfill", *extra])
    assert typer_run.exit_code == 0
    assert _masked(out) == _masked(typer_run.stdout)
    if extra != ["-q"]:
        assert out.splitlines()[-1].startswith(
            "backfill: 2 transcripts: 0 paged, 2 skipped (2 unchanged), 0 errors; 0.0 MB in "
        )


def test_warnings_are_printed_like_typer(done: list[Path], isolated_env: Path) -> None:
    roots = ["--transcripts", str(isolated_env / "transcripts")]
    missing = ["--transcripts", str(isolated_env / "nowhere")]
    code, out, err, loaded = _process(["voice", "--backfill", *roots, *missing])
    assert (code, loaded) == (0, [])
    assert f"warning: transcript root {isolated_env / 'nowhere'} does not exist; skipped" in err
    typer_run = runner.invoke(app, ["voice", "--backfill", *roots, *missing])
    assert _masked(out) == _masked(typer_run.stdout)
    assert err.strip() == typer_run.stderr.strip()


def _touch_later(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


@pytest.mark.parametrize("change", ["new file", "appended", "same bytes, new mtime"])
def test_work_to_do_goes_to_the_typer_command(
    done: list[Path], isolated_env: Path, change: str
) -> None:
    root = isolated_env / "transcripts"
    if change == "new file":
        sid = "cccc3333-0000-0000-0000-000000000003"
        write_transcript(root / "c" / f"{sid}.jsonl", claude_records(PROMPTS, sid=sid))
    elif change == "appended":
        more = claude_records(PROMPTS, sid=SID_B)
        write_transcript(done[1], more)
    else:
        _touch_later(done[0])
    code, out, err, loaded = _process(["voice", "--backfill"])
    assert code == 0, err
    assert "typer" in loaded  # the full command ran and did the work
    summary = out.splitlines()[-1]
    if change == "new file":
        assert summary.startswith("backfill: 3 transcripts: 1 paged, 2 skipped (2 unchanged)")
    elif change == "appended":
        assert summary.startswith("backfill: 2 transcripts: 1 paged, 1 skipped (1 unchanged)")
    else:
        assert summary.startswith("backfill: 2 transcripts: 0 paged, 2 skipped (2 unchanged)")
    # and the next rerun is lean again: the registry was brought up to date
    code, _, _, loaded = _process(["voice", "--backfill"])
    assert (code, loaded) == (0, [])


def test_a_file_the_ledger_must_record_goes_to_the_typer_command(
    done: list[Path], isolated_env: Path
) -> None:
    fifo = isolated_env / "transcripts" / "a" / "pipe.jsonl"
    os.mkfifo(fifo)
    code, _, err, loaded = _process(["voice", "--backfill"])
    assert code == 0 and "typer" in loaded
    assert "pipe.jsonl" in err  # said, and counted in the ledger by the full path


def test_no_store_or_a_bad_config_goes_to_the_typer_command(isolated_env: Path) -> None:
    _tree(isolated_env / "transcripts")
    assert backfill_fast.run(["--backfill"]) is None  # no store yet
    config = isolated_env / "bad.toml"
    config.write_text("transcripts = [1, 2]\n")
    os.environ["MEMGRAPH_CONFIG"] = str(config)
    try:
        assert backfill_fast.run(["--backfill"]) is None
    finally:
        del os.environ["MEMGRAPH_CONFIG"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--backfill", "--json"],
        ["--backfill", "--since", "7d"],
        ["--backfill", "--home"],
        ["--backfill", "--home", "a", "--home", "b"],
        ["--backfill", "--store", "x.db"],
        ["--backfill", "--no-redact"],
        ["--backfill", "extra-word"],
        ["--backfill", "--help"],
        ["--backfil"],
    ],
)
def test_parse_leaves_anything_else_to_typer(argv: list[str]) -> None:
    assert backfill_fast.parse(argv) is None


def test_parse_reads_the_forms_click_reads() -> None:
    parsed = backfill_fast.parse(["-v", "--backfill", "--home=/h", "--transcripts", "/a"])
    assert parsed == {"verbose": [], "backfill": [], "home": ["/h"], "transcripts": ["/a"]}
