"""Tribunal throughput: LLM-tribunal concurrency efficiency, and offline decisions per second.

Run from the project root: ``python benchmarks/tribunal.py [--runs N] [--latency S] [--full]``
(``--quick`` is the tiny smoke run the test suite uses). Default: well under two minutes.

**Concurrency.** Every finding of a generated git repository goes through the real
tribunal (``Tribunal`` with a real ``SessionFactory``, workspace, validators and
transcripts; ``--escalate all``): the heuristic panel, then analysis, challenger and
judge on ``openai:gpt-4.1`` served by a loopback OpenAI fake that plays each agent over
the wire (``tests/agent_emulator.py``) and answers every request after a fixed latency
(200 ms by default). Efficiency is the ideal time -- requests x latency / concurrency --
divided by the measured time, at concurrency 1 (the baseline) and 8 (the target is at
least 80%). A finding's six requests form a chain (analysis, challenger, judge, two
turns each), so only findings overlap, as ``--concurrency`` promises.

**Offline.** ``thresher scan --escalate never`` in a subprocess on a generated tree of
candidates, against the same command on the tree without them (start-up, scan and
report floor): decisions per second overall and net of that floor.

Prints medians of ``--runs`` runs (default 3). Exit status 1 when efficiency at the
highest concurrency is below the target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# This checkout's code, and the loopback fakes of its test suite.
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.agent_emulator import emulate  # noqa: E402
from tests.fakes.servers import OpenAIFake  # noqa: E402
from tests.fakes.wire import CapturedRequest, Reply  # noqa: E402
from tests.tokens import github_token  # noqa: E402

from thresher.agents.registry import build_models  # noqa: E402
from thresher.agents.sessions import SessionFactory  # noqa: E402
from thresher.agents.workspace import Workspace  # noqa: E402
from thresher.config.settings import AgentName, AgentSettings, ProviderSettings, Settings  # noqa: E402
from thresher.names import ProviderName  # noqa: E402
from thresher.redaction.redactor import Redactor  # noqa: E402
from thresher.scoring.policy import Escalate  # noqa: E402
from thresher.sources.scan import ScanOptions, scan  # noqa: E402
from thresher.tribunal.decisions import DecidedBy, Decision  # noqa: E402
from thresher.tribunal.tribunal import Tribunal, TribunalOptions  # noqa: E402

TARGET_EFFICIENCY = 0.80
SPEC = "openai:gpt-4.1"
KEY_ENV = {"OPENAI_API_KEY": "loopback-benchmark-key"}


@dataclass(frozen=True)
class Size:
    """How much work one configuration does; findings per concurrency level."""

    findings: dict[int, int]
    offline_files: int


# Several rounds of findings at concurrency 8: a round's six-request chain cannot be
# shorter than 1.2 s, so a single round measures the chain, not the overlap.
DEFAULT = Size(findings={1: 3, 8: 40}, offline_files=40)
FULL = Size(findings={1: 8, 8: 160}, offline_files=400)
QUICK = Size(findings={1: 1, 8: 2}, offline_files=2)


def git(root: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def commit_all(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "generated")


def token_repo(root: Path, count: int) -> Path:
    """``count`` service modules, each holding one generated GitHub token."""
    (root / "app").mkdir(parents=True)
    for i in range(count):
        lines = [f"# service {i}", "import os", "", f'GITHUB_TOKEN = "{github_token(seed=i)}"']
        (root / "app" / f"service_{i}.py").write_text("\n".join(lines) + "\n")
    commit_all(root)
    return root


def _random(rng: random.Random, length: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(length))


def candidate_tree(root: Path, files: int, *, candidates: bool) -> Path:
    """Config-like and source files; with ``candidates``, three secret-shaped values each
    (a keyword assignment, a token, a placeholder), else the same lines without them."""
    rng = random.Random(files)
    for i in range(files):
        folder = root / ("config" if i % 3 == 0 else "src") / f"pkg{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"# module {i}", "import logging", "LOG = logging.getLogger(__name__)"]
        if candidates:
            lines += [
                f'DB_PASSWORD = "{_random(rng, 20)}"',
                f'GITHUB_TOKEN = "{github_token(seed=1000 + i)}"',
                'API_KEY = "your-api-key-here"',
            ]
        else:
            lines += ['DB_HOST = "localhost"', "RETRIES = 3", 'MODE = "fast"']
        (folder / f"settings_{i}.py").write_text("\n".join(lines) + "\n")
    commit_all(root)
    return root


def serve(latency: float) -> None:
    """The fake model, in its own process as a provider would be: its request parsing
    and JSON encoding must not compete with the tribunal for this process's GIL. Prints
    its base URL, then serves until its standard input closes.

    Nagle's algorithm is off, as on a provider's front end: the fake writes headers and
    body separately, and the client's delayed ACK would add 40 ms to every answer."""
    from tests.fakes.transport import _Handler

    _Handler.disable_nagle_algorithm = True
    with OpenAIFake() as server:
        emulate(server)
        play = server.responder
        assert play is not None

        def respond(request: CapturedRequest, index: int) -> Reply:
            return play(request, index).with_delay(latency)

        server.responder = respond
        print(server.api_base, flush=True)
        sys.stdin.read()


@contextmanager
def fake_model(latency: float) -> Iterator[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path[:2])}
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", str(latency)]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            base = proc.stdout.readline().strip()
            if not base.startswith("http://127.0.0.1:"):
                sys.exit("the fake model server did not start")
            yield base
        finally:
            proc.stdin.close()
            proc.wait(timeout=10)


