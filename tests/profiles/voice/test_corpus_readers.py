"""The readers on every file of the real corpus (../shared/corpus/real).

Oracles: the prompt-history files (what people actually typed) for the sessions
they cover, plus per-file counts checked by reading the transcripts by hand
(notes/prefilter.md, "What the corpus showed").
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from profiles.voice.model import OperatorMessage, TranscriptRead
from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers import ReadOptions, iter_transcripts, read_transcript

KEEP_ALL = ReadOptions(prefilter=PrefilterOptions(drop_trivial=False))

# Default options (trivial acknowledgements dropped); per file, verified by reading it.
EXPECTED = {
    "4thehalibit__omarchy-backup__1fb5e404-604d-4a2b-baf1-3beb42a67371.jsonl": 62,
    "4thehalibit__omarchy-backup__5fbb940a-c7f3-404d-bf66-a028fcc250ec.jsonl": 38,
    "4thehalibit__omarchy-backup__8a3e5a2e-788d-4759-ad92-56023d9aee60.jsonl": 5,
    "4thehalibit__omarchy-backup__a12d49f7-99d4-4568-af07-d149858678db.jsonl": 1,
    "SudarshanVK__dotfiles__737c59a9-7c54-4e14-82fa-78d9389ebc2b.jsonl": 9,
    "SudarshanVK__dotfiles__98743092-d199-4261-9ab0-95c08e91ce0d.jsonl": 10,
    "Xu-Wentao__dotfile__7ef4b236-d946-48a6-a856-e45b02af7be7.jsonl": 26,
    "Xu-Wentao__dotfile__8abe8dd8-11af-4450-b04b-0163a40f93a8.jsonl": 2,
    "Xu-Wentao__dotfile__agent-aside_question-fcbf929fc3d4fdc0.jsonl": 1,
    "Xu-Wentao__dotfile__e2e4f7f7-0e2a-443b-a3ca-f6f7956cbc06.jsonl": 9,
    "bradymholt__dotfiles__354b2588-2a5c-43d7-b678-e95a4a87bd2a.jsonl": 30,
    "bradymholt__dotfiles__agent-a227a46.jsonl": 0,
    "bradymholt__dotfiles__b6076239-b6a8-42a2-8a61-9d0390bdcf3b.jsonl": 1,
    "marot__spotter__258c7280-ae70-4798-800f-63464d01a85d.jsonl": 4,
    "marot__spotter__agent-acompact-fffbd0.jsonl": 0,
    "marot__spotter__subagent.jsonl": 3,
    "blubber__dotfiles__rollout-2026-02-07T09-05-41-019c3722-9d91-7a90-8939-8987661aec98.jsonl": 0,
    "blubber__dotfiles__rollout-2026-02-07T09-18-16-019c372e-2526-7e72-83e1-9cba8efad18d.jsonl": 1,
    "blubber__dotfiles__rollout-2026-02-15T05-51-09-019c5fa3-64d1-7a52-adf0-0c1378d1d98d.jsonl": 8,
}

# Text that is never something the human typed.
FORBIDDEN = (
    "<command-",
    "<local-command",
    "<system-reminder>",
    "tool_result",
    "<task-notification>",
    "<bash-stdout>",
    "<bash-input>",
    "<ide_selection>",
    "<ide_opened_file>",
    '<context ref="',
    "This session is being continued",
    "Caveat:",
    "Warmup",
    "AGENTS.md",
    "<environment_context>",
    "<turn_aborted>",
    "<INSTRUCTIONS>",
    "Help find why clearing a target",
    "[Request interrupted by user",
    "Base directory for this skill",
    "Your task is to create a detailed summary",
    "The user doesn't want to proceed",
    "User has answered your questions",
    "[Image source:",
    "API Error",
    "Continue from where you left off.",
)


def transcripts(corpus: Path) -> list[Path]:
    return sorted(p for d in ("claude-code", "codex") for p in (corpus / d).glob("*.jsonl"))


def read_all(corpus: Path, options: ReadOptions | None = None) -> dict[str, TranscriptRead]:
    return {p.name: read_transcript(p, options) for p in transcripts(corpus)}


def session_of(name: str) -> str:
    return name.removesuffix(".jsonl").split("__")[-1]


def test_every_file_reads_without_crash_or_bad_lines(corpus: Path) -> None:
    reads = read_all(corpus)
    assert set(reads) == set(EXPECTED)
    for name, read in reads.items():
        assert read.stats.bad_lines == 0, name
        assert read.stats.kept == len(read.messages)
        assert read.harness == ("codex" if "rollout-" in name else "claude-code")


def test_per_file_counts(corpus: Path) -> None:
    counts = {name: len(read.messages) for name, read in read_all(corpus).items()}
    assert counts == EXPECTED


def test_fast_path_equals_decoding_every_line(corpus: Path) -> None:
    for path in transcripts(corpus):
        fast = read_transcript(path, KEEP_ALL)
        slow = read_transcript(path, ReadOptions(prefilter=KEEP_ALL.prefilter, fast_skip=False))
        assert fast.messages == slow.messages, path.name
        assert slow.stats.skipped_fast == 0


def test_no_machine_text_is_ever_extracted(corpus: Path) -> None:
    for name, read in read_all(corpus, KEEP_ALL).items():
        for m in read.messages:
            for marker in FORBIDDEN:
                assert marker not in m.text, (name, m.line, marker)


def machine_texts(path: Path) -> set[str]:
    """Every assistant text, tool output and agent-written prompt in a file."""
    out: set[str] = set()
    for raw in path.read_bytes().splitlines():
        rec = json.loads(raw)
        msg = rec.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if rec.get("type") == "assistant" and isinstance(content, list):
            out.update(b["text"].strip() for b in content if b.get("type") == "text")
        if rec.get("type") != "user":
            continue
        side_question = isinstance(content, str) and "This is a side question" in content
        if rec.get("isSidechain") and isinstance(content, str) and not side_question:
            out.add(content.strip())
        if isinstance(content, list):
            for b in content:
                # (an is_error result can be v2.0 feedback: the whole text is the human's)
                tool_text = b.get("type") == "tool_result" and isinstance(b.get("content"), str)
                if tool_text and not b.get("is_error"):
                    out.add(b["content"].strip())
    return out


def test_no_assistant_tool_or_agent_text_is_extracted(corpus: Path) -> None:
    for path in sorted((corpus / "claude-code").glob("*.jsonl")):
        forbidden = machine_texts(path)
        aside = "aside_question" in path.name
        for m in read_transcript(path, KEEP_ALL).messages:
            if aside:
                assert m.origin == "side_question"
            else:
                assert m.text not in forbidden, (path.name, m.line)


def test_every_message_is_well_formed(corpus: Path) -> None:
    origins = Counter()
    for name, read in read_all(corpus, KEEP_ALL).items():
        for m in read.messages:
            origins[m.origin] += 1
            assert m.text and m.text == m.text.strip()
            assert m.timestamp.utcoffset() is not None and m.timestamp.utcoffset().seconds == 0
            assert m.line >= 1 and m.transcript.endswith(name)
            assert m.record_uuid and m.session_id
        keys = [(m.session_id, m.record_uuid) for m in read.messages]
        assert len(keys) == len(set(keys)), name
        assert read.messages == sorted(read.messages, key=lambda m: (m.timestamp, m.line))
    # every origin the contract names occurs in the real corpus
    assert set(origins) == {
        "prompt", "slash_command", "bash_input", "rejection_feedback", "ask_answer", "queued",
        "side_question",
    }  # fmt: skip


# --- oracle: Claude Code ~/.claude/history.jsonl ------------------------------------------

_PASTE = re.compile(r"\[Pasted text #(\d+)(?: \+\d+ lines)?\]")


def expected_from_history(entry: dict[str, Any]) -> tuple[str, str | None]:
    """(text the transcript must hold, origin if it is not a plain prompt)."""
    display = entry["display"]
    pasted = entry.get("pastedContents") or {}
    text = _PASTE.sub(lambda m: pasted.get(m.group(1), {}).get("content", m.group(0)), display)
    if text.startswith("!"):  # bash mode: history keeps the "!", the transcript the command
        return text[1:].strip(), "bash_input"
    if text.strip() in ("exit", "quit"):  # typed bare; Claude Code records it as /exit
        return "/exit", "slash_command"
    return text.strip(), None


@pytest.mark.parametrize(
    ("history", "session", "entries"),
    [
        ("4thehalibit__omarchy-backup__history.jsonl", "1fb5e404-604d-4a2b-baf1-3beb42a67371", 64),
        ("4thehalibit__omarchy-backup__history.jsonl", "5fbb940a-c7f3-404d-bf66-a028fcc250ec", 38),
        ("4thehalibit__omarchy-backup__history.jsonl", "8a3e5a2e-788d-4759-ad92-56023d9aee60", 5),
        ("4thehalibit__omarchy-backup__history.jsonl", "a12d49f7-99d4-4568-af07-d149858678db", 1),
        ("SudarshanVK__dotfiles__history.jsonl", "737c59a9-7c54-4e14-82fa-78d9389ebc2b", 9),
    ],
)
def test_prompt_history_oracle(corpus: Path, history: str, session: str, entries: int) -> None:
    lines = (corpus / "prompt-history" / history).read_text(encoding="utf-8").splitlines()
    oracle = [e for e in map(json.loads, lines) if e.get("sessionId") == session]
    assert len(oracle) == entries
    (path,) = (corpus / "claude-code").glob(f"*{session}.jsonl")
    messages = read_transcript(path, KEEP_ALL).messages
    remaining: list[OperatorMessage] = list(messages)
    for entry in oracle:
        text, origin = expected_from_history(entry)
        match = next((m for m in remaining if m.text == text), None)
        assert match is not None, f"typed but not extracted: {text[:80]!r}"
        if origin is not None:
            assert match.origin == origin
        remaining.remove(match)
    # nothing extracted that the human did not type
    assert remaining == []


def test_queued_never_sent_message_is_kept(corpus: Path) -> None:
    (path,) = (corpus / "claude-code").glob("*5fbb940a*.jsonl")
    queued = [m for m in read_transcript(path).messages if m.origin == "queued"]
    assert [(m.text, m.line) for m in queued] == [("stop", 233)]


def test_queued_only_messages_and_attachment_dedupe(corpus: Path) -> None:
    (spotter,) = (corpus / "claude-code").glob("marot__spotter__258c*.jsonl")
    queued = [m.text for m in read_transcript(spotter).messages if m.origin == "queued"]
    assert queued == ["check again", "new beads for the epic were added. tackle them"]
    (omarchy,) = (corpus / "claude-code").glob("*8a3e5a2e*.jsonl")
    stops = [m for m in read_transcript(omarchy).messages if m.text == "stop"]
    assert len(stops) == 1  # enqueue + queued_command attachment = one message


def test_side_question_is_kept_once_and_replays_are_not(corpus: Path) -> None:
    cc = corpus / "claude-code"
    (aside,) = cc.glob("*aside_question*.jsonl")
    (main,) = cc.glob("Xu-Wentao__dotfile__7ef4b236*.jsonl")
    side = read_transcript(aside).messages
    assert [(m.text, m.origin, m.session_id) for m in side] == [
        ("firstavailable具体用法是什么", "side_question", "7ef4b236-d946-48a6-a856-e45b02af7be7")
    ]
    main_texts = {m.text for m in read_transcript(main).messages}
    assert side[0].text not in main_texts


def test_no_double_counting_across_main_and_sidechain_files(corpus: Path) -> None:
    seen: Counter[tuple[str, str, str]] = Counter()
    for path in iter_transcripts(corpus / "claude-code"):
        for m in read_transcript(path, KEEP_ALL).messages:
            seen[(m.session_id, m.text, m.timestamp.isoformat())] += 1
    assert [k for k, n in seen.items() if n > 1] == []


def test_v2_0_resume_replay_is_not_counted_twice(corpus: Path) -> None:
    (path,) = (corpus / "claude-code").glob("bradymholt__dotfiles__354b2588*.jsonl")
    assert read_transcript(path).stats.dropped["replayed"] == 20
    read = read_transcript(path, KEEP_ALL)
    texts = Counter(m.text for m in read.messages)
    repeated = [t for t, n in texts.items() if n > 1]
    # the only repeat is a prompt the human really sent twice, 30 minutes apart
    assert len(repeated) == 1 and repeated[0].startswith("But how do I signal from the app")


def test_human_text_hidden_in_tool_results(corpus: Path) -> None:
    cc = corpus / "claude-code"

    def by_origin(glob: str, origin: str) -> list[str]:
        (path,) = cc.glob(glob)
        return [m.text for m in read_transcript(path).messages if m.origin == origin]

    assert by_origin("marot__spotter__subagent.jsonl", "ask_answer") == [
        "No rig\nCredo + Dialyxir + mix_audit"
    ]
    feedback = by_origin("Xu-Wentao__dotfile__e2e4f7f7*.jsonl", "rejection_feedback")
    assert len(feedback) == 1 and feedback[0].startswith("我们在配置开发机的时候")
    assert feedback[0].endswith("挂载到当前配置的工作目录。")
    old = by_origin("bradymholt__dotfiles__354b2588*.jsonl", "rejection_feedback")
    assert old[0] == (
        "Should we reuse BudgetSyncType?  Maybe create a map with status for each of the types?"
    )
    assert len(old) == 2


def test_slash_commands_keep_the_typed_form(corpus: Path) -> None:
    cc = corpus / "claude-code"
    (sub,) = cc.glob("marot__spotter__subagent.jsonl")
    first = read_transcript(sub).messages[0]
    assert first.origin == "slash_command"
    assert first.text.startswith("/handgemacht:create-beads websearch to learn how to fastest")
    (sdk,) = cc.glob("SudarshanVK__dotfiles__98743092*.jsonl")
    assert read_transcript(sdk).messages[0].text == "/model unsloth/Qwen3-Coder-Next"


# --- oracle: Codex ~/.codex/history.jsonl ---------------------------------------------------


def test_codex_history_oracle(corpus: Path) -> None:
    lines = (corpus / "prompt-history" / "blubber__dotfiles__history.jsonl").read_text()
    oracle = [json.loads(line) for line in lines.splitlines()]
    sessions = {p.name: read_transcript(p) for p in (corpus / "codex").glob("*.jsonl")}
    by_sid = {r.session_id: [m.text for m in r.messages] for r in sessions.values()}
    covered = [e for e in oracle if e["session_id"] in by_sid]
    assert covered  # 019c372e is in both
    for entry in covered:
        assert entry["text"] in by_sid[entry["session_id"]]


def test_codex_long_paste_split_over_two_blocks_is_one_message(corpus: Path) -> None:
    (path,) = (corpus / "codex").glob("*019c5fa3*.jsonl")
    first = read_transcript(path).messages[0]
    rec = json.loads(path.read_bytes().splitlines()[first.line - 2])  # the response_item copy
    blocks = rec["payload"]["content"]
    assert len(blocks) == 2
    assert first.text == "".join(b["text"] for b in blocks).strip()
    assert len(first.text) > 19_000


def _aider_pair(corpus: Path, tmp_path: Path, with_input: bool) -> Path:
    """The corpus's aider files under the names aider gives them (symlinks, no copy)."""
    (chat,) = (corpus / "other").glob("*.aider.chat.history.md")
    (inputs,) = (corpus / "prompt-history").glob("*.aider.input.history")
    (tmp_path / ".aider.chat.history.md").symlink_to(chat.resolve())
    if with_input:
        (tmp_path / ".aider.input.history").symlink_to(inputs.resolve())
    return tmp_path / ".aider.chat.history.md"


