"""Generate a benchmark vault: N voice pages (markdown) and a store built from them.

    python bench/gen_vault.py --out /tmp/mg-bench [--pages 10000] [--seed 7]

Writes ``<out>/vault/<constellation>/voice/<date>-<sid8>.md`` with the page
renderer (``profiles.voice.pages.render_page``) and then builds
``<out>/home/memgraph.db`` from those pages alone with ``import-vault``
(``profiles.voice.search_schema.import_vault``), i.e. the same path a copied
vault takes. Text is drawn from a Zipf distribution over ~6,000 words (common
English and engineering vocabulary first, then generated words), with message
lengths from a log-normal (a few long pastes), 8 constellations, sessions of 3-40
messages spread over two years, and about 40 % of messages classified.
Deterministic for a given seed.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path


def _words(text: str) -> list[str]:
    return text.split()


COMMON = _words("""the a to and of i it is in that we this for you be on not with can
should but do what if so just have are at as it's there from or make use need want
think one now all when then need like get how why let's also add fix check test run
see file code more here way because new some than only still try work out about
them which would could into go no yes ok after before again other first last same
sure keep change data error build change back each too thing look much any well
does did want should our their will was been were has had up down over under""")
TECH = _words("""api schema table index query cache queue worker deploy release branch merge
commit rebase review test tests coverage lint type types config env secret token key
auth login session user users account database postgres sqlite redis kafka stream
event events handler route router endpoint request response latency timeout retry
backoff lock mutex thread async await promise future callback closure module package
import export function class method field struct enum trait interface protocol
service services client server proxy gateway container docker kubernetes pod node
cluster shard replica migration rollback backup snapshot log logs metric metrics
trace traces alert alerts dashboard panel chart graph memory vector embedding model
prompt agent agents tool tools transcript voice page vault note notes window fact
facts claim claims anchor anchors summary summaries profile lifecycle receipt patch
validate validation parser reader writer format json yaml markdown frontmatter
benchmark bench budget median p50 p95 throughput ingest backfill hook hooks cli
flag flags option options command commands search rank ranking score bm25 recency
frontend backend css html layout button modal form input render component state
store reducer effect hook cli terminal shell script bash zsh python rust go
typescript javascript java kotlin swift pytest hypothesis ruff mypy""")
CONSTELLATIONS = ["atlas", "borealis", "cygnus", "draco", "eridanus", "fornax", "lyra", "orion"]
SYLLABLES = _words("ka ri to mo ne shi ra vel dor an ex in per gra tion ly ment cor ba lu zi")
CLASSES = ["definition", "decision", "directive", "correction", "question", "rationale",
           "preference", "command"]  # fmt: skip


# The head of the document-frequency ranking of operator prompts in the real corpus
# (../shared/corpus/real: "i" in 33 % of prompts, "to" 24 %, "the" 21 %; median 8 words).
NATURAL_HEAD = _words("""i to the it a we is that not and can in this my but need you just
like yes be of so have""")


def vocabulary(rng: random.Random, size: int = 6000, natural: bool = False) -> list[str]:
    words = list(dict.fromkeys(COMMON + TECH))
    rng.shuffle(words)  # mixes tech terms among the common ranks (a realistic head)
    if natural:  # English function words first, in the order real prompts use them
        words = list(dict.fromkeys(NATURAL_HEAD + words))
    seen = set(words)
    while len(words) < size:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


class TextGen:
    def __init__(self, rng: random.Random, natural: bool = False) -> None:
        self.rng = rng
        self.words = vocabulary(rng, natural=natural)
        # natural: prompt-length messages (median 8 words, as the real corpus), so the
        # third most frequent word ("the") is in ~36 % of messages
        self.median = 8.0 if natural else 18.0
        self.sigma = 1.0 if natural else 0.8
        weights = [1.0 / (r**1.07) for r in range(1, len(self.words) + 1)]
        total = 0.0
        self.cum: list[float] = []
        for w in weights:
            total += w
            self.cum.append(total)

    def message(self) -> str:
        rng = self.rng
        n = max(1, int(rng.lognormvariate(math.log(self.median), self.sigma)))
        if rng.random() < 0.02:
            n = rng.randint(200, 600)  # a pasted log or spec
        words = rng.choices(self.words, cum_weights=self.cum, k=n)
        text = " ".join(words)
        if rng.random() < 0.15:
            cut = rng.randint(1, len(words))
            text = " ".join(words[:cut]) + "\n" + " ".join(words[cut:])
        return text[0].upper() + text[1:] if rng.random() < 0.5 else text


def build_pages(count: int, seed: int, natural: bool = False) -> list[object]:
    from profiles.voice.pages import VoiceMessageEntry, VoicePage

    rng = random.Random(seed)
    gen = TextGen(rng, natural)
    end = datetime(2026, 11, 30, tzinfo=UTC)
    span = timedelta(days=730).total_seconds()
    pages = []
    for i in range(count):
        const = rng.choice(CONSTELLATIONS)
        sid = f"{rng.getrandbits(32):08x}-{i:04x}-4000-8000-{rng.getrandbits(48):012x}"
        start = end - timedelta(seconds=rng.random() * span)
        start = start.replace(microsecond=0)
        n = min(40, max(3, int(rng.gauss(15, 8))))
        at = start
        entries = []
        for k in range(n):
            at += timedelta(seconds=rng.randint(20, 900))
            cls = rng.choice(CLASSES) if rng.random() < 0.4 else None
            entries.append(
                VoiceMessageEntry(
                    record_uuid=f"{sid[:8]}-{k:04d}-{rng.getrandbits(40):010x}",
                    timestamp=at,
                    text=gen.message(),
                    transcript=f"/home/op/.claude/projects/-src-{const}/{sid}.jsonl",
                    line=10 + 7 * k,
                    classification=cls,
                    confidence=round(rng.uniform(0.5, 0.99), 2) if cls else None,
                )
            )
        pages.append(
            VoicePage(
                title=f"{const} session {i}",
                constellation=const,
                project=const,
                session_id=sid,
                created=start.date(),
                updated=entries[-1].timestamp.date(),
                valid_from=entries[0].timestamp,
                valid_to=entries[-1].timestamp,
                ingested_at=entries[-1].timestamp + timedelta(minutes=5),
                sources=[entries[0].transcript or ""],
                messages=entries,
            )
        )
    return pages


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-store", action="store_true", help="Only write the markdown pages.")
    ap.add_argument(
        "--words",
        choices=("default", "natural"),
        default="default",
        help="natural: real prompts' word frequencies and lengths ('the' in ~36 %% of messages)",
    )
    args = ap.parse_args(argv)

    from profiles.voice.pages import page_relpath, render_page

    vault, home = args.out / "vault", args.out / "home"
    if vault.exists() or (home / "memgraph.db").exists():
        print(f"{args.out} already holds a vault or store; pick an empty --out", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    pages = build_pages(args.pages, args.seed, args.words == "natural")
    messages = 0
    for page in pages:
        rel = page_relpath(page.constellation, page.created, page.session_id)  # type: ignore[attr-defined]
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_page(page), encoding="utf-8")  # type: ignore[arg-type]
        messages += page.message_count  # type: ignore[attr-defined]
    size = sum(p.stat().st_size for p in vault.rglob("*.md"))
    t1 = time.perf_counter()
    print(f"pages: {len(pages)}  messages: {messages}  markdown: {size / 1e6:.1f} MB  "
          f"({t1 - t0:.1f} s)")  # fmt: skip
    if args.no_store:
        return 0

    from memgraph.store import open_store
    from profiles.voice.search_schema import ImportVaultRequest, import_vault

    store = open_store(home / "memgraph.db")
    try:
        report = import_vault(store, ImportVaultRequest(vault=vault, batch_pages=500))
    finally:
        store.close()
    t2 = time.perf_counter()
    db = (home / "memgraph.db").stat().st_size
    print(f"import-vault: {report.pages} pages, {report.messages} messages, "
          f"{len(report.failed)} failed, {t2 - t1:.1f} s "
          f"({report.messages / max(t2 - t1, 1e-9):.0f} msg/s); store {db / 1e6:.0f} MB")  # fmt: skip
    print(f"MEMGRAPH_HOME={home}")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
