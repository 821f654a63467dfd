"""Sweep turn-ranking weights on LoCoMo's TUNING conversations (26, 30) only.

    python bench/sweep_locomo.py [--no-vectors] [--set dense=0.7,prev=0.5 ...]
        [--grid dense=0.5,0.7,1.0] [--misses]

Builds the store once (the two tuning conversations, through the import path;
vectors from the numpy MiniLM with the eval's on-disk cache), then scores
``rank_turns`` recall@5/@10 per category for each weight setting. Only the tuning pair's
questions are ever asked (``--full`` stores the other eight and the corpus as
distractors, as the eval's store holds them); the held-back eight are measured
by ``bench/eval_locomo.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import importlib.util
import itertools
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from context_cut import turns
from context_cut.api import select_context_cut
from context_cut.turn_weights import TurnWeights
from context_cut.turns import WEIGHTS, TurnScope, rank_turns
from memgraph.documents import MemoryContextQuery

_spec = importlib.util.spec_from_file_location(
    "eval_locomo", Path(__file__).resolve().parent / "eval_locomo.py"
)
assert _spec is not None and _spec.loader is not None
ev: Any = importlib.util.module_from_spec(_spec)
sys.modules["eval_locomo"] = ev
_spec.loader.exec_module(ev)


class MemoEmbedder:
    """Query vectors computed once per text (a sweep asks the same questions)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seen: dict[str, list[float]] = {}

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def dimension(self) -> int:
        return int(self.inner.dimension)

    def __getattr__(self, name: str) -> Any:  # embed_tokens, pieces: the model's own
        return getattr(self.inner, name)

    def embed(self, texts: list[str]) -> list[list[float]]:
        todo = [t for t in texts if t not in self.seen]
        if todo:
            self.seen.update(zip(todo, self.inner.embed(todo), strict=True))
        return [self.seen[t] for t in texts]


def parse(spec: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in filter(None, spec.split(",")):
        key, value = part.split("=")
        kind = type(getattr(WEIGHTS, key))
        out[key] = (value.lower() in ("1", "true")) if kind is bool else kind(value)
    return out


@contextlib.contextmanager
def _weights(weights: TurnWeights) -> Iterator[None]:
    """``context`` ranks turns with the module default: swap it for the sweep."""
    saved = turns.WEIGHTS
    turns.WEIGHTS = weights
    rank = turns.rank_turns
    turns.rank_turns = functools.partial(rank, weights=weights)  # type: ignore[assignment]
    try:
        yield
    finally:
        turns.WEIGHTS, turns.rank_turns = saved, rank


def score(
    built: Any, convs: list[Any], weights: TurnWeights, misses: bool, packets: bool
) -> dict[str, float]:
    got: dict[str, list[float]] = defaultdict(list)
    for conv in convs:
        dia_of = {v: k for k, v in conv.node_of.items()}
        by_id = {r["id"]: r for r in conv.rows}
        for qa in conv.questions:
            cat = qa.get("category")
            if cat not in ev.CATEGORIES:
                continue
            known = [e.strip() for e in qa.get("evidence") or [] if e.strip() in by_id]
            if not known:
                continue
            ranking = rank_turns(
                built.store,
                str(qa["question"]),
                10,
                nerve=built.nerve,
                scope=TurnScope(project=conv.project),
                weights=weights,
            )
            top = [dia_of.get(t.node.id, "") for t in ranking.turns]
            for k in (5, 10):
                r = ev.share(top[:k], known)
                got[f"{ev.CATEGORIES[cat]}@{k}"].append(r)
                got[f"all@{k}"].append(r)
            if packets:
                query = MemoryContextQuery(
                    text=str(qa["question"]), budget_tokens=2000, domain_id=f"voice:{conv.project}"
                )
                with _weights(weights):
                    packet = select_context_cut(built.store, query, built.nerve)
                r = ev.share([dia_of.get(n.id, "") for n in packet.nodes], known)
                got[f"{ev.CATEGORIES[cat]}@2k"].append(r)
                got["all@2k"].append(r)
            if misses and ev.share(top, known) < 1:
                print(f"\n[{ev.CATEGORIES[cat]}] {qa['question']}  -> {qa.get('answer')}")
                for e in known:
                    mark = "+" if e in top else "-"
                    print(f"  {mark} {e} {ev.render_turn(by_id[e])[:150]}")
                print("  top:", " ".join(top))
    return {k: statistics.fmean(v) for k, v in sorted(got.items())}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-vectors", action="store_true")
    ap.add_argument("--set", default="", help="fixed weights, key=value,...")
    ap.add_argument("--grid", action="append", default=[], help="key=v1,v2,... (repeatable)")
    ap.add_argument(
        "--full",
        action="store_true",
        help="store all ten conversations + the corpus as distractors (questions: 26, 30 only)",
    )
    ap.add_argument("--packets", action="store_true", help="also packet coverage at 2k")
    ap.add_argument("--misses", action="store_true", help="print the questions not fully found")
    args = ap.parse_args()
    stored = ev.load(ev.DATA, None if args.full else list(ev.TUNE))
    convs = [c for c in stored if c.cid in ev.TUNE]  # only these questions are asked
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tempfile.gettempdir()) / "memgraph-locomo-cache"
        built = ev.build(Path(tmp), stored, args.full, not args.no_vectors, cache)
        if built.nerve is not None:
            built.nerve.embedder = MemoEmbedder(built.nerve.embedder)
        base = dataclasses.replace(WEIGHTS, **parse(args.set))
        axes = [(g.split("=")[0], g.split("=")[1].split(",")) for g in args.grid]
        for combo in itertools.product(*[vals for _, vals in axes]) if axes else [()]:
            setting = ",".join(f"{k}={v}" for (k, _), v in zip(axes, combo, strict=True))
            weights = dataclasses.replace(base, **parse(setting))
            res = score(built, convs, weights, args.misses, args.packets)
            cats = " ".join(
                f"{k}={v:.3f}" for k, v in res.items() if k.endswith(("@5", "@10", "@2k"))
            )
            print(f"{setting or 'base'}: @5 {res['all@5']:.3f} @10 {res['all@10']:.3f} | {cats}")
        built.store.close()


if __name__ == "__main__":
    main()
