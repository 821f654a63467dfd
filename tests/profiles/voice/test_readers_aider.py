"""aider reader on small generated chat histories (public format), plus hostile input."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers import ReadOptions, iter_transcripts, read_transcript
from profiles.voice.readers.registry import repo_transcripts

KEEP_ALL = ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))

CHAT = """
# aider chat started at 2026-02-03 10:00:00

> Aider v0.86.1
> Main model: some-model with diff edit format
> Git repo: .git with 12 files

#### /ask why does the cache miss on restart?

#### why does the cache miss on restart?

Because the key includes the process id.

> Tokens: 2.1k sent, 120 received.

#### /architect drop the pid from the key

#### drop the pid from the key

I will tell the editor to change `cache_key` so it no longer uses the pid.

> Tokens: 3.0k sent, 80 received.

#### I will tell the editor to change `cache_key` so it no longer uses the pid.

Here is the edit.

> Applied edit to cache.py
> Commit 1a2b3c4 fix: stable cache key

#### /commit

#### also add a test for it
#### with two restarts

Added the test.

# aider chat started at 2026-02-04 08:30:00

#### ok

#### /add README.md
"""

INPUT = """
# 2026-02-03 10:00:05.100000
+/ask why does the cache miss on restart?

# 2026-02-03 10:01:10.200000
+/architect drop the pid from the key

# 2026-02-03 10:02:00.000000
+Y

# 2026-02-03 10:03:00.000000
+/commit

# 2026-02-03 10:04:00.000000
+also add a test for it
+with two restarts

# 2026-02-04 08:30:07.000000
+ok
"""


def repo(tmp_path: Path, chat: str = CHAT, inputs: str | None = INPUT) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    # aider ends every user-turn line with two spaces (a Markdown line break)
    chat = "\n".join(x + "  " if x.startswith("####") else x for x in chat.split("\n"))
    (tmp_path / ".aider.chat.history.md").write_text(chat, encoding="utf-8")
    if inputs is not None:
        (tmp_path / ".aider.input.history").write_text(inputs, encoding="utf-8")
    return tmp_path / ".aider.chat.history.md"


def test_typed_turns_are_voice_echoes_and_forwarded_plans_are_not(tmp_path: Path) -> None:
    r = read_transcript(repo(tmp_path), KEEP_ALL)
    assert r.harness == "aider"
    assert [(m.text, m.origin, m.command) for m in r.messages] == [
        ("why does the cache miss on restart?", "prompt", "/ask"),
        ("drop the pid from the key", "prompt", "/architect"),
        ("/commit", "slash_command", None),
        ("also add a test for it\nwith two restarts", "prompt", None),
        ("ok", "prompt", None),
        ("/add README.md", "slash_command", None),
    ]
    assert r.stats.dropped == {"aider_echo": 2, "aider_forwarded": 1}
    assert all(m.cwd == str(tmp_path) for m in r.messages)


def test_input_history_gives_times_and_sessions_split(tmp_path: Path) -> None:
    r = read_transcript(repo(tmp_path), KEEP_ALL)
    stamps = [m.timestamp.isoformat() for m in r.messages]
    assert stamps[:2] == ["2026-02-03T10:00:05.100000+00:00", "2026-02-03T10:01:10.200000+00:00"]
    # /add is not in the input history: it takes the time of the message before it
    assert stamps[-1] == "2026-02-04T08:30:07+00:00"
    assert any("not found in .aider.input.history" in w for w in r.stats.warnings)
    sessions = [m.session_id for m in r.messages]
    assert len(set(sessions[:4])) == 1 and sessions[4] == sessions[5] != sessions[0]
    # ids are stable across reads (the file is append-only)
    again = read_transcript(repo(tmp_path), KEEP_ALL)
    assert [m.record_uuid for m in again.messages] == [m.record_uuid for m in r.messages]


def test_without_input_history_the_session_start_is_the_time(tmp_path: Path) -> None:
    r = read_transcript(repo(tmp_path, inputs=None))
    assert [m.text for m in r.messages][:2] == [
        "why does the cache miss on restart?",
        "drop the pid from the key",
    ]
    assert {m.timestamp.isoformat() for m in r.messages[:4]} == {"2026-02-03T10:00:00+00:00"}
    assert "ok" not in [m.text for m in r.messages]  # trivial, default options


def test_found_in_known_repos_and_under_a_given_path(tmp_path: Path) -> None:
    a = repo(tmp_path / "a")
    (tmp_path / "b").mkdir()
    assert list(repo_transcripts([tmp_path / "a", tmp_path / "b", tmp_path / "gone"])) == [a]
    assert list(iter_transcripts(tmp_path)) == [a]


def test_probe_counts_an_aider_history_as_a_session(tmp_path: Path) -> None:
    from profiles.voice.probe import is_session_file

    assert is_session_file(repo(tmp_path))
    assert not is_session_file(tmp_path / ".aider.input.history")


HOSTILE = [
    "",
    "#### \n####\n",
    "#### /ask  \n",
    "# aider chat started at 9999-99-99 99:99:99\n#### hello there  \n",
    "#### no session header  \n",
    "\x00\x01#### binary\n",
    "# aider chat started at 2026-02-03 10:00:00\n" + "#### x  \n" * 5000,
    "# aider chat started at 2026-02-03 10:00:00\n#### <!-- mg {} -->\n#### ---\n",
]


def test_hostile_histories_never_raise(tmp_path: Path) -> None:
    for i, text in enumerate(HOSTILE):
        path = repo(tmp_path / str(i), chat=text, inputs="# garbage\n+\n+/ask\n\x00")
        r = read_transcript(path, KEEP_ALL)
        for m in r.messages:
            assert m.text.strip()
            m.text.encode("utf-8")


def test_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_bytes(b"# aider chat started at 2026-02-03 10:00:00\n#### caf\xe9 bug  \n")
    (m,) = read_transcript(path).messages
    assert m.text == "caf\ufffd bug"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                "# aider chat started at 2026-02-03 10:00:00",
                "#### /ask what now  ",
                "#### what now  ",
                "#### ",
                "> Tokens: 1k sent",
                "a reply line",
                "",
            ]
        )
        | st.text(max_size=30).map(lambda t: "#### " + t),
        max_size=30,
    )
)
def test_any_history_reads_and_every_run_is_accounted_for(lines: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ".aider.chat.history.md"
        path.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
        r = read_transcript(path, KEEP_ALL)
    assert r.harness == "aider"
    for m in r.messages:
        assert m.text.strip() and m.harness == "aider"


def test_an_input_history_that_is_a_fifo_never_blocks_the_read(tmp_path: Path) -> None:
    """A FIFO there would block the read forever (no writer): it reads as no input
    history, and the chat still reads."""
    import os
    import subprocess
    import sys

    path = repo(tmp_path, inputs=None)
    os.mkfifo(tmp_path / ".aider.input.history")
    code = (
        "from pathlib import Path; from profiles.voice.readers import read_transcript; "
        f"r = read_transcript(Path({str(path)!r})); print(len(r.messages))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )  # a hang is a timeout here, not a stuck suite
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 0