def llm_run(repo: Path, api_base: str, concurrency: int, work: Path) -> tuple[float, int, float]:
    """One tribunal over every finding of ``repo``: (seconds, provider requests sent, CPU
    seconds of this process -- the loop and the tool threads -- meanwhile)."""
    result = scan(ScanOptions(root=repo))
    settings = Settings(
        agents={agent: AgentSettings(model=SPEC) for agent in AgentName},
        providers={ProviderName.OPENAI: ProviderSettings(base_url=api_base)},
    )
    models = build_models(dict.fromkeys(AgentName, SPEC), settings, KEY_ENV)
    redactor = Redactor(result.vault.values())
    factory = SessionFactory(
        settings=settings,
        redactor=redactor,
        workspace=Workspace(repo, value_for=result.vault.get, redact=redactor.text),
        transcripts_dir=work,
    )
    tribunal = Tribunal(
        factory, models, TribunalOptions(escalate=Escalate.ALL, concurrency=concurrency)
    )

    async def decide() -> list[Decision]:
        try:
            return await tribunal.decide_all(result.findings, result.vault.get)
        finally:
            for model in {id(m): m for m in models.values()}.values():
                await model.aclose()

    started, cpu = time.perf_counter(), time.process_time()
    decisions = asyncio.run(decide())
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    failed = [e.message for d in decisions for e in d.errors]
    if failed or not decisions or any(d.decided_by is DecidedBy.HEURISTIC for d in decisions):
        sys.exit(f"the LLM tribunal did not decide every finding: {failed[:3] or decisions}")
    return seconds, factory.run_meter.usage.requests, cpu


def concurrency_figures(size: Size, latency: float, runs: int, tmp: Path) -> float:
    print(f"LLM tribunal, fake model answering after {latency * 1000:.0f} ms (median of {runs})")
    print(f"{'concurrency':>11} {'findings':>8} {'requests':>8} {'ideal s':>8} "
          f"{'measured s':>10} {'efficiency':>10} {'findings/s':>10} "
          f"{'CPU ms/finding':>14}")  # fmt: skip
    efficiency = throughput = throughput_base = 0.0
    with fake_model(latency) as api_base:
        # Imports, skills, prompt templates and the scorer load once per process.
        llm_run(token_repo(tmp / "warm-up", 1), api_base, 1, tmp / "warm-up-transcripts")
        for concurrency, count in size.findings.items():
            repo = token_repo(tmp / f"llm-{concurrency}", count)
            samples = [
                llm_run(repo, api_base, concurrency, tmp / f"transcripts-{concurrency}-{run}")
                for run in range(runs)
            ]
            seconds = statistics.median(s for s, _, _ in samples)
            cpu = statistics.median(c for _, _, c in samples)
            requests = samples[0][1]
            ideal = requests * latency / concurrency
            efficiency = ideal / seconds
            throughput = count / seconds
            throughput_base = throughput_base or throughput
            print(f"{concurrency:>11} {count:>8} {requests:>8} {ideal:>8.2f} {seconds:>10.2f} "
                  f"{efficiency:>10.0%} {throughput:>10.2f} "
                  f"{cpu * 1000 / count:>14.0f}")  # fmt: skip
    print(f"speed-up of the last row over concurrency 1: {throughput / throughput_base:.1f}x "
          f"(target efficiency >= {TARGET_EFFICIENCY:.0%})")  # fmt: skip
    print(f"machine load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores: "
          "the tribunal's CPU work is serial, so other load lowers the figures")  # fmt: skip
    return efficiency


def thresher_scan(tree: Path, work: Path) -> tuple[float, int]:
    """``thresher scan --escalate never`` on ``tree``: (seconds, decisions)."""
    report = work / "report.json"
    config = work / "thresher.toml"
    config.write_text("")  # hermetic: not the operator's own configuration
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "THRESHER_CONFIG": str(config)}
    command = [sys.executable, "-m", "thresher", "scan", "--root", str(tree)]
    command += ["--escalate", "never", "--json", str(report)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"thresher scan failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, len(json.loads(report.read_text())["decisions"])


def offline_figures(size: Size, runs: int, tmp: Path) -> None:
    trees = {
        name: candidate_tree(tmp / f"tree-{name}", size.offline_files, candidates=name == "full")
        for name in ("full", "empty")
    }
    times: dict[str, float] = {}
    decisions = 0
    for name, tree in trees.items():
        work = tmp / f"work-{name}"
        work.mkdir()
        samples = [thresher_scan(tree, work) for _ in range(runs)]
        times[name] = statistics.median(s for s, _ in samples)
        decisions = max(decisions, samples[0][1]) if name == "full" else decisions
    net = times["full"] - times["empty"]
    print(f"\noffline tribunal: thresher scan --escalate never, {size.offline_files} files "
          f"(median of {runs})")  # fmt: skip
    print(f"  with candidates:    {times['full']:.2f} s, {decisions} decisions")
    print(f"  without (floor):    {times['empty']:.2f} s")
    print(f"  decisions/s:        {decisions / times['full']:.1f} overall, "
          f"{decisions / net if net > 0 else float('inf'):.1f} net of the floor")  # fmt: skip
    print(f"  ratio to the floor: {times['full'] / times['empty']:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2, help="fake model latency, seconds")
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)  # the fake model process
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--full", action="store_true", help="more findings, a larger tree")
    sizes.add_argument("--quick", action="store_true", help="tiny smoke run")
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return 0
    size = FULL if args.full else QUICK if args.quick else DEFAULT
    runs = max(1, args.runs)
    with tempfile.TemporaryDirectory(prefix="thresher-bench-") as tmp:
        efficiency = concurrency_figures(size, args.latency, runs, Path(tmp))
        offline_figures(size, runs, Path(tmp))
    return 0 if efficiency >= TARGET_EFFICIENCY or args.quick else 1


if __name__ == "__main__":
    raise SystemExit(main())
