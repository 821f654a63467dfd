"""LoCoMo-10: evidence recall of ``recall`` and evidence coverage of ``context`` packets.

    python bench/eval_locomo.py [--data ../shared/benchmarks/locomo10] [--no-vectors]
        [--no-corpus] [--conversations 26,30] [--every N] [--json OUT]

Each LoCoMo conversation is converted to the documented JSONL import shape
(one LoCoMo session = one session, the session's date-time = the valid time of
its turns, ``dia_id`` = the record id; an image a speaker shares is kept as
``[shares an image: <caption>]``), written to a temporary file and imported
through the product path (``profiles.voice.importers.import_conversations``)
into one SQLite store, project ``locomo-<id>``. Unless ``--no-corpus``, the real
transcript corpus (``../shared/corpus/real``) is captured into the same store
by ``run_backfill`` so latency is measured on a store holding both. Vectors
(unless ``--no-vectors``) are MiniLM from the offline ``local-embeddings``
extra in an embedded, in-memory Qdrant, indexed by ``sync_index``.

For every question with evidence (categories 1-4; category 5 has none), per
category and overall, split into the tuning conversations (26, 30) and the
held-back eight:
- evidence recall@5/@10 (share of the question's evidence turns among the
  top k) of ``recall(project=locomo-<id>)`` in modes bm25, vectors, hybrid;
- evidence coverage of ``select_context_cut`` packets (repo cut, the
  conversation's domain) at 1,000 and 2,000 tokens (budget enforced);
- baselines in the same run: a plain Okapi BM25 over the conversation's turns
  (k1 1.5, b 0.75, lower-cased words, no stopwords; its packet = its top turns
  rendered ``date speaker: text`` while they fit) and the most recent turns
  that fit the budget;
- p50/p95 in-process wall time of each recall mode and of the packet, and
  ingest time (import, corpus backfill, vector indexing).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from context_cut.api import RecallRequest, recall, select_context_cut
from context_cut.budget import estimate_tokens
from memgraph.documents import MemoryContextQuery
from memgraph.store import Store, open_store
from profiles.voice.importers import ImportRequest, import_conversations
from profiles.voice.nodes import message_node_id

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout (a worktree under /work/wt/NAME finds /work/shared)
SHARED = next(
    (p / "shared" for p in ROOT.parents if (p / "shared").is_dir()), ROOT.parent / "shared"
)
DATA = SHARED / "benchmarks" / "locomo10"
CORPUS = SHARED / "corpus" / "real"
TUNE = ("26", "30")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MODES = ("bm25", "vectors", "hybrid")
BUDGETS = (1000, 2000)
KS = (5, 10)
_WORD = re.compile(r"\w+")


# -- conversion ---------------------------------------------------------------


def session_time(text: str) -> datetime:
    """LoCoMo's "1:56 pm on 8 May, 2023" as aware UTC."""
    clean = " ".join(text.replace(",", ", ").split()).replace(" ,", ",")
    return datetime.strptime(clean, "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turn_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text") or "")
    caption = turn.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [shares an image: {caption.strip()}]".strip()
    return text


def to_jsonl(conv: dict[str, Any], cid: str) -> list[dict[str, Any]]:
    body = conv.get("conversation", conv)
    rows: list[dict[str, Any]] = []
    n = 1
    while f"session_{n}" in body:
        when = session_time(body[f"session_{n}_date_time"])
        for turn in body[f"session_{n}"]:
            rows.append(
                {
                    "session": f"locomo-{cid}-s{n}",
                    "speaker": turn["speaker"],
                    "ts": when.isoformat(),
                    "text": turn_text(turn),
                    "id": turn["dia_id"],
                }
            )
        n += 1
    return rows


@dataclass
class Conversation:
    cid: str
    rows: list[dict[str, Any]]
    questions: list[dict[str, Any]]
    node_of: dict[str, str] = field(default_factory=dict)  # dia_id -> node id

    @property
    def project(self) -> str:
        return f"locomo-{self.cid}"


