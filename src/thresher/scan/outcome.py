"""The scan's request and outcome value objects, and what the outcome is made of.

Part of the scan use case (``thresher.scan.run``): what a run is asked (``ScanRequest``,
``FailOn``) and what it hands back (``ScanOutcome``, ``AgentPlan``), with the pure
functions that turn decisions into the exit code, the summary, the run errors and the
dry-run plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from thresher.agents.estimate import SessionEstimate
from thresher.config.settings import AgentName
from thresher.errors import ExitCode
from thresher.findings.results import Classification, Verdict
from thresher.git.history import DEFAULT_HISTORY_DEPTH
from thresher.scoring.policy import Band, Escalate
from thresher.sources.dependencies import DependencyScan, DepsOptions
from thresher.sources.scan import CustomRule, ScanResult
from thresher.tribunal.decisions import (
    Decision,
    DecisionError,
    RunReport,
    RunSummary,
)
from thresher.tribunal.fallbacks import Deadline


class FailOn(StrEnum):
    REAL = "real"
    UNCERTAIN = "uncertain"
    ANY = "any"
    NEVER = "never"


@dataclass(frozen=True)
class ScanRequest:
    root: Path
    paths: tuple[Path, ...] = ()
    diff: str | None = None
    staged: bool = False
    baseline: Path | None = None
    escalate: Escalate = Escalate.UNCERTAIN
    analyses: int = 1
    concurrency: int = 4
    fail_on: FailOn = FailOn.REAL
    dry_run: bool = False
    verify_live: bool = False
    max_requests: int | None = None
    max_tokens: int | None = None
    max_tokens_per_finding: int | None = None  # every session of one finding together
    runs_dir: Path = Path(".thresher/runs")
    custom_rules: tuple[CustomRule, ...] = ()
    band: Band | None = None  # the escalation band; None: the scorer's own
    timeout: float | None = None  # --timeout: seconds for the whole run
    honour_pragmas: bool = True  # False in a pull-request job (see findings.engine)
    history_depth: int = DEFAULT_HISTORY_DEPTH  # --history-depth: commits; 0 reads none
    secrets: bool = True  # False: `thresher deps`, which scans no file for secrets
    deps: DepsOptions | None = None  # `thresher deps` / `scan --deps`: lockfiles too


@dataclass(frozen=True)
class AgentPlan:
    """What a real run would send for one agent (``--dry-run``): in all, and per
    escalated finding (``thresher.agents.estimate``)."""

    agent: AgentName
    model: str
    findings: int
    estimated_requests: int
    requests_per_finding: int = 0
    input_tokens_per_finding: int = 0

    def describe(self) -> str:
        """The line ``--dry-run`` prints for this agent."""
        each = (
            f" (per escalated finding ~{self.requests_per_finding} request(s), "
            f"~{self.input_tokens_per_finding:,} input tokens)"
            if self.findings
            else ""
        )
        return (
            f"dry run: {self.agent.value} -> {self.model}: would triage {self.findings} "
            f"finding(s) with ~{self.estimated_requests} request(s){each}; nothing was sent"
        )


@dataclass(frozen=True)
class ScanOutcome:
    report: RunReport
    exit_code: ExitCode
    run_dir: Path
    scan: ScanResult
    plan: list[AgentPlan] = field(default_factory=list)
    dependencies: DependencyScan | None = None

    def report_bytes(self) -> bytes:
        """``report`` as ``report.json`` in the run directory holds it, which is what
        ``render_json`` writes: the CLI's ``--json`` copies it rather than serialise
        thousands of decisions again, and the run keeps no copy of it in memory."""
        return (self.run_dir / "report.json").read_bytes()

    @property
    def report_json(self) -> str:
        """``report_bytes`` as text (a lone surrogate a YAML escape made kept as is)."""
        return self.report_bytes().decode("utf-8", "surrogatepass")


def exit_code_for(
    decisions: list[Decision], fail_on: FailOn, *, incomplete: bool = False
) -> ExitCode:
    """3 when anything failed; else 1 at or above ``--fail-on``; else 0.

    Anything failed: an LLM session, a provider (its circuit opened), the run budget
    or the run deadline stopped a finding from being decided the way the policy asked,
    or (``incomplete``) a lockfile could not be read, so its dependencies were never
    looked at. Such a run never exits 0, whatever ``--fail-on`` says: its decisions are
    the offline ones, INCONCLUSIVE or missing, and whoever reads the exit code must know.
    """
    if incomplete or any(d.errors for d in decisions):
        return ExitCode.RUNTIME
    hit = any(at_or_above(d, fail_on) for d in decisions)
    return ExitCode.FINDINGS if hit else ExitCode.OK


def at_or_above(decision: Decision, fail_on: FailOn) -> bool:
    """Whether this one decision fails the run under ``--fail-on`` (CI annotates it as an
    error; what is below the line but not a false positive is a warning)."""
    match fail_on:
        case FailOn.REAL:  # a real secret, or an affected dependency
            return decision.verdict is Verdict.TRUE_POSITIVE
        case FailOn.UNCERTAIN:
            # Uncertain includes what the policy would escalate but no model looked at.
            escalation = decision.escalation
            return decision.verdict is not Verdict.FALSE_POSITIVE or (
                escalation is not None and escalation.would_escalate and not decision.escalated
            )
        case FailOn.ANY:
            return True
        case FailOn.NEVER:
            return False


def summarise(decisions: list[Decision]) -> RunSummary:
    def count(test: Callable[[Decision], bool]) -> int:
        return sum(1 for d in decisions if test(d))

    return RunSummary(
        findings=len(decisions),
        true_positive=count(lambda d: d.verdict is Verdict.TRUE_POSITIVE),
        false_positive=count(lambda d: d.verdict is Verdict.FALSE_POSITIVE),
        inconclusive=count(lambda d: d.verdict is Verdict.INCONCLUSIVE),
        real=count(lambda d: d.classification is Classification.REAL),
        test=count(lambda d: d.classification is Classification.TEST),
        not_secret=count(lambda d: d.classification is Classification.NOT_SECRET),
        decided_without_model=count(lambda d: not d.escalated),
        errors=count(lambda d: bool(d.errors)),
    )


def run_errors(decisions: list[Decision], deadline: Deadline | None) -> tuple[DecisionError, ...]:
    """Run-level errors: one line per kind of failure, with how many findings it hit."""
    counts: dict[tuple[str, str], int] = {}
    for decision in decisions:
        for error in {(e.stage.split(" ")[0], e.error) for e in decision.errors}:
            counts[error] = counts.get(error, 0) + 1
    errors = [
        DecisionError(stage=stage, error=error, message=f"{count} finding(s): see their errors")
        for (stage, error), count in sorted(counts.items())
    ]
    if deadline is not None and counts.get(("deadline", "RunDeadlineExceeded")):
        errors.insert(
            0,
            DecisionError(
                stage="run",
                error="RunDeadlineExceeded",
                message=f"--timeout {deadline.seconds:g} s expired; findings not decided by "
                "then are INCONCLUSIVE",
            ),
        )
    return tuple(errors)


def dry_run_plan(
    decisions: list[Decision],
    specs: dict[str, str],
    estimates: Mapping[AgentName, SessionEstimate] | None = None,
) -> list[AgentPlan]:
    """Per agent: findings a real run would escalate and the requests and input tokens
    it would send, in all and per escalated finding."""
    escalated = sum(1 for d in decisions if d.escalation and d.escalation.would_escalate)
    plans = []
    for agent in AgentName:
        spec = specs[agent.value]
        offline = spec.startswith("heuristic:")
        count = 0 if offline else escalated
        # ``estimate_plan`` covers every agent whenever a finding escalates; with none,
        # nothing is sent and there is nothing per finding to estimate.
        each = (estimates or {}).get(agent, SessionEstimate())
        plans.append(
            AgentPlan(
                agent,
                spec,
                count,
                count * each.requests,
                requests_per_finding=0 if offline else each.requests,
                input_tokens_per_finding=0 if offline else each.input_tokens,
            )
        )
    return plans
