"""What agents submit (DESIGN §2): validated models, never prose parsed back.

The ``submit_report`` / ``submit_challenge`` / ``submit_judgement`` tool schemas
are generated from these models, so a model's arguments either validate into
them or go back to the model as a validation error.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Classification(StrEnum):
    REAL = "real"
    TEST = "test"
    NOT_SECRET = "not_secret"
    AFFECTED = "affected"
    NOT_AFFECTED = "not_affected"


class Verdict(StrEnum):
    TRUE_POSITIVE = "TRUE_POSITIVE"
    FALSE_POSITIVE = "FALSE_POSITIVE"
    INCONCLUSIVE = "INCONCLUSIVE"


def verdict_for(classification: Classification) -> Verdict:
    """The verdict a decisive classification implies."""
    match classification:
        case Classification.REAL | Classification.AFFECTED:
            return Verdict.TRUE_POSITIVE
        case Classification.TEST | Classification.NOT_SECRET | Classification.NOT_AFFECTED:
            return Verdict.FALSE_POSITIVE


class ConfidenceLabel(StrEnum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


def label_for(score: float) -> ConfidenceLabel:
    if score >= 7:
        return ConfidenceLabel.HIGH
    if score >= 4:
        return ConfidenceLabel.MEDIUM
    return ConfidenceLabel.LOW


class RiskLevel(StrEnum):
    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    NONE = "none"


class ChallengeOutcome(StrEnum):
    CONFIRMED = "CONFIRMED"
    REFUTED = "REFUTED"
    INSUFFICIENT_EVIDENCE = "INSUFFICIENT_EVIDENCE"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


_Factor = Field(ge=0, le=10)


class ConfidenceFactors(_Frozen):
    """Seven 0-10 factors; the confidence score is their mean."""

    recency: int = _Factor
    directness: int = _Factor
    completeness: int = _Factor
    source_reliability: int = _Factor
    verification_confidence: int = _Factor
    test_results: int = _Factor
    findings_review: int = _Factor

    def mean(self) -> float:
        values: list[int] = list(self.model_dump().values())
        return round(sum(values) / len(values), 1)


class EvidenceItem(_Frozen):
    claim: str = Field(min_length=1, description="what the evidence shows")
    ledger_ids: tuple[str, ...] = Field(
        default=(), description="ids (T1, T2, ...) of the tool calls that support the claim"
    )


class AnalysisReport(_Frozen):
    """Submitted by the analysis agent through ``submit_report``."""

    classification: Classification
    verdict: Verdict
    confidence_factors: ConfidenceFactors
    confidence_score: float = Field(ge=0, le=10, description="mean of the seven factors")
    confidence_label: ConfidenceLabel
    risk_level: RiskLevel
    key_finding: str = Field(min_length=1, description="one sentence")
    evidence: tuple[EvidenceItem, ...] = ()
    remediation: tuple[str, ...] = ()


class ChallengeResult(_Frozen):
    """Submitted by the challenger through ``submit_challenge``."""

    outcome: ChallengeOutcome
    reasoning: str = Field(min_length=1)
    evidence_gaps: tuple[str, ...] = ()
    verification_reproduced: bool = False
    verification_result: str = ""
    contradicting_evidence: tuple[EvidenceItem, ...] = ()


class ReportScore(_Frozen):
    index: int = Field(ge=0)
    score: float = Field(ge=0, le=10)
    rationale: str = Field(min_length=1)


class JudgeResult(_Frozen):
    """Submitted by the judge through ``submit_judgement``."""

    winner_index: int = Field(ge=-1, description="index of the winning report, -1 if none")
    scores: tuple[ReportScore, ...] = ()
    rationale: str = Field(min_length=1)
    final_verdict: Verdict
    final_classification: Classification
