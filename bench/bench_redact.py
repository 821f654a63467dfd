"""What the privacy stage (profiles.voice.privacy.screen) costs at capture.

    python bench/bench_redact.py [--corpus ../shared/corpus/real] [--repeat 5]

Reads every transcript of the real corpus once (the reference: what capture pays
anyway), then times ``screen`` over the messages read, best of ``--repeat``:
(a) as they are (almost no message holds a needle: the substring pre-check
decides), (b) every message with a key pasted in (the regex runs on each), and
(c) without the pre-check (the regex on every message), to show what it saves.
Prints one line per figure; results go to notes/benchmarks.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from profiles.voice import redact as redact_mod  # noqa: E402
from profiles.voice.privacy import PrivacyPolicy, screen  # noqa: E402
from profiles.voice.readers import read_transcript  # noqa: E402


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "real")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    files = sorted(p for p in args.corpus.rglob("*") if p.suffix in (".jsonl", ".json", ".md"))
    t0 = time.perf_counter()
    reads = []
    for path in files:
        try:
            reads.append(read_transcript(path))
        except Exception:
            continue
    read_s = time.perf_counter() - t0
    msgs = sum(len(r.messages) for r in reads)
    chars = sum(len(m.text) for r in reads for m in r.messages)
    policy = PrivacyPolicy()
    print(f"corpus: {len(reads)} transcripts, {msgs} messages, {chars / 1e6:.2f} M chars")
    print(f"read (reference): {read_s * 1000:.1f} ms")

    plain = best(lambda: [screen(r, policy) for r in reads], args.repeat)
    print(f"screen, messages as they are: {plain * 1000:.2f} ms ({plain / read_s:.1%} of read)")

    key = " token ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    salted = [
        dataclasses.replace(
            r, messages=[dataclasses.replace(m, text=m.text + key) for m in r.messages]
        )
        for r in reads
    ]
    worst = best(lambda: [screen(r, policy) for r in salted], args.repeat)
    print(f"screen, a key in every message: {worst * 1000:.2f} ms ({worst / read_s:.1%} of read)")

    needles, rules = redact_mod.NEEDLES, redact_mod._RULES
    # every message "matches" every kind: each regex runs on each message
    redact_mod.NEEDLES = ("",)
    redact_mod._RULES = tuple((("",), ("",), rule) for _, _, rule in rules)
    try:
        nocheck = best(lambda: [screen(r, policy) for r in reads], args.repeat)
    finally:
        redact_mod.NEEDLES, redact_mod._RULES = needles, rules
    print(f"screen without the pre-check: {nocheck * 1000:.2f} ms ({nocheck / read_s:.1%} of read)")


if __name__ == "__main__":
    main()
