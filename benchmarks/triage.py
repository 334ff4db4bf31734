"""Triage throughput: ``thresher triage`` alerts per minute against the loopback fake
GitHub API, with the offline models (no LLM, no network).

Run from the project root: ``python benchmarks/triage.py`` (quick: 40 and 200 alerts,
about a minute on two cores), ``--full`` (200 and 1000 alerts, a few minutes), or choose
``--sizes 200,1000 --repos 10 --runs 3 --concurrency 4``.

Each run is the real command, ``python -m thresher triage --org bench ...``, in a child
process with this checkout's ``src`` first on its path and a fresh state database (so
every alert is gathered and decided, none reused from an earlier run). The fake GitHub
API runs in this process (``tests/fakes/github.py``): paginated org listing, locations,
contents, issue comments, all over loopback HTTP through PyGithub. The organisation is
``tests/triage/orgworld.py``'s: per repository, two vendored fixtures shared by the whole
org (one context), one value shared across repositories in a script of its own, and the
rest distinct (test fixtures, live-format config tokens, issue comments).

Wall time includes start-up (importing thresher and PyGithub, loading the scorer) and
writing the JSON report. Prints, per size, the median wall time of ``--runs`` runs, the
thresher process's CPU time (steadier than wall time on a shared machine) and alerts per
minute (from wall time), then the ratio of the larger size's throughput to the smaller's (near
1.0: triage time grows linearly with the number of alerts; above 1.0: the fixed start-up
cost is spread over more alerts). Exit status 1 when a run fails or misses an alert.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This checkout's code, and the loopback fakes of its test suite.
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.fakes.github import GitHubFake  # noqa: E402
from tests.fakes.github_world import GitHubWorld  # noqa: E402
from tests.triage.orgworld import OrgPlan, populate  # noqa: E402

TOKEN = "ghs_" + "B" * 36
ORG = "bench"


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(server: GitHubFake, plan: OrgPlan, concurrency: int, work: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one complete triage of the org, checked for completeness."""
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "PYTHONPATH": str(ROOT / "src"),
        "GITHUB_TOKEN": TOKEN,
        "LANG": "C.UTF-8",
    }
    command = [
        sys.executable,
        "-m",
        "thresher",
        "--quiet",
        "triage",
        "--org",
        ORG,
        "--api-url",
        server.base_url,
        "--state-db",
        str(work / "state.db"),
        "--concurrency",
        str(concurrency),
        "--json",
        str(work / "report.json"),
    ]
    cpu = _child_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    cpu = _child_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(
            f"thresher triage exited {done.returncode}:\n{done.stderr.decode()[-2000:]}"
        )
    report = json.loads((work / "report.json").read_text())
    seen = {f"{a['repo']}#{a['number']}" for a in report["alerts"]}
    if seen != plan.alerts or any(a["decision"] is None for a in report["alerts"]):
        raise SystemExit(f"the report misses alerts: {len(seen)} of {len(plan.alerts)}")
    return seconds, cpu


def measure(size: int, repos: int, runs: int, concurrency: int) -> tuple[float, float, int]:
    """Median wall and CPU seconds over ``runs`` runs for ``size`` alerts, and the count."""
    per_repo = max(4, round(size / repos))
    world = GitHubWorld()
    world.add_token(TOKEN)
    plan = populate(world, org=ORG, repos=repos, per_repo=per_repo)
    times: list[float] = []
    cpus: list[float] = []
    with GitHubFake(world) as server, tempfile.TemporaryDirectory(prefix="thresher-bench-") as tmp:
        for index in range(runs):
            work = Path(tmp) / f"run-{index}"
            work.mkdir()
            seconds, cpu = one_run(server, plan, concurrency, work)
            times.append(seconds)
            cpus.append(cpu)
            server.reset()  # keep the world, forget the captured requests
    return statistics.median(times), statistics.median(cpus), len(plan.alerts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="40,200", help="alert counts, comma-separated")
    parser.add_argument("--full", action="store_true", help="the sizes 200 and 1000")
    parser.add_argument("--repos", type=int, default=10, help="repositories in the org")
    parser.add_argument("--runs", type=int, default=3, help="runs per size (median)")
    parser.add_argument("--concurrency", type=int, default=4, help="thresher --concurrency")
    args = parser.parse_args(argv)
    sizes = [200, 1000] if args.full else [int(p) for p in args.sizes.split(",") if p.strip()]
    rates: list[float] = []
    print(f"thresher triage, offline models, loopback fake GitHub API, {args.repos} repos")
    for size in sizes:
        seconds, cpu, alerts = measure(size, args.repos, args.runs, args.concurrency)
        rate = alerts / seconds * 60.0
        rates.append(rate)
        print(
            f"{alerts:6d} alerts: median {seconds:6.2f}s wall ({cpu:6.2f}s CPU in thresher) "
            f"of {args.runs} runs, {rate:6.0f} alerts/min"
        )
    if len(rates) >= 2:
        print(f"throughput ratio {sizes[-1]}/{sizes[0]}: {rates[-1] / rates[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
