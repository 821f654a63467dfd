"""Whole-process time of `memgraph hook session-end` on a ~10 MB transcript.

By default (issue 22) the transcript is REAL-SHAPED: the Claude Code files of
``../shared/corpus/real`` concatenated to ``--mb`` with every record moved into one
new session (fresh ``sessionId`` and record uuids per copy), so the mix of tool
output, assistant turns, progress records and prompts is the corpus's own. Built
at bench time in a temporary directory, never committed. ``--synthetic`` uses the
lighter generated transcript of issue 3 instead. Runs the hook as Claude Code
would (JSON on stdin, a fresh process each time) against a store that already
exists; the reference, timed in the same run, is ``orjson.loads`` of every line
of the same file (``json.loads`` when orjson is not installed).
Budget: <= 300 ms whole process.

    python bench/bench_hook.py [--runs 7] [--mb 10.4] [--synthetic [--prompts 100]]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_WORD_TEXT = """
hook page session store index vault render parse commit branch test deploy config cache query
schema migrate token budget window voice message project review refactor latency error retry
timeout queue worker agent prompt context summary graph node edge
"""
WORDS = tuple(_WORD_TEXT.split())


def _stamp(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def generate(path: Path, target_mb: float, prompts: int, seed: int) -> int:
    """Write a transcript of about ``target_mb`` MB; returns its size in bytes."""
    rng = random.Random(seed)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    env = {
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/u/work/atlas",
        "sessionId": sid,
        "version": "2.1.97",
        "gitBranch": "main",
        "entrypoint": "cli",
    }
    t = datetime(2026, 4, 14, 9, 0, tzinfo=UTC)
    target = int(target_mb * 1e6)
    per_prompt = target // prompts
    written = 0
    parent = None
    with path.open("w", encoding="utf-8") as fh:

        def put(rec: dict[str, object]) -> None:
            nonlocal written, parent
            line = json.dumps(rec, ensure_ascii=False) + "\n"
            fh.write(line)
            written += len(line.encode("utf-8"))
            parent = rec.get("uuid", parent)

        for i in range(prompts):
            t += timedelta(seconds=rng.randint(30, 600))
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
            put(
                {
                    **env,
                    "type": "user",
                    "uuid": str(uuid.UUID(int=rng.getrandbits(128))),
                    "parentUuid": parent,
                    "timestamp": _stamp(t),
                    "promptId": f"p{i}",
                    "message": {"role": "user", "content": f"please {text}"},
                }
            )
            start = written
            n = 0
            while written - start < per_prompt:
                n += 1
                t += timedelta(seconds=rng.randint(1, 20))
                call = f"toolu_{rng.getrandbits(64):016x}"
                put(
                    {
                        **env,
                        "type": "assistant",
                        "uuid": str(uuid.uuid4()),
                        "parentUuid": parent,
                        "timestamp": _stamp(t),
                        "requestId": "req_x",
                        "message": {
                            "id": "msg_x",
                            "role": "assistant",
                            "model": "claude-opus-4-6",
                            "content": [
                                {
                                    "type": "tool_use",
                                    "id": call,
                                    "name": "Bash",
                                    "input": {"command": "rg -n hook src/"},
                                }
                            ],
                            "stop_reason": "tool_use",
                            "usage": {"input_tokens": 10},
                        },
                    }
                )
                output = "\n".join(
                    f"src/{rng.choice(WORDS)}.py:{k}: " + " ".join(rng.choices(WORDS, k=12))
                    for k in range(rng.randint(20, 120))
                )
                put(
                    {
                        **env,
                        "type": "user",
                        "uuid": str(uuid.uuid4()),
                        "parentUuid": parent,
                        "timestamp": _stamp(t),
                        "promptId": f"p{i}",
                        "sourceToolAssistantUUID": parent,
                        "message": {
                            "role": "user",
                            "content": [
                                {"type": "tool_result", "tool_use_id": call, "content": output}
                            ],
                        },
                        "toolUseResult": {"stdout": output, "stderr": "", "interrupted": False},
                    }
                )
                if n % 3 == 0:
                    put(
                        {
                            **env,
                            "type": "assistant",
                            "uuid": str(uuid.uuid4()),
                            "parentUuid": parent,
                            "timestamp": _stamp(t),
                            "message": {
                                "role": "assistant",
                                "content": [
                                    {"type": "text", "text": " ".join(rng.choices(WORDS, k=80))}
                                ],
                            },
                        }
                    )
    return written


CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "real"


def build_real(corpus: Path, path: Path, target_mb: float, seed: int) -> int:
    """A real-shaped transcript of one new session: corpus Claude Code lines, whole,
    repeated until ``target_mb``, each copy with fresh record uuids; returns bytes."""
    sources = sorted((corpus / "claude-code").glob("*.jsonl"))
    if not sources:
        raise SystemExit(f"no Claude Code transcripts under {corpus}")
    rng = random.Random(seed)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    target = int(target_mb * 1e6)
    written = 0
    copy = 0
    with path.open("w", encoding="utf-8") as fh:
        while written < target:
            for src in sources:
                remap: dict[str, str] = {}
                for raw in src.read_text(encoding="utf-8", errors="replace").splitlines():
                    try:
                        rec = json.loads(raw)
                    except ValueError:
                        continue
                    if not isinstance(rec, dict):
                        continue
                    if "sessionId" in rec:
                        rec["sessionId"] = sid
                    for key in ("uuid", "parentUuid"):
                        old = rec.get(key)
                        if isinstance(old, str):
                            new = remap.setdefault(
                                old, str(uuid.uuid5(uuid.NAMESPACE_OID, f"{copy}{old}"))
                            )
                            rec[key] = new
                    line = json.dumps(rec, ensure_ascii=False) + "\n"
                    fh.write(line)
                    written += len(line.encode("utf-8"))
                    if written >= target:
                        break
                copy += 1
                if written >= target:
                    break
    return written


def reference_parse(path: Path) -> float:
    """Seconds to decode every line of ``path`` (orjson, else json): the reference."""
    try:
        import orjson

        loads = orjson.loads
    except ImportError:  # pragma: no cover - bench only
        loads = json.loads
    started = time.perf_counter()
    with path.open("rb") as fh:
        for line in fh:
            if line.strip():
                loads(line)
    return time.perf_counter() - started


def run_hook(transcript: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, child cpu seconds) of one hook process."""
    payload = json.dumps(
        {
            "session_id": transcript.stem,
            "transcript_path": str(transcript),
            "cwd": "/home/u/work/atlas",
            "hook_event_name": "SessionEnd",
            "reason": "prompt_input_exit",
        }
    )
    exe = Path(sys.executable).with_name("memgraph")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "memgraph.cli"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        [*cmd, "hook", "session-end"],
        input=payload.encode(),
        env=env,
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"hook failed: {proc.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


