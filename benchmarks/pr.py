"""A pull-request scan: a 1-line change in a large repository with long history, against
the same change in a tiny repository.

Run from the project root: ``python benchmarks/pr.py [--commits N] [--files F] [--repeat R]``.

Both repositories get the same last commit, one added line holding a candidate value
(made at run time), and both are scanned with ``thresher scan --diff HEAD~1..HEAD
--escalate never``. The tiny repository (one file, one commit) is the floor: process
start-up and imports. The large one is ``benchmarks/synthrepo.py`` with 8,000 commits
and 2,000 files by default. A --diff scan reads only the range's own commits and the
changed files at the base, so the large repository should cost about the same.

Prints both medians and their ratio; exit status 1 above the target (1.5x).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import synthrepo

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5


def scan_seconds(repo: Path, workdir: Path) -> tuple[float, str]:
    argv = [sys.executable, "-m", "thresher", "scan", "--root", str(repo), "--diff",
            "HEAD~1..HEAD", "--escalate", "never", "--fail-on", "never"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"thresher scan of {repo} failed:\n{done.stderr[-2000:]}")
    output = done.stdout + done.stderr
    if "1 finding(s)" not in output:
        raise SystemExit(f"expected one finding in {repo}:\n{output[-2000:]}")
    history = next((ln for ln in output.splitlines() if ln.startswith("history:")), "")
    return seconds, history


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=8000)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="thresher-pr-bench-"))
    try:
        started = time.perf_counter()
        large = synthrepo.build(
            base / "large", synthrepo.Shape(args.commits, 40, filler_files=args.files)
        )
        small = synthrepo.tiny(base / "tiny")
        line = f'API_KEY_PR = "{synthrepo.secret(random.Random(7))}"\n'
        synthrepo.commit_line(large, "config/settings_0.py", line)
        synthrepo.commit_line(small, "app.py", line)
        built = time.perf_counter() - started
        print(f"repositories built in {built:.1f} s: {args.commits} commits and "
              f"{args.files} files, and one file, one commit")  # fmt: skip
        (base / "work").mkdir()
        times: dict[str, list[float]] = {"large": [], "tiny": []}
        notes: dict[str, str] = {}
        for _ in range(args.repeat):  # taking turns, so a busy machine slows both alike
            for name, repo in (("large", large), ("tiny", small)):
                seconds, notes[name] = scan_seconds(repo, base / "work")
                times[name].append(seconds)
    finally:
        synthrepo.remove(base)
    large_s, tiny_s = statistics.median(times["large"]), statistics.median(times["tiny"])
    ratio = large_s / tiny_s
    print(f"1-line --diff scan, large repository  median {large_s:6.2f} s  ({notes['large']})")
    print(f"1-line --diff scan, tiny repository   median {tiny_s:6.2f} s  ({notes['tiny']})")
    print(f"ratio                                        {ratio:6.2f}x  (target <= {TARGET:g}x)")
    print("PASS" if ratio <= TARGET else "FAIL: above the target")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
