"""A digest of everything a backfill stores, to compare two versions of the code.

    PYTHONPATH=<tree A> python bench/backfill_digest.py ROOT a.txt
    PYTHONPATH=<tree B> python bench/backfill_digest.py ROOT b.txt && diff a.txt b.txt
    python bench/backfill_digest.py --hostile OUT   # a damaged copy of the corpus's Claude files

Backfills ROOT into a fresh store and vault with a fixed ``now``, then writes one
line per table (row count and sha256 of the sorted rows; of ``patches``,
``receipts`` and ``schema_migrations`` only the columns without wall-clock times),
one per vault file (``log.md`` without its times), the report's counts, the ledger
totals and every ledger entry. ``--hostile`` writes three copies of the corpus's
Claude Code files with 5 % of lines truncated, 10 % with a pre-check marker, a NUL
or an escaped token inserted at a random byte, and 5 % re-spaced (seed 22).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sqlite3
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_hook import CORPUS

_NO_TIMES = {
    "receipts": "SELECT op, target_id FROM receipts",
    "patches": "SELECT status FROM patches",
    "schema_migrations": "SELECT version FROM schema_migrations",
}
_MARKERS = [
    *(b'"user"', b'"queue-operation"', b'"queued_command"', b'"local_command"'),
    *(b'"tool_result"', b"the user said:", b"User has answered your questions"),
    *(b'"is_error":true', b'"is_error": true', b'"isSidechain":true', b'"isSidechain": true'),
    *(b"This is a side question from the user", b'"is_error":', b"queue", b'"timestamp":'),
    *(b'"assistant"', b"\x00", b'{"type":"mode"', b'\\"user\\"'),
]


def digest(root: Path, out: Path) -> None:
    from memgraph.store import open_store
    from profiles.voice.backfill import BackfillRequest, run_backfill

    now = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        store = open_store(tmp / "mg.db")
        report = run_backfill(store, BackfillRequest(roots=[root], vault=tmp / "vault", now=now))
        store.close()
        lines = []
        conn = sqlite3.connect(tmp / "mg.db")
        tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1")
        for (table,) in tables.fetchall():
            if table.startswith("sqlite_"):
                continue
            rows = sorted(
                repr(r) for r in conn.execute(_NO_TIMES.get(table, f'SELECT * FROM "{table}"'))
            )
            text = "".join(rows).encode()
            lines.append(f"TABLE {table} {len(rows)} {hashlib.sha256(text).hexdigest()}")
        conn.close()
        for path in sorted((tmp / "vault").rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                if path.name == "log.md":
                    data = re.sub(rb"^## \[[^]]*\]", b"## []", data, flags=re.M)
                name = path.relative_to(tmp).as_posix()
                lines.append(f"FILE {name} {len(data)} {hashlib.sha256(data).hexdigest()}")
    lines.append("COUNTS " + json.dumps(report.counts(), sort_keys=True))
    lines.append("LEDGER " + json.dumps(report.ledger.totals(), sort_keys=True, default=str))
    lines += ["ENTRY " + json.dumps(e.to_json(), sort_keys=True) for e in report.ledger.entries]
    out.write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} lines -> {out}")


def hostile(corpus: Path, out: Path) -> None:
    rng = random.Random(22)
    for k in range(3):
        for src in sorted((corpus / "claude-code").glob("*.jsonl")):
            new = []
            for line in src.read_bytes().split(b"\n"):
                r = rng.random()
                if r < 0.05 and line:
                    line = line[: rng.randrange(len(line))]
                elif r < 0.15 and line:
                    at = rng.randrange(len(line) + 1)
                    line = line[:at] + rng.choice(_MARKERS) + line[at:]
                elif r < 0.2:
                    line = line.replace(b'":', b'": ').replace(b',"', b', "')
                new.append(line)
            folder = out / f"-p{k}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"h{k}-{src.name.split('__')[-1]}").write_bytes(b"\n".join(new))
    print(f"hostile tree in {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path, nargs="?")
    ap.add_argument("out", type=Path, nargs="?")
    ap.add_argument("--hostile", type=Path, default=None, help="write the hostile tree here")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    if args.hostile is not None:
        hostile(args.corpus, args.hostile)
    elif args.root is None or args.out is None:
        ap.error("ROOT and OUT are needed (or --hostile OUT)")
    else:
        digest(args.root, args.out)


if __name__ == "__main__":
    main()
