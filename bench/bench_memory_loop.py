"""Benchmarks for the agent memory loop (issue 18).

    python bench/bench_memory_loop.py hook  [--nodes 100000] [--runs 11]
    python bench/bench_memory_loop.py sleep [--messages 2000] [--short-term 200] [--runs 3]

``hook``: ``memgraph hook session-start`` as a whole process (the console
script, stdin payload, CLAUDE_ENV_FILE set) on a store of ``--nodes`` nodes
(voice messages over 40 projects, classified, plus agent memory and notes),
built once through the engine and reused (/tmp/memgraph-bench-wake-<n>.db).
Reference measured in the same run: ``python -c pass`` and the hook with no
store at all. Target: <= 300 ms.

``sleep``: ``run_sleep`` in process over a day of ``--messages`` unclassified
messages (12 sessions, 4 projects) and ``--short-term`` short_term nodes, on a
fresh store per run; then the same through ``memgraph sleep --now`` as a whole
process. Reference: the rule classifier alone over the same messages.
Target: <= 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, UpsertNode
from memgraph.engine import apply_patch, new_patch
from memgraph.ids import anchor_id, node_id
from memgraph.store import Store, open_store

T0 = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
LABELS = ["decision", "directive", "correction", "preference", "question", "command", None]
WORDS = [
    "cache",
    "etag",
    "store",
    "index",
    "window",
    "summary",
    "hook",
    "packet",
    "budget",
    "token",
    "session",
    "note",
    "graph",
    "edge",
    "node",
    "receipt",
    "review",
    "sleep",
    "cluster",
    "short",
    "term",
    "incubation",
    "pressure",
    "repo",
    "scanner",
    "timestep",
    "renderer",
    "plume",
    "vent",
    "fixture",
    "parser",
    "regex",
    "import",
    "migration",
    "schema",
    "lock",
]
SCRIPT = Path(sys.executable).with_name("memgraph")


def _text(rng: random.Random, i: int) -> str:
    return f"msg {i}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18)))


def message(
    i: int, sid: str, project: str, when: datetime, text: str, label: str | None
) -> MemoryNode:
    uuid = f"u-{i}"
    ref = f"/bench/{sid}.jsonl"
    return MemoryNode(
        id=node_id("voice", "message", sid, uuid),
        domain_id=f"voice:{project}",
        profile="voice",
        kind="message",
        title=text[:80],
        claim=text,
        lifecycle="classified" if label else "captured",
        created_at=when,
        updated_at=when,
        valid_from=when,
        anchors=[
            MemoryAnchor(
                id=anchor_id("transcript", ref, str(i), uuid),
                kind=AnchorKind.transcript,
                ref=ref,
                line=i,
                record_uuid=uuid,
            )
        ],
        attributes={
            "session_id": sid,
            "record_uuid": uuid,
            "project": project,
            "constellation": project,
            "branch": "main",
            "cwd": f"/nonexistent/{project}",
            "harness": "claude-code",
            "origin": "prompt",
            "classification": label,
            "confidence": 0.8 if label else None,
            "topics": [],
            "voice_page": None,
        },
    )


def _apply_batches(store: Store, nodes: list[MemoryNode], size: int = 20000) -> None:
    for i in range(0, len(nodes), size):
        apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes[i : i + size]]))


def build_wake_store(path: Path, n: int) -> None:
    from profiles.memory import MemoryRequest, propose, remember
    from profiles.review import review
    from profiles.session.api import NoteRequest, note

    rng = random.Random(18)
    store = open_store(path)
    try:
        agent = min(5000, n // 20)
        msgs = []
        for i in range(n - agent):
            project = f"proj{i % 40}"
            sid = f"sess-{i % 400}"
            when = T0 - timedelta(minutes=i)
            msgs.append(message(i, sid, project, when, _text(rng, i), rng.choice(LABELS)))
        _apply_batches(store, msgs)
        for i in range(agent):
            project = f"proj{i % 40}"
            req = MemoryRequest(text=_text(rng, i), session_id=f"sess-{i % 400}", project=project)
            if i % 5 == 0:
                remember(store, req)
            else:
                profile = ["role_self", "incubation", "agency_pressure", "candidate_intervention"][
                    i % 4
                ]
                r = propose(store, MemoryRequest(**{**req.__dict__, "profile": profile}))
                if profile == "role_self" and i % 3 == 0:
                    review(store, r.id, True)
        for i in range(20):
            note(
                store,
                NoteRequest(
                    session_id=f"sess-{i}",
                    text=f"note {i}: " + _text(rng, i),
                    workspace=Path(f"/nonexistent/proj{i % 40}"),
                ),
            )
        print(f"built {path}: {store.counts()}", file=sys.stderr)
    finally:
        store.close()


def _time(argv: list[str], env: dict[str, str], stdin: str = "") -> float:
    t = time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr}")
    return elapsed


def _stats(label: str, values: list[float]) -> None:
    ms = sorted(v * 1000 for v in values)
    p90 = ms[min(len(ms) - 1, int(len(ms) * 0.9))]
    print(f"{label:48s} median {statistics.median(ms):7.1f} ms  p90 {p90:7.1f} ms  n={len(ms)}")


def bench_hook(args: argparse.Namespace) -> None:
    db = Path(args.db or f"/tmp/memgraph-bench-wake-{args.nodes}.db")
    if not db.exists():
        build_wake_store(db, args.nodes)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / "home"
        (home / ".config").mkdir(parents=True)
        cwd = root / "proj7"
        cwd.mkdir()
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "MEMGRAPH_HOME": str(root / "mg"),
            "CLAUDE_ENV_FILE": str(root / "env"),
        }
        payload = json.dumps(
            {"session_id": "bench-1", "transcript_path": "/x", "cwd": str(cwd), "source": "startup"}
        )
        hook = [str(SCRIPT), "hook", "session-start", "--store", str(db)]
        empty = [str(SCRIPT), "hook", "session-start", "--store", str(root / "none.db")]
        bare = [sys.executable, "-c", "pass"]
        results: dict[str, list[float]] = {"python -c pass": [], "hook, no store": [], "hook": []}
        _time(hook, env, payload)  # warm the page cache
        for _ in range(args.runs):  # interleaved, so load changes hit every arm alike
            results["python -c pass"].append(_time(bare, env))
            results["hook, no store"].append(_time(empty, env, payload))
            results["hook"].append(_time(hook, env, payload))
        out = subprocess.run(hook, input=payload, env=env, capture_output=True, text=True)
        context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    print(f"store: {db} ({args.nodes} nodes); load {os.getloadavg()[0]:.2f}")
    for label, values in results.items():
        _stats(f"{label}", values)
    print(f"packet: {len(context)} chars, {context.count(chr(10))} lines")


def build_day(path: Path, n_msgs: int, n_short: int) -> list[MemoryNode]:
    from profiles.memory import MemoryRequest, remember

    rng = random.Random(4)
    store = open_store(path)
    try:
        msgs = [
            message(
                i,
                f"day-{i % 12}",
                f"proj{i % 4}",
                T0 + timedelta(seconds=40 * i),
                _text(rng, i),
                None,
            )
            for i in range(n_msgs)
        ]
        _apply_batches(store, msgs)
        for i in range(n_short):
            q = "is it the cache?" if i % 10 == 0 else ""
            remember(
                store,
                MemoryRequest(
                    text=_text(rng, 10_000 + i),
                    session_id=f"day-{i % 12}",
                    project=f"proj{i % 4}",
                    question=q,
                ),
                T0 + timedelta(hours=1),
            )
        return msgs
    finally:
        store.close()


def bench_sleep(args: argparse.Namespace) -> None:
    from profiles.sleep.pipeline import SleepRequest, run_sleep
    from profiles.voice.classify.rules import RuleClassifier

    now = T0 + timedelta(days=1)
    walls: list[float] = []
    cpus: list[float] = []
    cli: list[float] = []
    ref: list[float] = []
    summary = ""
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "memgraph.db"
            msgs = build_day(db, args.messages, args.short_term)
            t = time.perf_counter()
            RuleClassifier().propose([(m.id, m.claim) for m in msgs])
            ref.append(time.perf_counter() - t)
            store = open_store(db)
            try:
                req = SleepRequest(now=now, ignore_window=True, discover_repos=False)
                t, c = time.perf_counter(), time.process_time()
                report = run_sleep(store, req)
                walls.append(time.perf_counter() - t)
                cpus.append(time.process_time() - c)
                summary = " | ".join(s.line() for s in report.stages)
                t = time.perf_counter()
                again = run_sleep(
                    store, SleepRequest(now=now, ignore_window=True, discover_repos=False)
                )
                rerun = time.perf_counter() - t
                assert again.receipts == 0, again.lines()
            finally:
                store.close()
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            build_day(home / "memgraph.db", args.messages, args.short_term)
            env = {**os.environ, "MEMGRAPH_HOME": str(home), "HOME": str(home)}
            cli.append(_time([str(SCRIPT), "sleep", "--now", "--at", now.isoformat()], env))
        print(f"run {run + 1}: in-process {walls[-1]:.2f} s (rerun {rerun:.2f} s), "
              f"CLI {cli[-1]:.2f} s", file=sys.stderr)  # fmt: skip
    print(f"{args.messages} messages + {args.short_term} short_term; load {os.getloadavg()[0]:.2f}")
    _stats("rule classifier alone (reference)", ref)
    _stats("run_sleep in process (wall)", walls)
    _stats("run_sleep in process (CPU time)", cpus)
    _stats("memgraph sleep --now, whole process", cli)
    print(f"stages: {summary}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="what", required=True)
    h = sub.add_parser("hook")
    h.add_argument("--nodes", type=int, default=100_000)
    h.add_argument("--runs", type=int, default=11)
    h.add_argument("--db")
    s = sub.add_parser("sleep")
    s.add_argument("--messages", type=int, default=2000)
    s.add_argument("--short-term", type=int, default=200)
    s.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    bench_hook(args) if args.what == "hook" else bench_sleep(args)


if __name__ == "__main__":
    main()
