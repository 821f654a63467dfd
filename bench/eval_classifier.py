"""Rule-classifier accuracy and confusion matrix on the human-labeled sample.

    python bench/eval_classifier.py [--sample PATH ...] [--errors] [--timing] [--night N]

Prints accuracy and a markdown confusion matrix for every split of the labeled
samples (dev, holdout, blind, blind2) and for all of them together. ``--timing`` adds messages/second for the rule classifier (noisy on
a shared machine; rerun on a quiet one). ``--night N`` times one rules night pass over N synthetic message
nodes (the sample texts, repeated) in a fresh SQLite store, and a re-run.
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
    parser.add_argument("--night", type=int, default=0, help="time a night pass over N messages")
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
    if args.night:
        night_pass_timing(args.night, [i.text for i in items])
    return 0


def night_pass_timing(count: int, texts: list[str]) -> None:
    import tempfile
    from datetime import UTC, datetime, timedelta

    from memgraph.documents import AnchorKind, MemoryAnchor, MemoryNode, UpsertNode
    from memgraph.engine import apply_patch, new_patch
    from memgraph.ids import anchor_id, node_id
    from memgraph.store import open_store
    from profiles.voice.classify.night import NightPassRequest, run_night_pass

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    nodes = []
    for n in range(count):
        sid, uuid, when = f"s{n // 50}", f"u{n}", t0 + timedelta(minutes=n)
        ref = f"/t/{sid}.jsonl"
        nodes.append(
            MemoryNode(
                id=node_id("voice", "message", sid, uuid),
                domain_id="voice:bench",
                profile="voice",
                kind="message",
                title=texts[n % len(texts)][:80],
                claim=texts[n % len(texts)],
                lifecycle="captured",
                created_at=when,
                updated_at=when,
                valid_from=when,
                anchors=[
                    MemoryAnchor(
                        id=anchor_id("transcript", ref, uuid),
                        kind=AnchorKind.transcript,
                        ref=ref,
                        line=n + 1,
                        record_uuid=uuid,
                    )
                ],
                attributes={"session_id": sid, "record_uuid": uuid, "classification": None},
            )
        )
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"{tmp}/bench.db")
        apply_patch(store, new_patch([UpsertNode(node=n) for n in nodes]))
        request = NightPassRequest(ignore_window=True)
        for label in ("first pass", "re-run"):
            start = time.perf_counter()
            result = run_night_pass(store, request, RuleClassifier())
            elapsed = time.perf_counter() - start
            print(
                f"night pass ({label}): {result.selected} selected, {result.classified} "
                f"classified in {elapsed:.2f}s"
            )
        store.close()


if __name__ == "__main__":
    raise SystemExit(main())
