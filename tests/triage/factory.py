"""Decisions for triage tests, built from the real models (no mocks)."""

from __future__ import annotations

import hashlib
from typing import Any

from thresher.findings import Finding
from thresher.findings.results import (
    AnalysisReport,
    ChallengeOutcome,
    ChallengeResult,
    Classification,
    ConfidenceFactors,
    ConfidenceLabel,
    JudgeResult,
    RiskLevel,
    Verdict,
    label_for,
)
from thresher.redaction.redactor import redact_value
from thresher.skills.compliance import Compliance
from thresher.tribunal.decisions import DecidedBy, Decision, DecisionError, ReportEntry
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus


def fingerprint_of(value: str) -> str:
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()


def finding(value: str, repo: str = "octo/app", number: int = 1) -> Finding:
    return Finding.model_validate(
        {
            "id": f"{repo}#{number}",
            "rule_id": "github_personal_access_token",
            "fingerprint": fingerprint_of(value),
            "redacted": redact_value(value),
            "locations": [{"path": "tests/fixtures/config.py", "line": 3}],
            "source": {
                "type": "github-alert",
                "repo": repo,
                "number": number,
                "url": f"https://github.com/{repo}/security/secret-scanning/{number}",
                "state": "open",
            },
        }
    )


def validation(kind: CheckKind, status: ValidationStatus) -> ValidationResult:
    return ValidationResult(validator="test", kind=kind, status=status, detail="checked")


CHECKSUM_INVALID = validation(CheckKind.CHECKSUM, ValidationStatus.INVALID)
DOCUMENTATION = validation(CheckKind.DOCUMENTATION, ValidationStatus.INVALID)
SYNTAX = validation(CheckKind.SYNTAX, ValidationStatus.INVALID)
LIVE_VALID = validation(CheckKind.LIVE, ValidationStatus.VALID)


def _report(classification: Classification, verdict: Verdict) -> AnalysisReport:
    return AnalysisReport(
        classification=classification,
        verdict=verdict,
        confidence_factors=ConfidenceFactors(
            recency=8,
            directness=8,
            completeness=8,
            source_reliability=8,
            verification_confidence=8,
            test_results=8,
            findings_review=8,
        ),
        confidence_score=8.0,
        confidence_label=ConfidenceLabel.HIGH,
        risk_level=RiskLevel.LOW,
        key_finding="the value sits in a test fixture",
    )


def tribunal_fields(
    classification: Classification, verdict: Verdict, *, challenged: bool = True, winner: int = 0
) -> dict[str, Any]:
    """The entries and judge of an LLM tribunal that ran to the end."""
    challenge = (
        ChallengeResult(outcome=ChallengeOutcome.CONFIRMED, reasoning="reproduced")
        if challenged
        else None
    )
    entry = ReportEntry(
        model="openai:gpt",
        report=_report(classification, verdict),
        compliance=Compliance(applicable=(), loaded=(), skipped=(), score=1.0),
        challenge=challenge,
    )
    judge = JudgeResult(
        winner_index=winner,
        rationale="report 0 holds",
        final_verdict=verdict,
        final_classification=classification,
    )
    return {
        "decided_by": DecidedBy.TRIBUNAL,
        "escalated": True,
        "entries": (entry,),
        "judge": judge,
        "judge_model": "openai:gpt",
    }


def decision(
    value: str = "placeholder-value-0000",
    *,
    classification: Classification = Classification.TEST,
    verdict: Verdict | None = None,
    confidence: float = 9.0,
    rationale: str = "the value fails its checksum; it sits in a test fixture",
    validations: tuple[ValidationResult, ...] = (CHECKSUM_INVALID,),
    errors: tuple[DecisionError, ...] = (),
    repo: str = "octo/app",
    number: int = 1,
    **fields: Any,
) -> Decision:
    if verdict is None:
        verdict = (
            Verdict.TRUE_POSITIVE
            if classification in {Classification.REAL, Classification.AFFECTED}
            else Verdict.FALSE_POSITIVE
        )
    fields.setdefault("decided_by", DecidedBy.HEURISTIC)
    return Decision(
        finding=finding(value, repo, number),
        classification=classification,
        verdict=verdict,
        confidence=confidence,
        confidence_label=label_for(confidence),
        risk_level=RiskLevel.LOW,
        rationale=rationale,
        validations=validations,
        errors=errors,
        **fields,
    )
