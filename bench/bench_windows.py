"""Benchmark + accuracy harness for activity windows (issue 6).

    python bench/bench_windows.py            # 30 days x 20 sessions/day x 200 commits/day
    python bench/bench_windows.py --days 5   # quicker

Prints: setup size; pure grouping time; artifact load time (SQLite); the full
pass (load + group + store through the engine); an idempotent rerun; a late
artifact's incremental recompute; then grouping recall/precision on generated
real-git scenarios, next to the gap-only baseline.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "profiles" / "activity"))

from scenario import Msg, generate, message_node, score, store_messages  # noqa: E402

from memgraph.documents import UpsertNode  # noqa: E402
from memgraph.engine import apply_patch, new_patch  # noqa: E402
from memgraph.store import open_store  # noqa: E402
from profiles.activity.passes import (  # noqa: E402  # noqa: E402
    END_OF_TIME,
    EPOCH,
    WindowsRequest,
    recompute,
    recompute_around,
    run_windows,
)
from profiles.activity.source import load_items  # noqa: E402
from profiles.activity.windows import coarse_windows, group_windows, name_windows  # noqa: E402
from profiles.artifact.git import Commit  # noqa: E402
from profiles.artifact.ingest import commit_node  # noqa: E402

GAP = timedelta(minutes=15)
START = datetime(2026, 2, 1, tzinfo=UTC)


def synth(days: int, sessions: int, commits: int, msgs: int, seed: int = 1):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    repos = [f"repo{i}" for i in range(8)]
    messages: list[Msg] = []
    out: list[Commit] = []
    per_session = commits // sessions
    for d in range(days):
        for s in range(sessions):
            repo = repos[s % len(repos)]
            sid = f"{d:03d}{s:03d}-{rng.randrange(16**8):08x}"
            t = START + timedelta(days=d, hours=8, minutes=rng.randint(0, 600))
            for k in range(msgs):
                messages.append(
                    Msg(
                        sid,
                        f"u{k}",
                        t,
                        f"please fix src/{repo}/m{k}.py",
                        repo,
                        f"/nowhere/{repo}",
                        repo,
                    )
                )
                t += timedelta(minutes=rng.randint(1, 6))
                if k % max(1, msgs // per_session) == 0 and len(out) < (d + 1) * commits:
                    t += timedelta(minutes=rng.randint(1, 5))
                    sha = f"{rng.randrange(16**40):040x}"
                    out.append(
                        Commit(
                            repo,
                            f"/nowhere/{repo}",
                            sha,
                            (),
                            "Op",
                            "op@x",
                            t,
                            "Op",
                            "op@x",
                            t,
                            "main",
                            f"fix m{k}",
                            "",
                            (f"src/{repo}/m{k}.py",),
                            1,
                        )
                    )
    return messages, out


def timed(label: str, fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    value = fn()
    dt = time.perf_counter() - t0
    print(f"{label:<44} {dt:8.3f} s")
    return value, dt


def bench(days: int, sessions: int, commits: int, msgs: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-windows-"))
    store = open_store(tmp / "s.db")
    messages, cs = synth(days, sessions, commits, msgs)
    t0 = time.perf_counter()
    nodes = [message_node(m) for m in messages] + [commit_node(c) for c in cs]
    for i in range(0, len(nodes), 5000):
        ops = [UpsertNode(node=n) for n in nodes[i : i + 5000]]
        apply_patch(store, new_patch(list(ops), proposer="bench"))
    print(
        f"setup: {days} days, {len(messages)} messages, {len(cs)} commits "
        f"({time.perf_counter() - t0:.1f} s to store, not timed below)"
    )
    print(f"load: {os.getloadavg()[0]:.2f} (1-min load average, {os.cpu_count()} cpus)")
    items, _ = timed("load artifacts from SQLite", lambda: load_items(store, EPOCH, END_OF_TIME))
    windows, _ = timed("pure grouping (gap + entity split)", lambda: group_windows(items, GAP))
    print(f"  -> {len(windows)} windows")
    done, _ = timed(
        "full pass: load + group + store (first run)", lambda: recompute(store, gap=GAP)
    )
    print(f"  -> {done.stats.created} written in {done.stats.patches} patches")
    again, _ = timed("full pass again (idempotent, no writes)", lambda: recompute(store, gap=GAP))
    assert again.stats.created == 0 and again.stats.superseded == 0
    late = Msg(
        "late-session",
        "u0",
        messages[len(messages) // 2].time + timedelta(seconds=30),
        "late note about src/repo0/m1.py",
        "repo0",
        "/nowhere/repo0",
        "repo0",
    )
    store_messages(store, [late], with_sessions=False)
    stats, _ = timed(
        "late artifact: recompute its window only",
        lambda: recompute_around(store, [late.time], GAP),
    )
    print(f"  -> {stats.created} written, {stats.superseded} superseded")
    store.close()


def accuracy(seeds: int) -> None:
    print("\naccuracy on generated real-git scenarios (4 repos, overlapping sessions, bot commits)")
    print(
        f"{'seed':>4} {'commits':>7} {'recall':>7} {'precis':>7} {'commit-ok':>9} {'bots':>5} {'mixed':>5} | gap-only: {'recall':>6} {'precis':>7} {'commit-ok':>9}"
    )
    for seed in range(1, seeds + 1):
        tmp = Path(tempfile.mkdtemp(prefix="bench-acc-"))
        sc = generate(tmp / "w", seed=seed, days=2, sessions_per_day=12)
        store = open_store(tmp / "s.db")
        store_messages(store, sc.messages)
        result = run_windows(store, WindowsRequest())
        s = score(sc, result.windows)
        items = load_items(store, EPOCH, END_OF_TIME)
        base = score(sc, [w for c in coarse_windows(items, GAP) for w in name_windows([c])])
        print(
            f"{seed:>4} {len(sc.commits):>7} {s.recall:7.3f} {s.precision:7.3f} {s.commit_accuracy:9.3f} "
            f"{s.bots_alone:5.2f} {s.mixed_repo_windows:>5} | {base.recall:15.3f} {base.precision:7.3f} {base.commit_accuracy:9.3f}"
        )
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--commits", type=int, default=200)
    ap.add_argument("--messages", type=int, default=20, help="messages per session")
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    bench(args.days, args.sessions, args.commits, args.messages)
    accuracy(args.seeds)


if __name__ == "__main__":
    main()