@pytest.mark.parametrize("with_input", [True, False])
def test_aider_log_against_its_input_history(
    corpus: Path, tmp_path: Path, with_input: bool
) -> None:
    # Oracle: .aider.input.history lists what was typed; y/n confirmation answers are
    # answers to aider's questions (in `> ` lines), not messages.
    (inputs,) = (corpus / "prompt-history").glob("*.aider.input.history")
    typed = [
        line[1:]
        for line in inputs.read_text(encoding="utf-8").splitlines()
        if line.startswith("+") and line[1:] not in ("Y", "n")
    ]
    read = read_transcript(_aider_pair(corpus, tmp_path, with_input), KEEP_ALL)
    assert read.harness == "aider"
    got = [f"{m.command} {m.text}" if m.command else m.text for m in read.messages]
    assert [" ".join(t.split()) for t in got] == [" ".join(t.split()) for t in typed]
    # the architect plans and the echo runs are not operator voice
    assert read.stats.dropped == {"aider_echo": 11, "aider_forwarded": 6}
    if with_input:
        assert read.messages[0].timestamp.isoformat() == "2025-05-23T16:53:14.908163+00:00"
        assert not read.stats.warnings


def test_iter_transcripts_on_the_corpus(corpus: Path) -> None:
    found = list(iter_transcripts(corpus))
    logs = [p for p in found if p.parent.name == "prompt-history"]
    # the corpus renames ~/.claude/history.jsonl, so the name rule cannot skip these copies;
    # read as transcripts they yield nothing (their records have no "type")
    assert len(logs) == 3 and all(read_transcript(p).messages == [] for p in logs)
    assert {p.name for p in found if p not in logs} == set(EXPECTED)  # not the aider .md
