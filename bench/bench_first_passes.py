"""First passes over a large vault, each command a whole process (vault39).

    python bench/bench_first_passes.py                       # 2,000 pages, this tree
    python bench/bench_first_passes.py --pages 500 --old main  # beside main, same run

Builds a vault and store with ``bench/gen_vault.py --words natural`` once, then for
each tree (this one, and ``--old REF`` exported with ``git archive``) copies it and
runs, in order, ``classify --now``, ``windows``, ``render`` and ``sleep --now -q``
with the embedder off, the trees taking turns command by command so both see the
same load. ``python -c pass`` is timed beside them as the reference. Prints wall and
CPU seconds (user + system of the process), then whether the trees left the same
vault files (``log.md`` compared without its times).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [["classify", "--now"], ["windows"], ["render"], ["sleep", "--now", "-q"]]
_LOG_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\dZ")


def run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str, int]:
    """(wall s, cpu s, last output line, exit code) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return wall, cpu, (lines[-1] if lines else "")[:90], done.returncode


def vault_digest(vault: Path) -> dict[str, str]:
    out = {}
    for path in sorted(p for p in vault.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name == "log.md":  # its lines carry the time of the write
            data = _LOG_TIME.sub("T", data.decode("utf-8")).encode("utf-8")
        out[str(path.relative_to(vault))] = hashlib.sha256(data).hexdigest()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--old", help="a git ref to time beside this tree (e.g. main)")
    ap.add_argument("--out", type=Path, help="work folder (default: a temporary one)")
    args = ap.parse_args(argv)
    work = args.out or Path(tempfile.mkdtemp(prefix="mg-first-passes-"))
    base = work / "base"
    if not (base / "home" / "memgraph.db").exists():
        gen = [sys.executable, str(ROOT / "bench" / "gen_vault.py"), "--out", str(base)]
        gen += ["--pages", str(args.pages), "--words", "natural"]
        subprocess.run(gen, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    trees = {"new": ROOT}
    if args.old:
        old = work / "old-tree"
        if not old.exists():
            old.mkdir(parents=True)
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", args.old], check=True, capture_output=True
            )
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        trees = {args.old: old, "new": ROOT}
    envs: dict[str, dict[str, str]] = {}
    for name, tree in trees.items():
        packages = [str(tree / p) for p in ("memgraph", "profiles", "context_cut")]
        subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=False)
        copy = work / f"run-{name.replace('/', '_')}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(base, copy, symlinks=True)
        (copy / "h").mkdir()
        envs[name] = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "HOME": str(copy / "h"),
            "MEMGRAPH_HOME": str(copy / "home"),
            "MEMGRAPH_VAULT": str(copy / "vault"),
            "MEMGRAPH_EMBEDDER": "none",
        }
    print(f"vault: {args.pages} pages; load before: {os.getloadavg()[0]:.2f}")
    print("| command | tree | wall s | cpu s | last line |\n|---|---|---|---|---|")
    for argv in [["-c", "pass"], *[["-m", "memgraph.cli", *c] for c in COMMANDS]]:
        for name, env in envs.items():
            copy = Path(env["HOME"]).parent
            wall, cpu, last, code = run([sys.executable, *argv], env, copy)
            shown = "python -c pass" if argv[0] == "-c" else " ".join(argv[2:])
            status = "" if code == 0 else f" (exit {code})"
            print(f"| `{shown}` | {name} | {wall:.2f} | {cpu:.2f} | {last}{status} |", flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    if len(envs) == 2:
        a, b = (vault_digest(Path(env["MEMGRAPH_VAULT"])) for env in envs.values())
        print(f"vault files identical: {'yes' if a == b else 'NO'} ({len(b)} files)")
    print(f"work folder: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
