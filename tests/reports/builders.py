"""Build RunReports for the renderer tests from values generated at test time.

A raw value is generated, then only its fingerprint and redacted form go into
the Finding — exactly what the pipeline does — so a test can assert the raw
value appears in no rendered output.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

from tests.tokens import github_token, random_secret
from thresher.findings import Finding, Location, Severity
from thresher.findings.results import (
    AnalysisReport,
    ChallengeOutcome,
    ChallengeResult,
    Classification,
    ConfidenceFactors,
    EvidenceItem,
    JudgeResult,
    ReportScore,
    RiskLevel,
    Verdict,
    label_for,
)
from thresher.redaction.redactor import redact_value
from thresher.skills.compliance import Compliance
from thresher.tribunal.decisions import (
    DecidedBy,
    Decision,
    DecisionError,
    ReportCheck,
    ReportEntry,
    RunReport,
    RunSummary,
    RunUsage,
)
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus

HOSTILE = (
    "Token in `config|prod` <script>alert(1)</script> **bold** [x](https://evil.test) @octocat"
)

_VERDICT_OF = {
    Classification.REAL: Verdict.TRUE_POSITIVE,
    Classification.TEST: Verdict.FALSE_POSITIVE,
    Classification.NOT_SECRET: Verdict.FALSE_POSITIVE,
}


def finding_for(
    raw: str,
    *,
    rule_id: str = "GitHub Token",
    locations: Sequence[tuple[str, int]] = (("app/settings.py", 3),),
    severity: Severity = Severity.HIGH,
) -> Finding:
    fingerprint = hashlib.sha256(raw.encode()).hexdigest()
    path, line = locations[0]
    return Finding(
        id=hashlib.sha256(f"secret\0{fingerprint}\0{path}:{line}".encode()).hexdigest()[:16],
        rule_id=rule_id,
        severity=severity,
        locations=tuple(Location(path=p, line=n) for p, n in locations),
        fingerprint=fingerprint,
        redacted=redact_value(raw),
    )


def analysis(
    classification: Classification, verdict: Verdict, confidence: float, key_finding: str
) -> AnalysisReport:
    factor = round(confidence)
    return AnalysisReport(
        classification=classification,
        verdict=verdict,
        confidence_factors=ConfidenceFactors(
            recency=factor,
            directness=factor,
            completeness=factor,
            source_reliability=factor,
            verification_confidence=factor,
            test_results=factor,
            findings_review=factor,
        ),
        confidence_score=confidence,
        confidence_label=label_for(confidence),
        risk_level=RiskLevel.HIGH,
        key_finding=key_finding,
        evidence=(
            EvidenceItem(claim="Assigned to GITHUB_TOKEN | in settings", ledger_ids=("T1", "T3")),
        ),
        remediation=("Revoke the token", "Load it from the secret store"),
    )


def decision_for(
    finding: Finding,
    *,
    classification: Classification = Classification.REAL,
    verdict: Verdict | None = None,
    confidence: float = 8.0,
    risk: RiskLevel = RiskLevel.HIGH,
    decided_by: DecidedBy = DecidedBy.TRIBUNAL,
    key_finding: str = "A live-format token is hard-coded in production settings.",
    with_tribunal: bool = True,
) -> Decision:
    verdict = verdict or _VERDICT_OF[classification]
    entries: tuple[ReportEntry, ...] = ()
    judge = None
    if with_tribunal:
        entries = (
            ReportEntry(
                model="openai:gpt-4o",
                report=analysis(classification, verdict, confidence, key_finding),
                compliance=Compliance(
                    applicable=("a", "b"), loaded=("a",), skipped=("b",), score=0.5
                ),
                checks=(
                    ReportCheck(name="citations exist", passed=True),
                    ReportCheck(name="verdict matches classification", passed=False, detail="x|y"),
                ),
                challenge=ChallengeResult(
                    outcome=ChallengeOutcome.CONFIRMED,
                    reasoning="Reproduced the format check.",
                    evidence_gaps=("No live check",),
                    verification_reproduced=True,
                    verification_result="checksum valid",
                ),
                challenger_model="anthropic:claude-sonnet",
            ),
        )
        judge = JudgeResult(
            winner_index=0,
            scores=(ReportScore(index=0, score=8.5, rationale="Cites every claim."),),
            rationale="The only report, well supported.",
            final_verdict=verdict,
            final_classification=classification,
        )
    return Decision(
        finding=finding,
        classification=classification,
        verdict=verdict,
        confidence=confidence,
        confidence_label=label_for(confidence),
        risk_level=risk,
        rationale="Judge chose report 0." if with_tribunal else key_finding,
        decided_by=decided_by,
        escalated=with_tribunal,
        entries=entries,
        judge=judge,
        judge_model="gemini:gemini-2.0-flash" if with_tribunal else None,
        validations=(
            ValidationResult(
                validator="github-checksum",
                kind=CheckKind.CHECKSUM,
                status=ValidationStatus.VALID,
                detail="CRC32 matches",
            ),
        ),
    )


def run_report(decisions: Sequence[Decision], *, errors: Sequence[DecisionError] = ()) -> RunReport:
    tp = sum(d.verdict is Verdict.TRUE_POSITIVE for d in decisions)
    fp = sum(d.verdict is Verdict.FALSE_POSITIVE for d in decisions)
    return RunReport(
        tool_version="0.1.0",
        run_id="run-42",
        started_at=datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC),
        finished_at=datetime(2025, 1, 2, 3, 6, 0, tzinfo=UTC),
        escalate="uncertain",
        analyses=1,
        models={"judge": "gemini:gemini-2.0-flash", "analysis": "openai:gpt-4o"},
        summary=RunSummary(
            findings=len(decisions),
            true_positive=tp,
            false_positive=fp,
            inconclusive=len(decisions) - tp - fp,
        ),
        usage=RunUsage(
            requests=12,
            input_tokens=34567,
            cached_input_tokens=20480,
            output_tokens=890,
            wall_seconds=115.0,
        ),
        decisions=tuple(decisions),
        errors=tuple(errors),
    )


class Sample:
    """A small run: a real token (two files), a test token, an inconclusive password,
    and a hostile key finding. ``raws`` holds every generated raw value."""

    def __init__(self) -> None:
        self.real_raw = github_token(seed=101)
        self.test_raw = github_token(seed=202)
        self.unsure_raw = random_secret(24, seed=303)
        self.hostile_raw = github_token(seed=404)
        self.raws = (self.real_raw, self.test_raw, self.unsure_raw, self.hostile_raw)
        self.real = decision_for(
            finding_for(
                self.real_raw,
                locations=(("app/settings.py", 3), ("deploy/env.sh", 12), ("docs/setup.md", 40)),
                severity=Severity.CRITICAL,
            ),
            confidence=8.6,
            risk=RiskLevel.CRITICAL,
        )
        self.test = decision_for(
            finding_for(self.test_raw, locations=(("tests/fixtures/tokens.py", 7),)),
            classification=Classification.TEST,
            confidence=9.1,
            risk=RiskLevel.NONE,
            decided_by=DecidedBy.HEURISTIC,
            key_finding="Lives in a test fixture | used only by unit tests.",
            with_tribunal=False,
        )
        self.unsure = decision_for(
            finding_for(
                self.unsure_raw, rule_id="Secret Keyword", locations=(("./config/app.ini", 5),)
            ),
            classification=Classification.REAL,
            verdict=Verdict.INCONCLUSIVE,
            confidence=4.2,
            risk=RiskLevel.MEDIUM,
            key_finding="Could not tell whether the password is used.",
        )
        self.hostile = decision_for(
            finding_for(self.hostile_raw, locations=(("src/a|b `x`.py", 9),)),
            confidence=7.5,
            key_finding=HOSTILE,
        )
        self.decisions = (self.test, self.unsure, self.hostile, self.real)
        self.report = run_report(self.decisions)
