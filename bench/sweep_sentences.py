"""Prototype of sentence-level dense scoring, swept on LoCoMo's TUNING pair only.

    python bench/sweep_sentences.py [--full] [--packets] --modes t,max,add:0.5,...

Builds the store as ``bench/sweep_locomo.py`` does, then embeds every sentence of
every voice turn that has more than one (``turn_sentences`` below; the
vectors go to the same on-disk cache as the turn vectors) and replaces the voice
part of the vector search by an exact scan that scores a turn's dense side as:

- ``t``: cos(turn) (the product as it is; checks the scan reproduces the index);
- ``max``: max(cos(turn), cos(best sentence)) (a sentence point folded into its turn);
- ``add:W``: (cos(turn) + W cos(best sentence)) / (1 + W) (a turn without
  sentence vectors counts its own cosine as its best sentence's);
- ``maxd:D``: max(cos(turn), cos(best sentence) - D);
- ``s``: cos(best sentence) alone.

A ``+sp`` suffix embeds each sentence as ``speaker: sentence``; ``/N`` sets the
least words of a sentence (3); ``@k=v;k=v`` sets turn weights for that
mode alone (``max@dense=1.0;dense_query=1``). Only the tuning pair's questions are asked.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sweep_locomo as sw

from context_cut.turns import WEIGHTS
from context_cut.vector_projection import project
from context_cut.vectors import VectorNerve
from memgraph.store.protocol import Store

ev = sw.ev

# -- the sentences of a turn (prototype; no product code was kept) --

LEAST_WORDS = 3  # "Hey Mel!" and "Thanks!" get no vector of their own
_ENDS = ".!?"
_MOST = 8  # sentence vectors per turn at most (a pasted document is not a turn)


def sentences(text: str) -> list[str]:
    """``text`` cut after each run of ``.!?`` that is followed by white space (or
    the end), and at line breaks; stripped, empty pieces dropped. One linear pass."""
    out: list[str] = []
    start = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(text[start:i])
            start = i = i + 1
            continue
        if c in _ENDS:
            j = i + 1
            while j < n and text[j] in _ENDS:
                j += 1
            if j == n or text[j].isspace():
                out.append(text[start:j])
                start = j
            i = j
            continue
        i += 1
    out.append(text[start:])
    return [s for s in (p.strip() for p in out) if s]


def turn_sentences(text: str, least_words: int = LEAST_WORDS) -> list[str]:
    """The sentences of a turn that get a vector of their own: none for a turn of
    one sentence, else those of at least ``least_words`` words (at most 8)."""
    parts = sentences(text)
    if len(parts) < 2:
        return []
    return [p for p in parts if len(p.split()) >= least_words][:_MOST]


def unit(rows: Sequence[Sequence[float]]) -> Any:
    m = np.asarray(rows, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1.0, norms)


@dataclasses.dataclass
class SentenceNerve(VectorNerve):
    ids: list[str] = dataclasses.field(default_factory=list)
    turns: Any = None  # unit turn vectors, one row per voice node
    sents: Any = None  # unit sentence vectors
    owner: Any = None  # row of ``turns`` each sentence belongs to
    mode: str = "t"
    weight: float = 0.0

    def search(
        self, store: Store, text: str, limit: int, profiles: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        if profiles is not None and "voice" not in profiles:
            return super().search(store, text, limit, profiles)
        primed = self.primed
        vector = primed[1] if primed is not None and primed[0] == text else None
        vector = vector or self.embedder.embed([text])[0]
        self.primed = (text, vector)  # the plain search takes it
        plain = super().search(store, text, limit, profiles)
        voice = set(self.ids)
        q = unit([vector])[0]
        ct = self.turns @ q
        best = ct.copy() if self.mode != "s" else np.full(len(ct), -1.0)
        if len(self.owner):
            cs = self.sents @ q
            if self.mode == "add" or self.mode == "s":
                has = np.full(len(ct), -np.inf)
                np.maximum.at(has, self.owner, cs)
                best = np.where(np.isfinite(has), has, ct)
            else:
                np.maximum.at(best, self.owner, cs)
        if self.mode == "t":
            score = ct
        elif self.mode == "max" or self.mode == "s":
            score = best
        elif self.mode == "maxd":  # a sentence counts its cosine less ``weight``
            score = np.maximum(ct, best - self.weight)
        else:
            score = (ct + self.weight * best) / (1.0 + self.weight)
        scored = {n: s for n, s in plain if n not in voice}
        top = np.argsort(-score)[: limit * 2]
        for i in top:
            s = round(float(score[i]), 5)
            if s >= self.min_similarity:
                scored[self.ids[i]] = max(s, scored.get(self.ids[i], s))
        return sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]


def sentence_table(
    store: Store, cached: Any, least: int, speaker: bool
) -> tuple[list[str], Any, Any, Any, int]:
    docs = [d for d in project(store, ["voice"]) if d.doc == "node"]
    ids = [d.doc_id for d in docs]
    turns = unit(cached.embed([d.text for d in docs]))
    with store.reader() as reader:
        nodes = reader.get_nodes(ids)
    texts: list[str] = []
    owner: list[int] = []
    for row, nid in enumerate(ids):
        node = nodes.get(nid)
        if node is None or node.kind != "message":
            continue
        who = node.attributes.get("speaker")
        for s in turn_sentences(node.claim or "", least):
            texts.append(f"{who}: {s}" if speaker and isinstance(who, str) else s)
            owner.append(row)
    t0 = time.perf_counter()
    sents = unit(cached.embed(texts)) if texts else np.zeros((0, turns.shape[1]))
    print(
        f"# {len(ids)} voice nodes, {len(texts)} sentence vectors "
        f"({len({o for o in owner})} turns split; least {least}, speaker {speaker}); "
        f"embed {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    return ids, turns, sents, np.asarray(owner, dtype=np.int64), len(texts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--packets", action="store_true")
    ap.add_argument("--set", default="", help="fixed turn weights, key=value,...")
    ap.add_argument("--modes", default="t,max,add:0.5,add:1.0,s")
    ap.add_argument("--vectors-only", action="store_true", help="rank_turns(lexical=False)")
    ap.add_argument("--dump", type=Path, help="per question top 10 of each mode (JSON)")
    args = ap.parse_args()
    tops: dict[str, dict[str, list[str]]] = {}
    seen: dict[str, list[str]] = {}
    inner = sw.rank_turns

    def recording(store: Store, text: str, limit: int, **kw: Any) -> Any:
        got = inner(store, text, limit, **kw, lexical=not args.vectors_only)
        seen[text] = [t.node.id for t in got.turns]
        return got

    sw.rank_turns = recording
    stored = ev.load(ev.DATA, None if args.full else list(ev.TUNE))
    convs = [c for c in stored if c.cid in ev.TUNE]
    weights = dataclasses.replace(WEIGHTS, **sw.parse(args.set))
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tempfile.gettempdir()) / "memgraph-locomo-cache"
        built = ev.build(Path(tmp), stored, args.full, True, cache)
        plain = built.nerve
        memo = sw.MemoEmbedder(plain.embedder)
        cached = ev.CachedEmbedder(plain.embedder, cache)
        tables: dict[tuple[int, bool], Any] = {}
        for spec in args.modes.split(","):
            spec_mode, _, extra = spec.partition("@")
            setting = dataclasses.replace(weights, **sw.parse(extra.replace(";", ",")))
            name, _, least_s = spec_mode.partition("/")
            speaker = name.endswith("+sp")
            name = name.removesuffix("+sp")
            mode, _, w = name.partition(":")
            least = int(least_s or 3)
            if (least, speaker) not in tables:
                tables[least, speaker] = sentence_table(built.store, cached, least, speaker)
            ids, turns, sents, owner, _ = tables[least, speaker]
            built.nerve = SentenceNerve(
                index=plain.index,
                embedder=memo,
                words_dir=plain.words_dir,
                ids=ids,
                turns=turns,
                sents=sents,
                owner=owner,
                mode=mode,
                weight=float(w or 0.0),
            )
            seen = {}
            res = sw.score(built, convs, setting, False, args.packets)
            tops[spec] = dict(seen)
            cats = " ".join(
                f"{k}={v:.3f}" for k, v in res.items() if k.endswith(("@5", "@10", "@2k"))
            )
            print(f"{spec}: @5 {res['all@5']:.3f} @10 {res['all@10']:.3f} | {cats}", flush=True)
        meta = {
            str(qa["question"]): [
                qa.get("category"),
                [c.node_of.get(e.strip(), "") for e in qa.get("evidence") or []],
            ]
            for c in convs
            for qa in c.questions
        }
        built.store.close()
    if args.dump:
        tops["_meta"] = meta  # type: ignore[assignment]
        args.dump.write_text(json.dumps(tops))


if __name__ == "__main__":
    main()
