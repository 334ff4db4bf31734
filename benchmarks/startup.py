"""Start-up cost of ``thresher --help`` against bare interpreter start.

Run: ``python benchmarks/startup.py [--runs N]`` from the environment thresher is
installed in. Prints the median wall time of each command over N runs (default
15, minimum 10), the difference and the ratio; the target is a difference of at
most 0.3 s. Exit status 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_SECONDS = 0.3


def median_wall_time(command: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def thresher_command() -> list[str]:
    beside = Path(sys.executable).with_name("thresher")
    found = str(beside) if beside.exists() else shutil.which("thresher")
    if found is None:
        sys.exit("thresher is not installed in this environment (pip install -e .)")
    return [found, "--help"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    runs = max(10, args.runs)
    command = thresher_command()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)  # warm the file cache
    bare = median_wall_time([sys.executable, "-c", "pass"], runs)
    help_time = median_wall_time(command, runs)
    delta = help_time - bare
    print(f"runs per command:         {runs}")
    print(f"python -c pass (median):  {bare:.3f} s")
    print(f"thresher --help (median): {help_time:.3f} s")
    print(f"difference:               {delta:.3f} s (target <= {TARGET_SECONDS:.1f} s)")
    print(f"ratio:                    {help_time / bare:.1f}x")
    return 0 if delta <= TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
