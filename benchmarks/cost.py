"""What an escalated finding costs: requests, input, cached and output tokens, compliance.

Run from the project root: ``python benchmarks/cost.py [--runs N] [--json FILE]``.

The demo workspace (``examples/generate.py``) is scanned end to end by ``thresher scan
--escalate all`` in a subprocess, with each agent on a different wire protocol served by a
loopback fake of the test suite: analysis on Anthropic Messages, challenger on OpenAI Chat
Completions, judge on Gemini generateContent (``--agents`` changes the assignment). Every
fake plays a diligent model (``tests/agent_emulator.py``: it loads every skill it is
offered, reads and validates the finding, then submits) and answers with the usage the
real provider would report: the prompt's size in tokens (bytes / 4) and what that
provider's prompt cache would have served (``tests/fakes/caching.py``: OpenAI and Gemini
cache the longest prefix seen before; Anthropic only what ``cache_control`` breakpoints ask
for).

Prints, per escalated finding, the requests, input tokens (cached ones included), cached
input tokens and output tokens of each agent and in all, as the fakes counted them, next
to what the JSON report's ``usage`` says, and every escalated finding's compliance score.
Targets: at most 8 requests and 75,000 input tokens per escalated finding, every
compliance score present and 1.0. Exit status 1 when a target is missed. Medians of
``--runs`` runs (default 1: the fakes are deterministic, the demo's values are not).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.agent_emulator import emulate_diligent  # noqa: E402
from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake  # noqa: E402
from tests.fakes.wire import CapturedRequest, Reply  # noqa: E402

MAX_REQUESTS = 8
MAX_INPUT_TOKENS = 75_000
AGENTS = ("analysis", "challenger", "judge")
MODELS = {
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai": "openai:gpt-4.1",
    "gemini": "gemini:gemini-2.5-pro",
}
KEYS = {
    "ANTHROPIC_API_KEY": "loopback-benchmark-key",
    "OPENAI_API_KEY": "loopback-benchmark-key",
    "GEMINI_API_KEY": "loopback-benchmark-key",
}

Fake = OpenAIFake | AnthropicFake | GeminiFake


@dataclass
class Tally:
    """What one fake served: requests and the usage it reported."""

    requests: int = 0
    input_tokens: int = 0  # cached and cache-written included, whatever the protocol
    cached_input_tokens: int = 0
    output_tokens: int = 0
    largest_request_bytes: int = 0

    def per(self, findings: int) -> Tally:
        n = max(1, findings)
        return Tally(
            round(self.requests / n, 1),  # type: ignore[arg-type]
            round(self.input_tokens / n),
            round(self.cached_input_tokens / n),
            round(self.output_tokens / n),
            self.largest_request_bytes,
        )


@dataclass
class RunFigures:
    findings: int
    escalated: int
    per_agent: dict[str, Tally]
    total: Tally
    compliance: list[float | None]
    report_usage: dict[str, Any] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def counted(server: Fake, tally: Tally) -> None:
    """Wrap the server's responder so every reply's usage is added to ``tally``."""
    play = server.responder
    assert play is not None

    def respond(request: CapturedRequest, index: int) -> Reply:
        reply = play(request, index)
        data = json.loads(reply.body)
        tally.requests += 1
        tally.largest_request_bytes = max(tally.largest_request_bytes, len(request.body))
        if isinstance(server, OpenAIFake):
            usage = data["usage"]
            tally.input_tokens += usage["prompt_tokens"]
            tally.cached_input_tokens += usage["prompt_tokens_details"]["cached_tokens"]
            tally.output_tokens += usage["completion_tokens"]
        elif isinstance(server, AnthropicFake):
            usage = data["usage"]
            read, written = usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]
            tally.input_tokens += usage["input_tokens"] + read + written
            tally.cached_input_tokens += read
            tally.output_tokens += usage["output_tokens"]
        else:
            usage = data["usageMetadata"]
            tally.input_tokens += usage["promptTokenCount"]
            tally.cached_input_tokens += usage.get("cachedContentTokenCount", 0)
            tally.output_tokens += usage["candidatesTokenCount"]
        return reply

    server.responder = respond


def config_text(assignment: dict[str, str], servers: dict[str, Fake]) -> str:
    lines = []
    for agent, protocol in assignment.items():
        lines += [f"[agents.{agent}]", f'model = "{MODELS[protocol]}"']
    for protocol, server in servers.items():
        base = server.api_base if isinstance(server, OpenAIFake) else server.base_url
        lines += [f"[providers.{protocol}]", f'base_url = "{base}"']
    return "\n".join(lines) + "\n"


def one_run(tree: Path, work: Path, assignment: dict[str, str]) -> RunFigures:
    servers: dict[str, Fake] = {
        "anthropic": AnthropicFake(),
        "openai": OpenAIFake(),
        "gemini": GeminiFake(),
    }
    tallies = {protocol: Tally() for protocol in servers}
    for protocol, server in servers.items():
        server.start()
        emulate_diligent(server)
        counted(server, tallies[protocol])
    try:
        config = work / "thresher.toml"
        config.write_text(config_text(assignment, servers))
        report = work / "report.json"
        env = {
            **os.environ,
            **KEYS,
            "PYTHONPATH": str(ROOT / "src"),
            "THRESHER_CONFIG": str(config),
        }
        command = [sys.executable, "-m", "thresher", "scan", "--root", str(tree)]
        command += ["--escalate", "all", "--json", str(report), "--fail-on", "never"]
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
        if done.returncode not in (0, 1, 3) or not report.exists():
            sys.exit(f"thresher scan failed ({done.returncode}): {done.stderr[-3000:]}")
    finally:
        for server in servers.values():
            server.stop()
    data = json.loads(report.read_text())
    escalated = [d for d in data["decisions"] if d.get("escalated")]
    compliance = [
        (e.get("compliance") or {}).get("score") for d in escalated for e in d.get("entries", [])
    ]
    if len(compliance) < len(escalated):
        compliance += [None] * (len(escalated) - len(compliance))
    per_agent = {agent: tallies[assignment[agent]] for agent in AGENTS}
    total = Tally()
    for tally in per_agent.values():
        total.requests += tally.requests
        total.input_tokens += tally.input_tokens
        total.cached_input_tokens += tally.cached_input_tokens
        total.output_tokens += tally.output_tokens
        total.largest_request_bytes = max(total.largest_request_bytes, tally.largest_request_bytes)
    errors = sorted({f"{e['stage']}: {e['error']}" for d in data["decisions"] for e in d["errors"]})
    return RunFigures(
        findings=len(data["decisions"]),
        escalated=len(escalated),
        per_agent=per_agent,
        total=total,
        compliance=compliance,
        report_usage=data["usage"],
        errors=errors,
    )


def demo_tree(dest: Path) -> Path:
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "generate.py"), str(dest)],
        check=True,
        capture_output=True,
    )
    return dest


def row(name: str, tally: Tally) -> str:
    return (
        f"{name:<12} {tally.requests:>9} {tally.input_tokens:>13,} "
        f"{tally.cached_input_tokens:>13,} {tally.output_tokens:>13,}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument(
        "--agents",
        default="anthropic,openai,gemini",
        help="protocols of analysis, challenger and judge (comma-separated)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    protocols = args.agents.split(",")
    if len(protocols) != 3 or any(p not in MODELS for p in protocols):
        parser.error(f"--agents: three of {', '.join(MODELS)}")
    assignment = dict(zip(AGENTS, protocols, strict=True))
    runs: list[RunFigures] = []
    with tempfile.TemporaryDirectory(prefix="thresher-cost-") as tmp:
        for run in range(max(1, args.runs)):
            work = Path(tmp) / f"run-{run}"
            work.mkdir()
            tree = demo_tree(Path(tmp) / f"tree-{run}")
            runs.append(one_run(tree, work, assignment))

    def median(pick: Any) -> int:
        return round(statistics.median(pick(r) for r in runs))

    last = runs[-1]
    escalated = median(lambda r: r.escalated)
    print(f"thresher scan --escalate all of the demo workspace: {last.findings} findings, "
          f"{escalated} escalated (median of {len(runs)} run(s))")  # fmt: skip
    print("agents: " + ", ".join(f"{a} on {MODELS[p]}" for a, p in assignment.items()))
    print(f"\nper escalated finding  {'requests':>9} {'input tokens':>13} "
          f"{'cached input':>13} {'output tokens':>13}")  # fmt: skip
    per_finding: dict[str, Tally] = {}
    for name in (*AGENTS, "total"):

        def pick(r: RunFigures, name: str = name) -> Tally:
            tally = r.total if name == "total" else r.per_agent[name]
            return tally.per(r.escalated)

        tally = Tally(
            statistics.median(pick(r).requests for r in runs),  # type: ignore[arg-type]
            median(lambda r, p=pick: p(r).input_tokens),
            median(lambda r, p=pick: p(r).cached_input_tokens),
            median(lambda r, p=pick: p(r).output_tokens),
            max(pick(r).largest_request_bytes for r in runs),
        )
        per_finding[name] = tally
        print(row(name, tally))
    total = per_finding["total"]
    print(f"largest request: {total.largest_request_bytes:,} bytes")
    usage = last.report_usage
    print(f"\nreport.json usage (last run, whole run): {usage.get('requests')} requests, "
          f"{usage.get('input_tokens'):,} input tokens, "
          f"{usage.get('cached_input_tokens', 'no')} cached, "
          f"{usage.get('output_tokens'):,} output tokens")  # fmt: skip
    scores = last.compliance
    present = [s for s in scores if s is not None]
    low = min(present) if present else None
    print(f"compliance: {len(present)} of {len(scores)} analysis reports scored; "
          f"lowest {low if low is not None else 'n/a'}")  # fmt: skip
    if last.errors:
        print("errors in the run: " + "; ".join(last.errors))
    ok = (
        total.requests <= MAX_REQUESTS
        and total.input_tokens <= MAX_INPUT_TOKENS
        and escalated > 0
        and len(present) == len(scores)
        and all(s == 1.0 for s in present)
    )
    print(f"\ntarget: <= {MAX_REQUESTS} requests and <= {MAX_INPUT_TOKENS:,} input tokens per "
          f"escalated finding, every compliance 1.0: {'met' if ok else 'MISSED'}")  # fmt: skip
    if args.json:
        figures = {
            "escalated": escalated,
            "per_finding": {k: asdict(v) for k, v in per_finding.items()},
            "report_usage": usage,
            "compliance": scores,
            "errors": last.errors,
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
