"""What thresher concludes per finding (DESIGN §2 "Decision") and per run.

A ``Decision`` carries everything behind the conclusion — reports, challenges,
the judgement, compliance, deterministic checks, validator results, usage and
typed errors — so every renderer (JSON, SARIF, Markdown) works from one model.

Fields that are structure — names of models, stages, errors and checks, run ids,
the configuration — are marked ``Structural`` so redaction leaves them as they are;
rationales, details and messages are free text and are redacted.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field

from thresher.deps.model import Vulnerability
from thresher.findings import Finding, Location
from thresher.findings.results import (
    AnalysisReport,
    ChallengeResult,
    Classification,
    ConfidenceLabel,
    JudgeResult,
    RiskLevel,
    Verdict,
    VexJustification,
)
from thresher.findings.skips import SkipReason, scan_phrase
from thresher.llm.messages import Usage
from thresher.redaction.redactor import Structural
from thresher.scoring.model import Assessment
from thresher.scoring.policy import Escalation
from thresher.skills.compliance import Compliance
from thresher.validators.base import ValidationResult

if TYPE_CHECKING:
    from thresher.git.history import HistoryStats
    from thresher.sources.scan import ScanStats

# 1.1: escalation and assessment; 1.2: location kinds and urls; 1.3: dependencies;
# 1.4: usage.cached_input_tokens and usage per agent; 2.0: a decision no model took part
# in leaves out the offline panel (entries, judge, judge_model), fields at their default
# are left out, one line per decision (``thresher.tribunal.reported``)
REPORT_SCHEMA_VERSION = "2.0"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DecidedBy(StrEnum):
    HEURISTIC = "heuristic"
    TRIBUNAL = "tribunal"
    GUARDRAIL = "guardrail"


class DecisionError(_Frozen):
    """A typed failure recorded instead of crashing the run."""

    stage: Annotated[str, Structural]
    error: Annotated[str, Structural]
    message: str


class ReportCheck(_Frozen):
    """One deterministic check of one analysis report."""

    name: Annotated[str, Structural]
    passed: bool
    detail: str = ""


class ReportEntry(_Frozen):
    """One analysis session's output with what the judge weighs beside it."""

    model: Annotated[str, Structural]
    report: AnalysisReport
    # Skill names: thresher's methodology, not text from the scanned repository.
    compliance: Annotated[Compliance, Structural]
    checks: tuple[ReportCheck, ...] = ()
    challenge: ChallengeResult | None = None
    challenger_model: Annotated[str | None, Structural] = None
    transcript: str | None = None

    @property
    def checks_passed(self) -> bool:
        return all(check.passed for check in self.checks)


class Decision(_Frozen):
    finding: Finding
    classification: Classification
    verdict: Verdict
    confidence: float = Field(ge=0, le=10)
    confidence_label: ConfidenceLabel
    risk_level: RiskLevel
    rationale: str
    decided_by: DecidedBy
    # Dependency findings decided not_affected: the OpenVEX justification.
    justification: VexJustification | None = None
    escalated: bool = False
    # What the escalation policy says, recorded in every run, also when no model is
    # configured; ``escalated`` says whether the LLM tribunal actually ran.
    escalation: Escalation | None = None
    # The calibrated offline scorer's probabilities and the features behind them.
    assessment: Assessment | None = None
    entries: tuple[ReportEntry, ...] = ()
    judge: JudgeResult | None = None
    judge_model: Annotated[str | None, Structural] = None
    validations: tuple[ValidationResult, ...] = ()
    guardrail: str | None = None
    usage: Usage = Field(default_factory=Usage)
    errors: tuple[DecisionError, ...] = ()


class RunSummary(_Frozen):
    findings: int = 0
    true_positive: int = 0
    false_positive: int = 0
    inconclusive: int = 0
    real: int = 0
    test: int = 0
    not_secret: int = 0
    decided_without_model: int = 0
    errors: int = 0