PHASES = """
import sys, time
from pathlib import Path
T = time.process_time
marks = [("start", T())]
import profiles.voice.hooks, memgraph.store, profiles.voice.capture, profiles.voice.backfill
marks.append(("imports", T()))
from memgraph.store import open_store
store = open_store(Path(sys.argv[2]))
marks.append(("open store", T()))
from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.readers import ReadOptions, read_transcript
from profiles.voice.capture import CaptureRequest, capture_messages
from profiles.voice.backfill import record_capture
path, vault = Path(sys.argv[1]), Path(sys.argv[3])
read = read_transcript(path, ReadOptions(prefilter=PrefilterOptions(drop_trivial=False)))
marks.append(("read", T()))
result = capture_messages(store, read.messages, CaptureRequest(transcript=path, vault=vault))
marks.append(("capture+page", T()))
record_capture(store, path, result, vault)
marks.append(("registry", T()))
store.close()
marks.append(("close", T()))
print("  ".join(f"{b[0]} {1000 * (b[1] - a[1]):.0f}" for a, b in zip(marks, marks[1:])))
"""


LEAN_PHASES = """
import sys, time
from pathlib import Path
T = time.process_time
marks = [("start", T())]
import profiles.voice.hooks, profiles.voice.leanhook, profiles.voice.lean, profiles.voice.leanpage
import memgraph.store.sqlite_ext.capture
marks.append(("imports", T()))
from memgraph.store.sqlite_ext.capture import open_light, SQLiteCaptureAppend
light = open_light(Path(sys.argv[2]))
marks.append(("open store", T()))
from profiles.voice import lean, leanhook
from profiles.voice.capture_types import CaptureRequest
from profiles.voice.prefilter import PrefilterOptions
from profiles.voice.privacy import PrivacyPolicy, screen
from profiles.voice.readers import ReadOptions, read_transcript
path, vault = Path(sys.argv[1]), Path(sys.argv[3])
read = read_transcript(path, ReadOptions(prefilter=PrefilterOptions(drop_trivial=False)))
read = screen(read, PrivacyPolicy())
marks.append(("read", T()))
request = CaptureRequest(transcript=path, vault=vault)
built = lean.build([(read.messages, request, read.path)], leanhook._now())
assert SQLiteCaptureAppend(light).append_capture(built.write, built.sessions)
result = built.results[0]
result.harness, result.stats = read.harness, read.stats
from memgraph.store.sqlite_ext.terms import SQLiteTermStats
from profiles.voice.leanpage import write_lean_page
for plan in result.sessions:
    if plan.skipped is None:
        docs = built.docs[plan.session_id]
        plan.page, plan.page_written = write_lean_page(SQLiteTermStats(light), vault, docs, 3)
marks.append(("capture+page", T()))
hook = profiles.voice.hooks.HookInput(path, None, None)
leanhook.finish(light, hook, result, vault, None)
marks.append(("registry", T()))
light.close()
marks.append(("close", T()))
print("  ".join(f"{b[0]} {1000 * (b[1] - a[1]):.0f}" for a, b in zip(marks, marks[1:])))
"""


