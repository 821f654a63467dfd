"""Late interaction (ColBERT-style MaxSim over MiniLM token states), swept on
LoCoMo's TUNING pair only.

    python bench/sweep_maxsim.py [--full] [--packets] [--dump FILE] --modes SPEC,SPEC,...

Builds the store as ``bench/sweep_locomo.py`` does, then computes the contextual
token vectors (the last hidden state before mean pooling, one unit vector per word
piece, [CLS]/[SEP] left out: ``NumpyMiniLM.embed_tokens``) of every turn the
tuning pair's questions are scoped to, from the text the turn vector embeds; they
are cached on disk (float16) beside the eval's vector cache. A turn's late
interaction score for a question is

    maxsim(q, t) = sum_i w_i * max_j cos(q_i, t_j) / sum_i w_i

over the question's tokens ``q_i`` and the turn's tokens ``t_j``, and it enters
``rank_turns`` through its fusion (``turn_scoring.fuse`` is wrapped). A mode is
``;``-separated ``key=value`` pairs (defaults in ``Mode``), ``@k=v;k=v`` after
it sets ``TurnWeights`` knobs for that mode alone:

- ``how=off`` (the product), ``pool`` (a third ranking: the best ``pool`` turns of
  the scope by maxsim, normalised, ``+ w * maxsim`` in ``s``), ``rescore`` (only
  the best ``top`` fused turns get ``+ w * maxsim``, normalised over them), ``swap``
  (maxsim replaces the cosine: the dense ranking is the maxsim pool);
- ``norm=max`` (maxsim / best, as bm25) or ``minmax`` (as the cosine);
- ``qw=all`` (every query token), ``idf`` (each weighted by its IDF over the
  scope's turns), ``stop`` (stop words and punctuation dropped), ``idfstop``;
- ``q=0`` the question as written, ``1`` without the speakers' names, ``2`` its
  content words without them (what the dense side embeds, the default);
- ``dp=1`` drops punctuation tokens of the turns (0 keeps them);
- ``center=1`` subtracts the mean token vector of the scope (then renormalises).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sweep_locomo as sw

from context_cut import turns as turns_mod
from context_cut.candidates import STOPWORDS, query_terms
from context_cut.embedders import fold
from context_cut.turn_scoring import normalised
from context_cut.turn_weights import TurnWeights
from context_cut.turns import WEIGHTS, TurnScope
from context_cut.vector_projection import project
from memgraph.store.protocol import Store

ev = sw.ev


@dataclasses.dataclass(frozen=True)
class Mode:
    how: str = "off"
    w: float = 0.5
    pool: int = 100
    top: int = 60
    norm: str = "minmax"
    qw: str = "all"
    q: int = 2
    dp: int = 1
    center: int = 0


def parse_mode(spec: str) -> tuple[Mode, dict[str, Any]]:
    head, _, extra = spec.partition("@")
    kw: dict[str, Any] = {}
    for part in filter(None, head.split(";")):
        key, value = part.split("=")
        kind = type(getattr(Mode(), key))
        kw[key] = kind(value)
    return Mode(**kw), sw.parse(extra.replace(";", ","))


# -- token vectors, cached on disk -------------------------------------------------


class TokenCache:
    """(token ids, float16 unit token vectors) of a text, keyed by its hash."""

    def __init__(self, model: Any, directory: Path) -> None:
        self.model = model
        directory.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(directory / "minilm-tokens-f16.sqlite")
        self.db.execute("CREATE TABLE IF NOT EXISTS t (key TEXT PRIMARY KEY, ids BLOB, vec BLOB)")
        self.computed = 0
        self.seconds = 0.0

    def get(self, texts: Sequence[str]) -> list[tuple[Any, Any]]:
        keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        found: dict[str, tuple[Any, Any]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, ids, vec in self.db.execute(
                f"SELECT key, ids, vec FROM t WHERE key IN ({marks})", chunk
            ):
                found[key] = (
                    np.frombuffer(ids, dtype=np.int32),
                    np.frombuffer(vec, dtype=np.float16).reshape(-1, 384),
                )
        todo = [i for i, k in enumerate(keys) if k not in found]
        if todo:
            t0 = time.perf_counter()
            fresh = self.model.embed_tokens([texts[i] for i in todo])
            self.seconds += time.perf_counter() - t0
            self.computed += len(todo)
            rows = []
            for i, (ids, vec) in zip(todo, fresh, strict=True):
                pair = (ids.astype(np.int32), vec.astype(np.float16))
                found[keys[i]] = pair
                rows.append((keys[i], pair[0].tobytes(), pair[1].tobytes()))
            self.db.executemany("INSERT OR REPLACE INTO t VALUES (?, ?, ?)", rows)
            self.db.commit()
        return [found[k] for k in keys]


@dataclasses.dataclass
class ScopeTable:
    ids: list[str]
    tokens: Any  # (n tokens, 384) float32, unit rows
    token_ids: Any  # word-piece id of each row
    starts: Any  # first row of each turn (turns with no token are left out)
    speakers: set[str]
    df: dict[int, int]
    mean: Any = None  # the mean token vector taken off (``center``)


_WORD = re.compile(r"\w+", re.UNICODE)


def _unit(m: Any) -> Any:
    return m / np.clip(np.linalg.norm(m, axis=1, keepdims=True), 1e-12, None)


class MaxSim:
    def __init__(self, store: Store, model: Any, cache: TokenCache) -> None:
        self.store = store
        self.model = model
        self.cache = cache
        docs = [d for d in project(store, ["voice"]) if d.doc == "node"]
        self.text_of = {d.doc_id: d.text for d in docs}
        with store.reader() as reader:
            self.nodes = reader.get_nodes(list(self.text_of))
        self.tables: dict[tuple[Any, int, int], ScopeTable] = {}
        self.queries: dict[str, tuple[Any, Any]] = {}
        self.punct = self._punct_ids()

    def _punct_ids(self) -> set[int]:
        vocab = self.model.tokenizer.get_vocab()
        return {i for tok, i in vocab.items() if not any(c.isalnum() for c in tok)}

    def table(self, scope: TurnScope, dp: int, center: int) -> ScopeTable:
        key = (dataclasses.astuple(scope), dp, center)
        if key in self.tables:
            return self.tables[key]
        ids = sorted(n for n, node in self.nodes.items() if scope.admits(node))
        pairs = self.cache.get([self.text_of[n] for n in ids])
        kept_ids: list[str] = []
        mats: list[Any] = []
        tids: list[Any] = []
        starts: list[int] = []
        df: dict[int, int] = {}
        row = 0
        for nid, (tid, vec) in zip(ids, pairs, strict=True):
            for t in set(tid.tolist()):
                df[t] = df.get(t, 0) + 1
            if dp:
                keep = np.array([t not in self.punct for t in tid.tolist()], dtype=bool)
                tid, vec = tid[keep], vec[keep]
            if len(tid) == 0:
                continue
            kept_ids.append(nid)
            starts.append(row)
            row += len(tid)
            mats.append(vec.astype(np.float32))
            tids.append(tid)
        tokens = np.concatenate(mats) if mats else np.zeros((0, 384), dtype=np.float32)
        mean = tokens.mean(0, keepdims=True) if center and len(tokens) else None
        if mean is not None:
            tokens = _unit(tokens - mean)
        speakers = {
            w
            for n in ids
            if isinstance(self.nodes[n].attributes.get("speaker"), str)
            for w in _WORD.findall(fold(str(self.nodes[n].attributes["speaker"])))
        }
        out = ScopeTable(
            kept_ids,
            tokens,
            np.concatenate(tids) if tids else np.zeros(0, dtype=np.int32),
            np.asarray(starts, dtype=np.int64),
            speakers,
            df,
            mean,
        )
        out.df[-1] = len(ids)  # the number of turns, for the IDF
        self.tables[key] = out
        return out

    def query_text(self, text: str, how: int, speakers: set[str]) -> str:
        if how == 0:
            return text
        if how == 2:
            kept = [t for t in query_terms(text) if t not in speakers]
        else:
            kept = [w for w in _WORD.findall(text) if fold(w) not in speakers]
        return " ".join(kept) or text

    def encode(self, text: str) -> tuple[Any, Any]:
        if text not in self.queries:
            (pair,) = self.model.embed_tokens([text])
            self.queries[text] = pair
        return self.queries[text]

    def scores(self, text: str, scope: TurnScope, mode: Mode) -> dict[str, float]:
        tab = self.table(scope, mode.dp, mode.center)
        if not tab.ids:
            return {}
        qids, qvec = self.encode(self.query_text(text, mode.q, tab.speakers))
        weights = np.ones(len(qids))
        if mode.qw in ("stop", "idfstop"):
            vocab = self.model.tokenizer
            words = [vocab.id_to_token(int(t)) for t in qids]
            keep = np.array(
                [
                    any(c.isalnum() for c in w) and w.removeprefix("##") not in STOPWORDS
                    for w in words
                ],
                dtype=bool,
            )
            if keep.any():
                qids, qvec, weights = qids[keep], qvec[keep], weights[keep]
        if mode.qw in ("idf", "idfstop"):
            n = tab.df[-1]
            weights = np.array(
                [math.log((n + 1) / (tab.df.get(int(t), 0) + 0.5)) for t in qids]
            ).clip(0.05, None)
        if tab.mean is not None:
            qvec = _unit(qvec - tab.mean)
        if len(qids) == 0:
            return {}
        sim = tab.tokens @ qvec.T.astype(np.float32)  # (n tokens, n query tokens)
        best = np.maximum.reduceat(sim, tab.starts, axis=0)  # (n turns, n query tokens)
        score = best @ weights / weights.sum()
        return dict(zip(tab.ids, (float(s) for s in score), strict=True))


# -- the hook into rank_turns --------------------------------------------------------


class Hook:
    def __init__(self, ms: MaxSim) -> None:
        self.ms = ms
        self.mode = Mode()
        self.current: dict[str, float] = {}
        self.calls = 0
        self.seconds = 0.0
        self.inner_rank = turns_mod.rank_turns
        self.inner_fuse = turns_mod.fuse

    def rank(self, store: Store, text: str, limit: int, **kw: Any) -> Any:
        if self.mode.how != "off":
            t0 = time.perf_counter()
            self.current = self.ms.scores(text, kw.get("scope") or TurnScope(), self.mode)
            self.seconds += time.perf_counter() - t0
            self.calls += 1
        return self.inner_rank(store, text, limit, **kw)

    def fuse(
        self,
        bm25: Sequence[tuple[str, float]],
        vector: Sequence[tuple[str, float]],
        weights: TurnWeights,
    ) -> dict[str, float]:
        mode = self.mode
        if mode.how == "off" or not self.current:
            return self.inner_fuse(bm25, vector, weights)
        ranked = sorted(self.current.items(), key=lambda kv: (-kv[1], kv[0]))
        if mode.how == "swap":
            return self.inner_fuse(bm25, ranked[: mode.pool], weights)
        own = self.inner_fuse(bm25, vector, weights)
        if mode.how == "pool":
            extra = normalised(ranked[: mode.pool], mode.norm == "minmax")
        else:  # rescore the best fused
            top = sorted(own, key=lambda n: (-own[n], n))[: mode.top]
            part = [(n, self.current[n]) for n in top if n in self.current]
            extra = normalised(part, mode.norm == "minmax")
        for n, s in extra.items():
            own[n] = own.get(n, 0.0) + mode.w * s
        return own


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--packets", action="store_true")
    ap.add_argument("--set", default="", help="fixed turn weights, key=value,...")
    ap.add_argument("--modes", default="how=off,how=pool;w=0.5")
    ap.add_argument("--dump", type=Path, help="per question top 10 of each mode (JSON)")
    ap.add_argument("--all-turns", action="store_true", help="token vectors of every turn")
    args = ap.parse_args()
    tops: dict[str, dict[str, list[str]]] = {}
    seen: dict[str, list[str]] = {}
    stored = ev.load(ev.DATA, None if args.full else list(ev.TUNE))
    convs = [c for c in stored if c.cid in ev.TUNE]
    # the product's own late interaction (``TurnWeights.late``) off: this prototype adds its own
    weights = dataclasses.replace(WEIGHTS, late=0.0, **sw.parse(args.set))
    with tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(tempfile.gettempdir()) / "memgraph-locomo-cache"
        built = ev.build(Path(tmp), stored, args.full, True, cache_dir)
        model = built.nerve.embedder
        built.nerve.embedder = sw.MemoEmbedder(model)
        tc = TokenCache(model, cache_dir)
        ms = MaxSim(built.store, model, tc)
        t0 = time.perf_counter()
        for conv in convs:  # the tables the questions are scoped to
            ms.table(TurnScope(project=conv.project), 1, 0)
        if args.all_turns:
            tc.get(list(ms.text_of.values()))
        tokens = sum(len(t.token_ids) for t in ms.tables.values())
        print(
            f"# token vectors: {tc.computed} texts computed in {tc.seconds:.1f} s "
            f"(tables {time.perf_counter() - t0:.1f} s; {tokens} tokens in the tuning "
            f"tables, {tokens * 384 * 2 / 1e6:.1f} MB as float16)",
            flush=True,
        )
        hook = Hook(ms)
        turns_mod.fuse = hook.fuse  # type: ignore[assignment]
        turns_mod.rank_turns = hook.rank  # type: ignore[assignment]
        inner_sw = hook.rank

        def recording(store: Store, text: str, limit: int, **kw: Any) -> Any:
            got = inner_sw(store, text, limit, **kw)
            seen[text] = [t.node.id for t in got.turns]
            return got

        sw.rank_turns = recording  # type: ignore[assignment]
        for spec in args.modes.split(","):
            mode, extra = parse_mode(spec)
            setting = dataclasses.replace(weights, **extra)
            hook.mode = mode
            hook.calls, hook.seconds = 0, 0.0
            seen = {}
            t1 = time.perf_counter()
            res = sw.score(built, convs, setting, False, args.packets)
            took = time.perf_counter() - t1
            tops[spec] = dict(seen)
            cats = " ".join(
                f"{k}={v:.3f}" for k, v in res.items() if k.endswith(("@5", "@10", "@2k"))
            )
            cost = f" maxsim {1000 * hook.seconds / hook.calls:.1f} ms/q" if hook.calls else ""
            print(
                f"{spec}: @5 {res['all@5']:.3f} @10 {res['all@10']:.3f} | {cats} "
                f"[{took:.0f} s{cost}]",
                flush=True,
            )
        meta = {
            str(qa["question"]): [
                qa.get("category"),
                [c.node_of.get(e.strip(), "") for e in qa.get("evidence") or []],
                c.cid,
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
