"""Capture on the hold-out corpus: per-file counts of emitted messages by origin.

    python bench/eval_holdout.py [--holdout DIR] [--show] [--json]

EVALUATION ONLY. ``../shared/corpus/holdout`` holds real transcripts the readers
were never tuned on (Claude Code, Codex, Gemini CLI). No rule, fixture or test may
be derived from it; only this script reads it. There are no labels: judge the
output by reading it (``--show`` prints every emitted message, one line each,
with its origin and command metadata), and write figures and doubts to
notes/capture-holdout.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from profiles.voice.readers import ReadOptions, read_transcript  # noqa: E402
from profiles.voice.readers.registry import claims  # noqa: E402

DEFAULT = ROOT.parent / "shared" / "corpus" / "holdout"


def files(root: Path) -> list[Path]:
    # the hold-out keeps the original file names behind an "owner__repo__" prefix and
    # one folder per harness, so the registry's name rules see the original name
    out = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.suffix not in (".jsonl", ".json", ".md"):
            continue
        original = path.with_name(path.name.rsplit("__", 1)[-1])
        if claims(original) or claims(Path("chats") / original.name):
            out.append(path)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--holdout", type=Path, default=DEFAULT)
    ap.add_argument("--show", action="store_true", help="print every emitted message")
    ap.add_argument("--json", action="store_true", help="one JSON object per file")
    args = ap.parse_args()
    if not args.holdout.is_dir():
        print(f"no hold-out corpus at {args.holdout}", file=sys.stderr)
        return 1
    total: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    n_files = 0
    for path in files(args.holdout):
        read = read_transcript(path, ReadOptions())
        n_files += 1
        origins = Counter(m.origin for m in read.messages)
        total.update(origins)
        dropped.update(read.stats.dropped)
        unknown.update(read.stats.unknown_kinds)
        rel = path.relative_to(args.holdout).as_posix()
        if args.json:
            print(
                json.dumps(
                    {
                        "file": rel,
                        "harness": read.harness,
                        "emitted": len(read.messages),
                        "origins": dict(origins),
                        "dropped": read.stats.dropped,
                        "unknown_kinds": read.stats.unknown_kinds,
                        "bad_lines": read.stats.bad_lines,
                    },
                    ensure_ascii=False,
                )
            )
        else:
            by_origin = " ".join(f"{k}={v}" for k, v in sorted(origins.items())) or "-"
            print(f"{len(read.messages):4d}  {read.harness:11s}  {rel}  [{by_origin}]")
        if args.show:
            for m in read.messages:
                flat = " ".join(m.text.split())
                cut = flat if len(flat) <= 150 else flat[:149] + "…"
                meta = f" ({m.command})" if m.command else ""
                print(f"        {m.line:5d} {m.origin}{meta}: {cut}")
    if not args.json:
        print(f"\n{n_files} files, {sum(total.values())} messages emitted")
        print("by origin: " + ", ".join(f"{k} {v}" for k, v in total.most_common()))
        print("dropped:   " + ", ".join(f"{k} {v}" for k, v in dropped.most_common()))
        print("unknown:   " + (", ".join(f"{k} {v}" for k, v in unknown.most_common()) or "-"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
