"""Benchmark: what the repo cut's PACKET shows, not only how it ranks.

    python bench/bench_repo_packet.py REPO [--commits 150] [--budgets 1500,4000]
                                      [--limits 50] [--min-share 0.5]

``bench_repo_localise.py`` scores the cut's ranking. A reader gets the packet: modules
packed until the budget (after the output ceiling), some of them replaced by a package
summary that stands in for them. For the newest ``--commits`` non-merge commits of REPO
that touch 1-5 non-test source files still present (Python, TypeScript/JavaScript, Go,
Rust), query = the commit message,
truth = those files; per budget and candidate limit it reports the share of truth files

- shown: a module node in the packet (its path and file:line anchors), and
- shown or covered: that, or covered by a package summary in the packet.

The graph is REPO scanned once at its HEAD into a temp store (not each commit's parent:
this compares packing policies on one graph; ranking quality is the localisation
bench's job). ``--min-share`` sets ``context_cut.repo_cut.SUMMARY_MIN_SHARE`` for the
run (0 = a summary stands in whenever the old rule allowed it).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import context_cut.repo_cut as repo_cut_module
from context_cut.ceiling import fit_output
from context_cut.render import packet_lines
from context_cut.repo_cut import RepoCutRequest, repo_cut
from memgraph.documents.views import PacketView
from memgraph.store import open_store
from profiles.repo_scan.context import is_test
from profiles.repo_scan.graph import module_id
from profiles.repo_scan.scan import ScanRequest, scan_repo

SKIP_DIRS = ("tests/", "test/", "bench/", "scripts/", "docs/", "examples/")
SOURCE = (".py", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rs")


def commits(repo: Path, n: int) -> list[tuple[str, list[str]]]:
    log = subprocess.run(
        ["git", "-C", str(repo), "log", "--no-merges", "--format=%x1e%B%x1f", "--name-only"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows: list[tuple[str, list[str]]] = []
    for chunk in log.split("\x1e")[1:]:
        message, _, names = chunk.partition("\x1f")
        files = [
            f
            for f in names.split()
            if f.endswith(SOURCE)
            and not is_test(f)
            and not f.startswith(SKIP_DIRS)
            and (repo / f).is_file()
        ]
        if message.strip() and 1 <= len(files) <= 5:
            rows.append((message.strip(), files))
        if len(rows) >= n:
            break
    return rows


def render(packet: PacketView) -> str:
    return "\n".join(packet_lines(packet)) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--commits", type=int, default=150)
    ap.add_argument("--budgets", default="1500,4000")
    ap.add_argument("--limits", default="50")
    ap.add_argument("--min-share", type=float, default=repo_cut_module.SUMMARY_MIN_SHARE)
    ap.add_argument("--hot-ranks", type=int, default=repo_cut_module.HOT_RANKS)
    args = ap.parse_args()
    repo = args.repo.resolve()
    repo_cut_module.SUMMARY_MIN_SHARE = args.min_share
    repo_cut_module.HOT_RANKS = args.hot_ranks
    rows = commits(repo, args.commits)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "bench.db")
        t0 = time.perf_counter()
        scan_repo(store, ScanRequest(path=repo))
        print(f"{repo.name}: scanned in {time.perf_counter() - t0:.1f} s; {len(rows)} commits")
        print(f"min share {args.min_share}, hot ranks {args.hot_ranks}")
        for limit in (int(x) for x in args.limits.split(",")):
            for budget in (int(x) for x in args.budgets.split(",")):
                shown = covered = items = 0.0
                for message, files in rows:
                    request = RepoCutRequest(
                        text=message, repo_path=repo, budget_tokens=budget, limit=limit, voice=False
                    )
                    fitted, _ = fit_output(repo_cut(store, request).packet, render, budget)
                    paths = {str(n.attributes.get("path")) for n in fitted.nodes}
                    ids = {i for s in fitted.summaries for i in s.covers_node_ids}
                    truth = set(files)
                    under = {f for f in truth if module_id(repo.name, f) in ids}
                    shown += len(truth & paths) / len(truth)
                    covered += len(truth & (paths | under)) / len(truth)
                    items += len(fitted.nodes) + len(fitted.summaries)
                n = max(len(rows), 1)
                print(
                    f"limit {limit} budget {budget}: shown {shown / n:.3f} "
                    f"shown-or-covered {covered / n:.3f} items/packet {items / n:.1f}"
                )
        store.close()


if __name__ == "__main__":
    main()