class RunUsage(_Frozen):
    """What the run sent to providers. ``input_tokens`` counts every input token;
    ``cached_input_tokens`` is the part the providers' prompt caches served (billed at a
    fraction); ``agents`` is the same per agent (analysis, challenger, judge)."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    wall_seconds: float = 0.0
    agents: dict[str, Usage] = Field(default_factory=dict)


class ScanSummary(_Frozen):
    """What the scanner read. Every file it listed and did not scan is counted by its
    reason: a repository whose only secret sits in a skipped file must not look clean."""

    files_scanned: int = 0
    files_skipped: int = 0
    skipped: Annotated[dict[SkipReason, int], Structural] = Field(default_factory=dict)
    # scanned, but not UTF-8: decoded as Windows-1252 or Latin-1
    decoded_with_fallback: int = 0
    # YAML/config read as plain lines: too large, or blank runs too costly, to parse
    read_unparsed: int = 0

    @classmethod
    def of(cls, stats: ScanStats) -> ScanSummary:
        return cls(
            files_scanned=stats.files_scanned,
            files_skipped=stats.files_skipped,
            skipped=dict(stats.skipped_by_reason),
            decoded_with_fallback=stats.decoded_with_fallback,
            read_unparsed=stats.read_unparsed,
        )

    def describe(self) -> str:
        """ "scanned 120 files; skipped 3 (1 binary, 1 unreadable, 1 too large)"."""
        return scan_phrase(
            self.files_scanned, self.skipped, self.decoded_with_fallback, self.read_unparsed
        )


class HistorySummary(_Frozen):
    """How far back the run read the git history: a shallow or failed read can miss
    where a secret came from, so the report says so instead of looking complete."""

    mode: Annotated[str, Structural]  # full, range (--diff) or off
    depth: int  # --history-depth, in commits
    commits_read: int = 0
    stopped_at_depth: bool = False  # older commits exist that were not read
    timed_out: bool = False
    error: str | None = None

    @classmethod
    def of(cls, stats: HistoryStats) -> HistorySummary:
        return cls(
            mode=stats.mode.value,
            depth=stats.depth,
            commits_read=stats.commits_read,
            stopped_at_depth=stats.stopped_at_depth,
            timed_out=stats.timed_out,
            error=stats.error,
        )


class LockfileProblem(_Frozen):
    """A lockfile that could not be read; its dependencies were not triaged."""

    path: Annotated[str, Structural]
    line: int | None = None
    message: str


class IgnoredAdvisory(_Frozen):
    """A vulnerability an ``osv-scanner.toml`` entry kept out of the findings."""

    vulnerability: Annotated[str, Structural]
    package: Annotated[str, Structural]
    version: Annotated[str, Structural]
    ecosystem: Annotated[str, Structural]
    reason: str = ""
    locations: tuple[Location, ...] = ()


class DependencySummary(_Frozen):
    """What the dependency half read: lockfiles, how many dependencies, where the
    advisories came from, and the advisories themselves (aliases, CVSS, fixed
    versions), which SARIF rules, the Markdown table and the VEX document are made of."""

    osv: Annotated[str, Structural]  # the OSV API URL, or "offline DIR"
    diff: Annotated[str | None, Structural] = None  # --diff: only what the range adds
    lockfiles: tuple[Annotated[str, Structural], ...] = ()
    dependencies: int = 0
    advisories: tuple[Vulnerability, ...] = ()
    ignored: tuple[IgnoredAdvisory, ...] = ()
    errors: tuple[LockfileProblem, ...] = ()

    def advisory(self, vuln_id: str) -> Vulnerability | None:
        return next((v for v in self.advisories if v.id == vuln_id), None)


class RunReport(_Frozen):
    """The JSON report: versioned; ``thresher schema report`` prints its schema."""

    schema_version: Annotated[str, Structural] = REPORT_SCHEMA_VERSION
    tool: Annotated[str, Structural] = "thresher"
    tool_version: Annotated[str, Structural]
    run_id: Annotated[str, Structural]
    started_at: datetime
    finished_at: datetime
    dry_run: bool = False
    escalate: Annotated[str, Structural]
    analyses: int
    models: Annotated[dict[str, str], Structural]
    summary: RunSummary
    usage: RunUsage
    decisions: tuple[Decision, ...]
    errors: tuple[DecisionError, ...] = ()
    scan: ScanSummary = Field(default_factory=ScanSummary)
    history: HistorySummary | None = None
    dependencies: DependencySummary | None = None  # thresher deps, scan --deps
