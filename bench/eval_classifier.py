"""Rule-classifier accuracy and confusion matrix on the human-labeled sample.

    python bench/eval_classifier.py [--sample PATH ...] [--errors] [--timing]

Prints accuracy and a markdown confusion matrix for every split of the labeled
samples (dev, holdout, blind, blind2) and for all of them together. ``--timing`` adds messages/second for the rule classifier (noisy on
a shared machine; rerun on a quiet one).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from profiles.voice.classify.evaluate import (  # noqa: E402
    evaluate,
    format_confusion,
    load_labeled,
)
from profiles.voice.classify.rules import RuleClassifier  # noqa: E402

SAMPLES = ROOT / "tests" / "profiles" / "voice" / "classify"
DEFAULT_SAMPLES = [SAMPLES / f"{n}.jsonl" for n in ("labeled", "labeled_blind", "labeled_blind2")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=Path, nargs="+", default=DEFAULT_SAMPLES)
    parser.add_argument("--errors", action="store_true", help="list misclassified messages")
    parser.add_argument("--timing", action="store_true", help="measure messages/second")
    args = parser.parse_args()

    items = [item for path in args.sample for item in load_labeled(path)]
    classifier = RuleClassifier()
    splits = ["all", *dict.fromkeys(i.split for i in items)]
    for split in splits:
        chosen = [i for i in items if split == "all" or i.split == split]
        if not chosen:
            continue
        report = evaluate(classifier.classify, chosen)
        print(f"## {split}: {report.correct}/{report.total} = {report.accuracy:.1%}")
        print(format_confusion(report))
        if args.errors:
            for item_id, truth, got, text in report.errors:
                print(f"  {item_id} {truth} -> {got}: {text}")
        print()
    if args.timing:
        pairs = [(i.id, i.text) for i in items] * 50
        start = time.perf_counter()
        classifier.classify(pairs)
        elapsed = time.perf_counter() - start
        print(f"rules: {len(pairs)} messages in {elapsed:.3f}s = {len(pairs) / elapsed:,.0f} msg/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
