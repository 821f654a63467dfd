"""Re-make the localisation dumps the repo cut's weights are fitted and judged on.

    python bench/bench_repo_localise_corpus.py OUT_DIR [--mirrors DIR] [--only train,judged]

The repo cut's model (``context_cut/repo_model.py``) was fitted on the ``train``
repositories, chosen by leaving one of them out, judged on ``judged`` and
confirmed on ``confirm`` (notes/repo.md, learn35 and s36). Each is dumped at the
commit recorded here, 200 commits (this project: every qualifying commit up to
``MEMGRAPH_AT``), with the bench's standard rules (``bench_repo_localise.py
--dump``), into ``OUT_DIR/<set>/<owner+name>.jsonl``. A repository is read
from ``MIRRORS/<owner>+<name>/repo`` (a git directory, e.g. what the tool
library's ``fetch github:owner/name`` leaves); a missing one is one line on
stderr and skipped. ~1-2 min per repository (this project ~5 min); then

    python bench/bench_repo_localise_learn.py --pairs --shrink 0.75 \\
        --only text,ppr,named,past50,past100,recency,sym,count50,text_rr,size,short_recency,short_count,clause_max \\
        --train OUT/train/*.jsonl --eval OUT/judged/*.jsonl
    (``--cv`` for leave-one-repo-out; ``--nearest OUT/nearest.jsonl`` adds MiniLM's term)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

SETS: dict[str, dict[str, str]] = {
    "train": {
        "pallets/flask": "2ac89889",
        "pallets/werkzeug": "1b00618e",
        "pallets/jinja": "5ef70112",
        "python-attrs/attrs": "c1dc5dcb",
        "simonw/sqlite-utils": "56dd0970",
        "simonw/llm": "f3f4f29c",
        "encode/starlette": "cb8f84f5",
        "encode/httpcore": "98209758",
        "psf/black": "8947c48e",
        "fastapi/typer": "9a7b2e83",
        "hynek/structlog": "025edaf7",
        "marshmallow-code/marshmallow": "341b927f",
    },
    "judged": {
        "pallets/click": "2c8cd3ac",
        "encode/httpx": "ae1b9f66",
        "psf/requests": "1f6589ec",
        "Textualize/rich": "42899d8a",
    },
    "confirm": {
        "encode/uvicorn": "e6c7ce79",
        "pytest-dev/pluggy": "e382e727",
        "rq/rq": "aa666a8a",
    },
}
MEMGRAPH_AT = "be2cd5f"  # this project's figure of record in s36 (409 commits)
BENCH = Path(__file__).resolve().parent / "bench_repo_localise.py"
FLAGS = ["--weights", "", "--history-weights", "", "--history-windows", ""]


def dump(repo: str, commits: int, out: Path) -> bool:
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(BENCH), "--max-commits", str(commits), "--repo", repo]
    env = dict(os.environ, MG_BENCH_SEMANTIC="0")  # the learn35 dumps: no MiniLM columns
    with out.with_suffix(".out").open("w", encoding="utf-8") as log:
        done = subprocess.run([*cmd, "--dump", str(out), *FLAGS], stdout=log, stderr=log, env=env)
    if done.returncode:
        print(f"{repo}: the bench failed, see {out.with_suffix('.out')}", file=sys.stderr)
    return done.returncode == 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--only", default="train,judged,confirm,memgraph")
    args = ap.parse_args()
    wanted = set(args.only.split(","))
    failed = 0
    if "memgraph" in wanted:
        here = Path(__file__).resolve().parents[1]
        failed += not dump(f"{here}@{MEMGRAPH_AT}", 500, args.out / "judged" / "memgraph.jsonl")
    for name, repos in SETS.items():
        if name not in wanted:
            continue
        for slug, sha in repos.items():
            mirror = args.mirrors / slug.replace("/", "+") / "repo"
            if not mirror.is_dir():
                print(f"{slug}: no mirror at {mirror} (fetch github:{slug})", file=sys.stderr)
                failed += 1
                continue
            out = args.out / name / f"{slug.replace('/', '+')}.jsonl"
            failed += not dump(f"{mirror}@{sha}", 200, out)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
