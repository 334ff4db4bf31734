"""Candidate scanning: thresher's ``scan()`` against ``detect-secrets scan --all-files``.

Run: ``python benchmarks/scan.py [--tree DIR] [--limit-mb N] [--workers N] [--keep]``
from the environment thresher is installed in (its ``detect-secrets`` CLI is
the one beside the interpreter).

Both tools scan the identical tree: a temporary copy of the ``.py`` files of
the installed Python standard library (a fixed shuffle, so the sample spans
the whole library and its tests), up to ``--limit-mb`` MB (default 8), or of
``--tree DIR``. Binary and oversized files are left out of the copy, since
thresher skips them by design. thresher's time includes importing the scanner.

Prints both wall times, their ratio, and whether both found the same set of
(file, line, type), with the differences if not. thresher's own rules run too (they
are part of the scan's cost) and are counted apart: the comparison is of the
detect-secrets source alone; ``--no-rules`` times the scan without them. Exit status 1
when the sets differ or thresher is less than 5x faster.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

TARGET_SPEEDUP = 5.0
DEFAULT_LIMIT_MB = 8.0
MIN_TREE_MB = 5.0
MAX_FILE_BYTES = 2 * 1024 * 1024
SNIFF_BYTES = 8192
SHOWN_DIFFERENCES = 50

Hit = tuple[str, int, str]


def stdlib_sources() -> tuple[Path, list[Path]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    skip = {"site-packages", "dist-packages", "__pycache__"}
    files = sorted(
        p for p in root.rglob("*.py") if p.is_file() and not skip & set(p.relative_to(root).parts)
    )
    return root, files


def tree_sources(tree: Path) -> tuple[Path, list[Path]]:
    files = sorted(
        p
        for p in tree.rglob("*")
        if p.is_file() and not p.is_symlink() and ".git" not in p.relative_to(tree).parts
    )
    return tree, files


def build_tree(
    dest: Path, root: Path, files: list[Path], limit: float | None
) -> tuple[int, int, int]:
    """Copy files until ``limit`` bytes; returns (files, bytes, left out)."""
    if limit is not None:
        files = list(files)
        random.Random(0).shuffle(files)
    copied = total = excluded = 0
    for source in files:
        if limit is not None and total >= limit:
            break
        data = source.read_bytes()
        if len(data) > MAX_FILE_BYTES or b"\x00" in data[:SNIFF_BYTES]:
            excluded += 1
            continue
        target = dest / source.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        copied += 1
        total += len(data)
    return copied, total, excluded


def run_thresher(
    tree: Path, workers: int | None, *, rules: bool = True
) -> tuple[float, set[Hit], int, int]:
    """Seconds, detect-secrets-source hits, findings, and hits of thresher's own rules.
    The screen (``findings.screen``) is off: the comparison is of the raw detectors."""
    started = time.perf_counter()
    from thresher.findings.detection import Origin
    from thresher.sources.scan import ScanOptions, scan

    result = scan(ScanOptions(root=tree, workers=workers, builtin_rules=rules, screen=False))
    elapsed = time.perf_counter() - started
    ours = {(c.path, c.line, c.type) for c in result.candidates if c.origin is not Origin.RULES}
    own = sum(1 for c in result.candidates if c.origin is Origin.RULES)
    return elapsed, ours, len(result.findings), own


def run_detect_secrets(tree: Path) -> tuple[float, set[Hit]]:
    beside = Path(sys.executable).with_name("detect-secrets")
    command = str(beside) if beside.exists() else shutil.which("detect-secrets")
    if command is None:
        sys.exit("detect-secrets is not installed in this environment")
    started = time.perf_counter()
    proc = subprocess.run(
        [command, "scan", "--all-files"], cwd=tree, capture_output=True, text=True, check=True
    )
    elapsed = time.perf_counter() - started
    results = json.loads(proc.stdout)["results"]
    hits = {
        (name, item["line_number"], item["type"])
        for name, items in results.items()
        for item in items
    }
    return elapsed, hits


def show(title: str, hits: set[Hit]) -> None:
    print(f"  {title} ({len(hits)}):")
    for hit in sorted(hits)[:SHOWN_DIFFERENCES]:
        print(f"    {hit[0]}:{hit[1]}  {hit[2]}")
    if len(hits) > SHOWN_DIFFERENCES:
        print(f"    ... and {len(hits) - SHOWN_DIFFERENCES} more")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="scan a copy of this tree instead of the stdlib")
    parser.add_argument(
        "--limit-mb",
        type=float,
        help=f"copy at most this much (stdlib default {DEFAULT_LIMIT_MB:g})",
    )
    parser.add_argument(
        "--workers", type=int, help="thresher worker processes (default: every core)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary tree")
    parser.add_argument(
        "--no-rules", action="store_true", help="leave thresher's own rules out of the scan"
    )
    args = parser.parse_args()

    if args.tree is not None:
        root, files = tree_sources(args.tree.resolve())
        limit_mb = args.limit_mb
    else:
        root, files = stdlib_sources()
        limit_mb = args.limit_mb if args.limit_mb is not None else DEFAULT_LIMIT_MB
    limit = None if limit_mb is None else limit_mb * 1024 * 1024

    workdir = Path(tempfile.mkdtemp(prefix="thresher-bench-"))
    tree = workdir / "tree"
    tree.mkdir()
    try:
        copied, total, excluded = build_tree(tree, root, files, limit)
        megabytes = total / (1024 * 1024)
        print(f"tree:                     {tree}")
        print(f"  source:                 {root}")
        left_out = f"{excluded} binary/oversized left out"
        print(f"  files:                  {copied} ({megabytes:.1f} MB; {left_out})")
        print(f"  cores:                  {os.cpu_count()}")
        if megabytes < MIN_TREE_MB:
            print(f"  note: under {MIN_TREE_MB:g} MB of text; timings are less telling")

        ours, our_hits, findings, own = run_thresher(tree, args.workers, rules=not args.no_rules)
        print(f"thresher scan():          {ours:.2f} s ({findings} findings)")
        print(f"  thresher's own rules:   {'off' if args.no_rules else f'{own} hits'}")
        theirs, their_hits = run_detect_secrets(tree)
        print(f"detect-secrets scan:      {theirs:.2f} s")
        speedup = theirs / ours if ours > 0 else float("inf")
        print(f"speed-up:                 {speedup:.1f}x (target >= {TARGET_SPEEDUP:g}x)")
        same = our_hits == their_hits
        verdict = "yes" if same else "NO"
        print(f"same (file, line, type):  {verdict} ({len(their_hits)} from detect-secrets)")
        if not same:
            show("only thresher", our_hits - their_hits)
            show("only detect-secrets", their_hits - our_hits)
        return 0 if same and speedup >= TARGET_SPEEDUP else 1
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