def phases(transcript: Path, root: Path) -> None:
    """Cpu ms per phase of one capture, in a fresh interpreter (imports included):
    the lean path a new session takes (profiles.voice.leanhook), and the store-class
    path (the previous hook; re-runs and grown sessions take it with the engine)."""
    store = root / "home" / "memgraph.db"
    for label, code in (("lean path", LEAN_PHASES), ("store-class path", PHASES)):
        out = subprocess.run(
            [sys.executable, "-c", code, str(transcript), str(store), str(root / "vault")],
            capture_output=True,
            text=True,
            check=True,
        )
        print(f"phases, {label} (cpu ms): {out.stdout.strip()}")
        transcript = transcript.with_name("phases-store.jsonl")
        if label == "lean path":
            _PHASE_MAKE(transcript)


_PHASE_MAKE: Any = None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--mb", type=float, default=10.4)
    ap.add_argument("--prompts", type=int, default=100)
    ap.add_argument("--synthetic", action="store_true", help="the lighter generated transcript")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()

    def make(path: Path, seed: int) -> int:
        if args.synthetic:
            return generate(path, args.mb, args.prompts, seed=seed)
        return build_real(args.corpus, path, args.mb, seed=seed)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = {
            **os.environ,
            "MEMGRAPH_HOME": str(root / "home"),
            "MEMGRAPH_VAULT": str(root / "vault"),
            "MEMGRAPH_CONFIG": str(root / "none.toml"),
        }
        files = []
        for i in range(args.runs + 1):
            path = root / "t" / f"{uuid.UUID(int=i + 1, version=4)}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            size = make(path, seed=i)
            files.append(path)
        run_hook(files[0], env)  # creates and migrates the store: not what a hook pays
        new, refs = [], []
        for f in files[1:]:  # hook and reference alternate: same load for both
            new.append(run_hook(f, env))
            refs.append(reference_parse(f))
        again = [run_hook(f, env) for f in files[1:]]
        load = os.getloadavg()
        kind = "synthetic" if args.synthetic else f"real-shaped from {args.corpus}"
        print(
            f"transcript {size / 1e6:.1f} MB ({kind}); "
            f"load avg {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cpus"
        )
        extra = root / "t" / "phases.jsonl"
        make(extra, seed=999)
        global _PHASE_MAKE
        _PHASE_MAKE = lambda p: make(p, seed=998)  # noqa: E731 - a new session per phase run
        phases(extra, root)
        print(
            f"reference, per-line parse of the same file in-process: median "
            f"{statistics.median(refs) * 1000:.0f} ms ({', '.join(f'{x * 1000:.0f}' for x in refs)})"
        )
        for label, runs in (("new session", new), ("re-run     ", again)):
            wall = [w for w, _ in runs]
            cpu = [c for _, c in runs]
            print(
                f"hook session-end, {label}: median {statistics.median(wall) * 1000:.0f} ms wall "
                f"({', '.join(f'{x * 1000:.0f}' for x in wall)}), "
                f"median {statistics.median(cpu) * 1000:.0f} ms cpu"
            )


if __name__ == "__main__":
    main()
