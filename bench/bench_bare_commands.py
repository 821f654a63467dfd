"""What leaving bare slash commands out of voice search costs (issue 20).

    python bench/bench_bare_commands.py [--messages 20000]

Builds a store of generated messages (1 in 20 a bare command such as ``/model``)
and times the SQLite voice index with ``bare_commands`` True (the reference, no
filter) and False (the default of ``memgraph voice``), in the same run: CPU ms,
median of 15. Prints the machine load so noisy figures can be recognised.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "profiles" / "voice"))


def main() -> None:
    from _search_helpers import Msg, add, ts

    from memgraph.store import open_store
    from memgraph.store.interfaces import indexes
    from memgraph.store.voice_rows import VoiceSearch

    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=20_000)
    args = parser.parse_args()
    rng = random.Random(1)
    words = [
        "fact",
        "table",
        "cache",
        "retry",
        "backoff",
        "jitter",
        "model",
        "deploy",
        "login",
        "auth",
        "schema",
        "index",
    ]
    commands = ["/model", "/exit", "/clear", "/compact"]
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "m.db")
        msgs = [
            Msg(
                rng.choice(commands) if i % 20 == 0 else " ".join(rng.choices(words, k=12)),
                ts("2026-04-14"),
                uuid=f"u{i}",
                session_id=f"s{i // 50}",
            )
            for i in range(args.messages)
        ]
        for k in range(0, len(msgs), 2000):
            add(store, *msgs[k : k + 2000])
        voice = indexes(store).voice
        print(f"load {os.getloadavg()[0]:.1f}; {args.messages} messages")
        for query in ("fact", "model", ""):
            for bare in (True, False):
                request = VoiceSearch(query=query, bare_commands=bare, limit=20 if query else 500)
                cpu = []
                for _ in range(15):
                    t0 = time.process_time()
                    hits = len(voice.search(request))
                    cpu.append((time.process_time() - t0) * 1000)
                print(
                    f"query={query!r:8} bare_commands={bare!s:5} hits={hits:4} "
                    f"cpu p50={statistics.median(cpu):.2f} ms"
                )
        store.close()


if __name__ == "__main__":
    main()