def load(data: Path, only: Sequence[str] | None) -> list[Conversation]:
    convs = []
    for path in sorted(data.glob("*.json")):
        if only and path.stem not in only:
            continue
        raw = json.loads(path.read_text(encoding="utf-8"))
        rows = to_jsonl(raw, path.stem)
        conv = Conversation(path.stem, rows, list(raw.get("qa", [])))
        conv.node_of = {r["id"]: message_node_id(r["session"], r["id"]) for r in rows}
        convs.append(conv)
    return convs


# -- baselines ----------------------------------------------------------------


class PlainBM25:
    """Okapi BM25 over one conversation's turns (the baseline the issue quotes)."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.toks = [_WORD.findall(d.lower()) for d in docs]
        self.k1, self.b = k1, b
        self.avg = sum(len(t) for t in self.toks) / max(1, len(self.toks))
        df: Counter[str] = Counter()
        for t in self.toks:
            df.update(set(t))
        n = len(self.toks)
        self.idf = {w: math.log((n - d + 0.5) / (d + 0.5) + 1) for w, d in df.items()}
        self.tf = [Counter(t) for t in self.toks]

    def rank(self, query: str) -> list[int]:
        q = _WORD.findall(query.lower())
        scores = []
        for i, tf in enumerate(self.tf):
            norm = self.k1 * (1 - self.b + self.b * len(self.toks[i]) / self.avg)
            s = sum(
                self.idf.get(w, 0.0) * tf[w] * (self.k1 + 1) / (tf[w] + norm) for w in q if w in tf
            )
            scores.append(s)
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


def render_turn(row: dict[str, Any]) -> str:
    return f"{row['ts'][:16].replace('T', ' ')} {row['speaker']}: {row['text']}"


def fit(rows: Iterable[dict[str, Any]], budget: int) -> set[str]:
    used, kept = 0, set()
    for row in rows:
        cost = estimate_tokens(render_turn(row))
        if used + cost > budget:
            continue
        used += cost
        kept.add(row["id"])
    return kept


def recent_fit(rows: Sequence[dict[str, Any]], budget: int) -> set[str]:
    used, kept = 0, set()
    for row in reversed(rows):
        cost = estimate_tokens(render_turn(row))
        if used + cost > budget:
            break
        used += cost
        kept.add(row["id"])
    return kept


# -- the store ------------------------------------------------------------------


@dataclass
class Built:
    store: Store
    nerve: Any
    timings: dict[str, float]
    counts: dict[str, int]


def build(
    tmp: Path,
    convs: list[Conversation],
    corpus: bool,
    vectors: bool,
    cache: Path | None = None,
) -> Built:
    store = open_store(tmp / "locomo.db")
    timings: dict[str, float] = {}
    counts: dict[str, int] = {}
    t0 = time.perf_counter()
    imported = 0
    for conv in convs:
        path = tmp / f"{conv.project}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for row in conv.rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        result = import_conversations(store, ImportRequest(path=path, project=conv.project))
        if result.bad_records:
            print(f"warning: {conv.project}: {result.line()}", file=sys.stderr)
        imported += result.messages
    timings["import_s"] = time.perf_counter() - t0
    counts["turns"] = imported
    if corpus and CORPUS.is_dir():
        from profiles.voice.backfill import BackfillRequest, run_backfill

        t0 = time.perf_counter()
        run_backfill(store, BackfillRequest(roots=[CORPUS], vault=tmp / "vault"))
        timings["corpus_backfill_s"] = time.perf_counter() - t0
    counts["nodes"] = store.counts()["nodes"]
    nerve = None
    if vectors:
        from context_cut.embedders import make_embedder
        from context_cut.vector_index import VectorIndex
        from context_cut.vector_sync import sync_index
        from context_cut.vectors import VectorNerve

        t0 = time.perf_counter()
        embedder = make_embedder("minilm")  # numpy forward pass, as `recall` runs it
        assert embedder is not None
        timings["model_load_s"] = time.perf_counter() - t0
        index = VectorIndex.open(path=tmp / "vectors")  # Qdrant Edge, the default engine
        t0 = time.perf_counter()
        cached = CachedEmbedder(embedder, cache) if cache is not None else embedder
        report = sync_index(store, index, cached)
        timings["vector_index_s"] = time.perf_counter() - t0
        counts["vectors"] = report.embedded
        if isinstance(cached, CachedEmbedder):
            counts["vectors_from_cache"] = cached.hits
        # the word vectors of the stored turns, as `memgraph index` writes them
        from context_cut.word_vectors import message_texts, sync_words

        t0 = time.perf_counter()
        words = sync_words(message_texts(store), cached, tmp / "words")
        timings["word_vectors_s"] = time.perf_counter() - t0
        counts["words"] = words.words
        # the token vectors (late interaction), kept beside the vector cache: the
        # table reuses the rows of unchanged text, so it is its own cache
        from context_cut.token_vectors import sync_tokens, token_embedder, voice_texts

        late = token_embedder(embedder)
        tokens_dir = (cache if cache is not None else tmp) / "token-vectors"
        if late is not None:
            t0 = time.perf_counter()
            tokens = sync_tokens(voice_texts(store), late, tokens_dir)
            timings["token_vectors_s"] = time.perf_counter() - t0
            counts["token_rows"], counts["token_turns_embedded"] = tokens.rows, tokens.embedded
        # queries are embedded by the model itself: their latency is measured
        nerve = VectorNerve(index, embedder, words_dir=tmp / "words", tokens_dir=tokens_dir)
    return Built(store, nerve, timings, counts)


class CachedEmbedder:
    """Document vectors kept on disk between bench runs (keyed by model + text
    hash, in a cache directory outside the repo): re-embedding ~6k turns on a
    loaded machine takes minutes, and the vectors of unchanged text are the same."""

    def __init__(self, inner: Any, directory: Path) -> None:
        import sqlite3

        self.inner = inner
        self.hits = 0
        directory.mkdir(parents=True, exist_ok=True)
        slug = re.sub(r"[^a-z0-9]+", "_", inner.name.lower())
        self.db = sqlite3.connect(directory / f"{slug}-{inner.dimension}.sqlite")
        self.db.execute("CREATE TABLE IF NOT EXISTS v (key TEXT PRIMARY KEY, vec BLOB)")

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def dimension(self) -> int:
        return int(self.inner.dimension)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import hashlib
        from array import array

        keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        found: dict[str, list[float]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, blob in self.db.execute(
                f"SELECT key, vec FROM v WHERE key IN ({marks})", chunk
            ):
                found[key] = array("f", blob).tolist()
        todo = [i for i, k in enumerate(keys) if k not in found]
        self.hits += len(texts) - len(todo)
        if todo:
            fresh = self.inner.embed([texts[i] for i in todo])
            rows = [
                (keys[i], array("f", vec).tobytes()) for i, vec in zip(todo, fresh, strict=True)
            ]
            self.db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)
            self.db.commit()
            for i, vec in zip(todo, fresh, strict=True):
                found[keys[i]] = vec
        return [found[k] for k in keys]


# -- evaluation -------------------------------------------------------------------


def share(found: Iterable[str], evidence: Sequence[str]) -> float:
    got = set(found)
    return sum(1 for e in evidence if e in got) / len(evidence)


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


CPU: dict[int, list[float]] = defaultdict(list)  # id(wall bucket) -> process CPU ms


def timed(fn: Callable[[], Any], bucket: list[float]) -> Any:
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    bucket.append((time.perf_counter() - t0) * 1000)
    CPU[id(bucket)].append((time.process_time() - c0) * 1000)
    return out


def evaluate(
    built: Built, convs: list[Conversation], every: int, only: Sequence[str] = ()
) -> dict[str, Any]:
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    lat: dict[str, list[float]] = defaultdict(list)
    skipped = Counter[str]()
    modes = [m for m in MODES if built.nerve is not None or m == "bm25"]
    for conv in convs:
        if only and conv.cid not in only:
            continue
        split = "tune" if conv.cid in TUNE else "held"
        dia_of = {v: k for k, v in conv.node_of.items()}
        by_id = {r["id"]: r for r in conv.rows}
        plain = PlainBM25([r["text"] for r in conv.rows])
        domain = f"voice:{conv.project}"
        for qi, qa in enumerate(conv.questions):
            if every > 1 and qi % every:
                continue
            cat = qa.get("category")
            evidence = [e for e in qa.get("evidence") or [] if isinstance(e, str)]
            if cat not in CATEGORIES:
                skipped["category_5"] += 1
                continue
            evidence = [e.strip() for e in evidence]
            known = [e for e in evidence if e in by_id]
            if not known:
                skipped["no_known_evidence"] += 1
                continue
            if len(known) < len(evidence):
                skipped["unknown_evidence_ids"] += len(evidence) - len(known)
            text = str(qa["question"])
            keys = (f"{split}|{CATEGORIES[cat]}", f"{split}|all")

            def add(metric: str, value: float, keys: tuple[str, ...] = keys) -> None:
                for key in keys:
                    scores[key][metric].append(value)

            for mode in modes:
                req = RecallRequest(text=text, limit=10, project=conv.project, mode=mode)
                res = timed(
                    lambda req=req: recall(built.store, req, built.nerve),
                    lat[f"recall_{mode}"],
                )
                got = [dia_of.get(h.node.id, "") for h in res.hits]
                for k in KS:
                    add(f"{mode}@{k}", share(got[:k], known))
            order = plain.rank(text)
            top = [conv.rows[i]["id"] for i in order]
            for k in KS:
                add(f"plain_bm25@{k}", share(top[:k], known))
            for budget in BUDGETS:
                query = MemoryContextQuery(text=text, budget_tokens=budget, domain_id=domain)
                packet = timed(
                    lambda query=query: select_context_cut(built.store, query, built.nerve),
                    lat[f"context_{budget}"],
                )
                assert packet.tokens_used <= budget
                in_packet = [dia_of.get(n.id, "") for n in packet.nodes]
                add(f"packet@{budget}", share(in_packet, known))
                add(
                    f"plain_bm25_packet@{budget}",
                    share(fit((by_id[t] for t in top), budget), known),
                )
                add(f"recent@{budget}", share(recent_fit(conv.rows, budget), known))
    table = {
        key: {m: (round(statistics.fmean(v), 3), len(v)) for m, v in metrics.items()}
        for key, metrics in scores.items()
    }
    latency = {
        name: {
            "p50_ms": round(pct(v, 0.5), 1),
            "p95_ms": round(pct(v, 0.95), 1),
            "cpu_p50_ms": round(pct(CPU[id(v)], 0.5), 1),
            "n": len(v),
        }
        for name, v in lat.items()
    }
    raw = {name: {"wall": v, "cpu": CPU[id(v)]} for name, v in lat.items()}
    sums = {
        key: {m: [sum(v), len(v)] for m, v in metrics.items()} for key, metrics in scores.items()
    }
    return {
        "table": table,
        "latency": latency,
        "skipped": dict(skipped),
        "raw_latency": raw,
        "sums": sums,
    }


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One result from runs that evaluated disjoint conversations of the same store."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(dict)
    raw: dict[str, dict[str, list[float]]] = defaultdict(lambda: {"wall": [], "cpu": []})
    skipped: Counter[str] = Counter()
    for part in parts:
        for key, metrics in part["sums"].items():
            for m, (total, n) in metrics.items():
                got = sums[key].setdefault(m, [0.0, 0])
                got[0] += total
                got[1] += n
        for name, v in part["raw_latency"].items():
            raw[name]["wall"] += v["wall"]
            raw[name]["cpu"] += v["cpu"]
        skipped.update(part["skipped"])
    table = {
        key: {m: (round(t / n, 3), n) for m, (t, n) in metrics.items()}
        for key, metrics in sums.items()
    }
    latency = {
        name: {
            "p50_ms": round(pct(v["wall"], 0.5), 1),
            "p95_ms": round(pct(v["wall"], 0.95), 1),
            "cpu_p50_ms": round(pct(v["cpu"], 0.5), 1),
            "n": len(v["wall"]),
        }
        for name, v in raw.items()
    }
    first = parts[0]
    return {
        "table": table,
        "latency": latency,
        "skipped": dict(skipped),
        "timings_s": first.get("timings_s", {}),
        "counts": first.get("counts", {}),
        "load": [p.get("load") for p in parts],
    }


COLUMNS = (
    *(f"{m}@{k}" for m in MODES for k in KS),
    *(f"plain_bm25@{k}" for k in KS),
    *(f"packet@{b}" for b in BUDGETS),
    *(f"plain_bm25_packet@{b}" for b in BUDGETS),
    *(f"recent@{b}" for b in BUDGETS),
)


def markdown(result: dict[str, Any]) -> str:
    lines = []
    table = result["table"]
    for split, label in (("held", "held-back eight"), ("tune", "tuning (26, 30)")):
        cols = [c for c in COLUMNS if any(c in table.get(f"{split}|all", {}) for _ in [0])]
        lines.append(f"\n{label}:\n")
        lines.append("| category | n | " + " | ".join(cols) + " |")
        lines.append("| --- | --- |" + " --- |" * len(cols))
        for cat in (*CATEGORIES.values(), "all"):
            row = table.get(f"{split}|{cat}")
            if not row:
                continue
            n = next(iter(row.values()))[1]
            vals = [f"{row[c][0]:.3f}" if c in row else "-" for c in cols]
            lines.append(f"| {cat} | {n} | " + " | ".join(vals) + " |")
    lines.append("\nlatency (in-process wall, ms):\n")
    lines.append("| call | wall p50 | wall p95 | cpu p50 | n |")
    lines.append("| --- | --- | --- | --- | --- |")
    for name, v in sorted(result["latency"].items()):
        lines.append(f"| {name} | {v['p50_ms']} | {v['p95_ms']} | {v['cpu_p50_ms']} | {v['n']} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--conversations", default="", help="comma-separated ids (default: all)")
    ap.add_argument("--no-vectors", action="store_true")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--every", type=int, default=1, help="evaluate every Nth question")
    ap.add_argument("--json", type=Path, default=None, help="also write the result here")
    ap.add_argument(
        "--evaluate", default="", help="only ask these conversations' questions (all imported)"
    )
    ap.add_argument("--merge", nargs="+", type=Path, help="print the union of --json results")
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memgraph-locomo-cache",
        help="document vectors kept between runs (model + text hash); --no-cache: none",
    )
    ap.add_argument("--no-cache", action="store_true")
    args = ap.parse_args()
    if args.merge:
        merged = merge([json.loads(p.read_text(encoding="utf-8")) for p in args.merge])
        print(f"store: {merged['counts']} ingest: {merged['timings_s']} load: {merged['load']}")
        print(f"skipped: {merged['skipped']}")
        print(markdown(merged))
        return
    if not args.data.is_dir():
        sys.exit(f"LoCoMo data not found at {args.data}")
    only = [c.strip() for c in args.conversations.split(",") if c.strip()]
    convs = load(args.data, only)
    with tempfile.TemporaryDirectory() as tmp:
        cache = None if args.no_cache else args.cache
        built = build(Path(tmp), convs, not args.no_corpus, not args.no_vectors, cache)
        ask = [c.strip() for c in args.evaluate.split(",") if c.strip()]
        result = evaluate(built, convs, args.every, ask)
        built.store.close()
    result["timings_s"] = {k: round(v, 2) for k, v in built.timings.items()}
    result["counts"] = built.counts
    result["load"] = os.getloadavg()
    print(
        f"store: {built.counts} ingest: {result['timings_s']} "
        f"load avg: {', '.join(f'{x:.2f}' for x in result['load'])}"
    )
    print(f"skipped: {result['skipped']}")
    print(markdown(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
