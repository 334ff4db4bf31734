"""Offline triage, end to end, against ``detect-secrets scan --all-files`` on the same tree.

Run from the project root: ``python benchmarks/offline.py [--corpus DIR] [--repos N |
--full] [--runs N] [--sample N]``, with the interpreter thresher is installed for (its
``detect-secrets`` CLI is the one beside it). This checkout's ``src/`` is the one timed.

The tree is the dev corpus's ``files/`` directory (``../shared/corpus/dev``), copied to a
temporary directory: by default its first ``--repos`` repositories (a quick run), with
``--full`` all of them, the tree the issue's target is stated on. Each run times

* ``detect-secrets scan --all-files`` in the tree (the baseline), and
* ``thresher scan --root TREE --escalate never`` (candidates, scorer and every decision,
  written to a run directory), in a fresh process,

and prints the medians, thresher's decisions per second, and the ratio (target: at most
0.25x detect-secrets). A run of many findings is decided in worker processes, one per
core (``thresher.tribunal.parallel``): on a machine other work shares, both tools' wall
times move with the load, and the ratio with them. Then, in process, on ``--sample``
findings, the heuristic panel replayed through three agent sessions (what every finding
cost before the offline path) against the offline panel that replaced it, per finding,
and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_RATIO = 0.25
DEFAULT_REPOS = 25


def build_tree(corpus: Path, dest: Path, repos: int | None) -> tuple[int, int]:
    files = corpus / "files"
    if not files.is_dir():
        sys.exit(f"error: {corpus}: no files/ directory (pass --corpus)")
    chosen = sorted(p for p in files.iterdir() if p.is_dir())
    for repo in chosen[:repos] if repos is not None else chosen:
        shutil.copytree(repo, dest / repo.name, symlinks=True)
    count = sum(1 for p in dest.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    return count, size


def env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep + path if path else ''}"}


def time_detect_secrets(tree: Path) -> float:
    cli = Path(sys.executable).with_name("detect-secrets")
    started = time.perf_counter()
    subprocess.run(
        [str(cli), "scan", "--all-files"], cwd=tree, check=True, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - started


def time_thresher(tree: Path, work: Path) -> tuple[float, int, list[float]]:
    """Wall time, decisions, and the offline panel's per-finding milliseconds."""
    command = [sys.executable, "-m", "thresher", "scan", "--root", str(tree)]
    command += ["--escalate", "never", "--fail-on", "never", "--json", str(work / "r.json")]
    started = time.perf_counter()
    subprocess.run(
        command, cwd=work, env=env(), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    seconds = time.perf_counter() - started
    decisions = len(json.loads((work / "r.json").read_text())["decisions"])
    records = list((work / ".thresher" / "runs").glob("*/offline.jsonl"))
    millis = [
        float(json.loads(line)["milliseconds"])
        for path in records
        for line in path.read_text().splitlines()
    ]
    shutil.rmtree(work / ".thresher", ignore_errors=True)
    return seconds, decisions, millis


def compare_panels(tree: Path, sample: int, work: Path) -> tuple[float, float, int]:
    """Median ms per finding: the heuristic replayed through sessions vs the offline panel."""
    sys.path.insert(0, str(ROOT / "src"))
    from thresher.agents.sessions import SessionFactory
    from thresher.agents.workspace import Workspace
    from thresher.config.settings import AgentName, Settings
    from thresher.heuristic.model import HeuristicModel
    from thresher.redaction.redactor import Redactor
    from thresher.scan.assess import assess, is_public_word
    from thresher.scoring.model import shipped_scorer
    from thresher.sources.scan import ScanOptions, scan
    from thresher.tribunal.tribunal import Tribunal, TribunalOptions

    result = scan(ScanOptions(root=tree))
    scorer = shipped_scorer()
    assessments = assess(result, tree, scorer)
    redactor = Redactor(v for v in result.vault.values() if not is_public_word(v))
    factory = SessionFactory(
        settings=Settings(),
        redactor=redactor,
        workspace=Workspace(tree, value_for=result.vault.get, redact=redactor.text),
        transcripts_dir=work / "transcripts",
    )
    models = dict.fromkeys(AgentName, HeuristicModel())
    tribunal = Tribunal(
        factory, models, TribunalOptions(), assessments=assessments, scorer=scorer,
        offline_record=work / "offline.jsonl",
    )  # fmt: skip
    findings = result.findings[:sample]
    sessions: list[float] = []
    direct: list[float] = []
    for finding in findings:
        value = result.vault.get(finding.id)
        validations = tuple(factory.validators.validate(value, finding)) if value else ()
        call, _ = tribunal.offline(finding, validations)
        context = (assessments.get(finding.id), call)
        started = time.perf_counter()
        asyncio.run(
            tribunal.session_panel(
                finding, value, tribunal.heuristic_models(), "heuristic", analyses=1,
                offline=context,
            )
        )  # fmt: skip
        sessions.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        tribunal.offline_panel.decide(finding, value, validations, context)
        direct.append((time.perf_counter() - started) * 1000)
    if not findings:
        return 0.0, 0.0, 0
    return statistics.median(sessions), statistics.median(direct), len(findings)


PARALLEL_FROM = 256  # thresher.tribunal.parallel.PARALLEL_FROM, without importing thresher


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "dev")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--repos", type=int, default=DEFAULT_REPOS, help="first N repositories")
    size.add_argument("--full", action="store_true", help="the whole corpus tree")
    parser.add_argument("--runs", type=int, default=3, help="runs of each tool (median)")
    parser.add_argument("--sample", type=int, default=40, help="findings for the panel check")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="thresher-offline-") as temp:
        tree, work = Path(temp) / "tree", Path(temp) / "work"
        tree.mkdir()
        work.mkdir()
        files, size_bytes = build_tree(args.corpus, tree, None if args.full else args.repos)
        print(f"tree: {files} files, {size_bytes / 1e6:.1f} MB ({args.corpus}/files)")
        baseline, ours, decided, millis = [], [], 0, []
        for _ in range(max(1, args.runs)):
            baseline.append(time_detect_secrets(tree))
            seconds, decided, millis = time_thresher(tree, work)
            ours.append(seconds)
        ds, th = statistics.median(baseline), statistics.median(ours)
        ratio = th / ds if ds else float("inf")
        print(f"detect-secrets scan --all-files: median {ds:.2f} s over {len(baseline)} run(s)")
        print(
            f"thresher scan --escalate never:  median {th:.2f} s over {len(ours)} run(s), "
            f"{decided} decisions, {decided / th:.0f} decisions/s end to end"
        )
        if millis:
            print(
                f"offline panel (offline.jsonl): median {statistics.median(millis):.2f} ms, "
                f"total {sum(millis) / 1000:.2f} s for {len(millis)} findings (summed over "
                f"the worker processes of a run of {PARALLEL_FROM}+ findings on "
                f"{os.cpu_count()} core(s))"
            )
        print(f"ratio thresher / detect-secrets: {ratio:.2f}x (target <= {TARGET_RATIO}x)")
        if hasattr(os, "getloadavg"):  # other work on the machine moves both wall times
            print(f"load average (1 min) at the end: {os.getloadavg()[0]:.2f}")
        if args.sample > 0:
            replayed, direct, count = compare_panels(tree, args.sample, work)
            if count:
                print(
                    f"heuristic panel per finding ({count} findings): replayed through sessions "
                    f"median {replayed:.1f} ms, offline panel {direct:.1f} ms, "
                    f"{replayed / direct if direct else float('inf'):.1f}x faster"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
