"""What agents submit (DESIGN §2): validated models, never prose parsed back.

The ``submit_report`` / ``submit_challenge`` / ``submit_judgement`` tool schemas
are generated from these models, so a model's arguments either validate into
them or go back to the model as a validation error.
"""

from __future__ import annotations

from enum import StrEnum
from typing import assert_never

from pydantic import BaseModel, ConfigDict, Field

from thresher.findings.model import FindingKind


class Classification(StrEnum):
    REAL = "real"
    TEST = "test"
    NOT_SECRET = "not_secret"
    AFFECTED = "affected"
    NOT_AFFECTED = "not_affected"


SECRET_CLASSIFICATIONS = frozenset(
    {Classification.REAL, Classification.TEST, Classification.NOT_SECRET}
)
DEPENDENCY_CLASSIFICATIONS = frozenset({Classification.AFFECTED, Classification.NOT_AFFECTED})


def classifications_for(kind: FindingKind) -> frozenset[Classification]:
    """The classifications that answer this kind's question: a secret is never
    ``affected`` and a vulnerable dependency is never ``real``, ``test`` or ``not_secret``."""
    match kind:
        case FindingKind.SECRET:
            return SECRET_CLASSIFICATIONS
        case FindingKind.DEPENDENCY:
            return DEPENDENCY_CLASSIFICATIONS
        case _:
            assert_never(kind)


def safe_classification(kind: FindingKind) -> Classification:
    """What an undecided finding of this kind is assumed to be until someone looks:
    the classification that keeps it in front of a human."""
    match kind:
        case FindingKind.SECRET:
            return Classification.REAL
        case FindingKind.DEPENDENCY:
            return Classification.AFFECTED
        case _:
            assert_never(kind)


class VexJustification(StrEnum):
    """OpenVEX's justifications for ``not_affected``: why a vulnerable component does not
    make this product vulnerable (https://github.com/openvex/spec)."""

    COMPONENT_NOT_PRESENT = "component_not_present"
    VULNERABLE_CODE_NOT_PRESENT = "vulnerable_code_not_present"
    VULNERABLE_CODE_NOT_IN_EXECUTE_PATH = "vulnerable_code_not_in_execute_path"
    VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY = (
        "vulnerable_code_cannot_be_controlled_by_adversary"
    )
    INLINE_MITIGATIONS_ALREADY_EXIST = "inline_mitigations_already_exist"


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
    justification: VexJustification | None = Field(
        default=None,
        description="dependency findings classified not_affected only: the OpenVEX "
        "justification, backed by cited evidence",
    )


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
