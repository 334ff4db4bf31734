"""Deterministic report checks and guardrails (DESIGN §3).

Checks are handed to the judge beside each report, and used to pick a report
when the judge fails. Guardrails let hard evidence outrank any model: a secret
that live verification calls valid cannot end FALSE_POSITIVE, and a value that
fails its format checksum cannot end ``real``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from thresher.findings import FindingKind
from thresher.findings.results import (
    DEPENDENCY_CLASSIFICATIONS,
    AnalysisReport,
    ChallengeOutcome,
    Classification,
    Verdict,
    VexJustification,
    label_for,
    verdict_for,
)
from thresher.skills.compliance import Compliance
from thresher.tribunal.decisions import ReportCheck, ReportEntry
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus

_MEAN_TOLERANCE = 0.5
CLASSIFICATION_FITS_KIND = "classification-fits-kind"
NOT_AFFECTED_CITES_EVIDENCE = "not-affected-cites-evidence"


def check_report(
    report: AnalysisReport,
    ledger_ids: set[str],
    compliance: Compliance | None,
    *,
    kind: FindingKind = FindingKind.SECRET,
    evidence_ids: set[str] | None = None,
) -> tuple[ReportCheck, ...]:
    """The deterministic checks of one report; a dependency report gets two more: its
    classification answers a dependency's question, and a ``not_affected`` carries an
    OpenVEX justification and cites tool results (``evidence_ids``: the ledger ids of
    successful tool calls other than skill loads; all ledger ids when not given)."""
    checks = _common_checks(report, ledger_ids, compliance)
    if kind is FindingKind.DEPENDENCY:
        checks += dependency_checks(report, ledger_ids if evidence_ids is None else evidence_ids)
    return checks


def dependency_checks(report: AnalysisReport, evidence_ids: set[str]) -> tuple[ReportCheck, ...]:
    cited = {i for item in report.evidence for i in item.ledger_ids} & evidence_ids
    fits = report.classification in DEPENDENCY_CLASSIFICATIONS
    not_affected = report.classification is Classification.NOT_AFFECTED
    backed = report.justification is not None and bool(cited)
    return (
        ReportCheck(
            name=CLASSIFICATION_FITS_KIND,
            passed=fits,
            detail=f"{report.classification.value} "
            + ("answers" if fits else "does not answer")
            + " a dependency finding (affected or not_affected)",
        ),
        ReportCheck(
            name=NOT_AFFECTED_CITES_EVIDENCE,
            passed=not not_affected or backed,
            detail="not a not_affected report"
            if not not_affected
            else (
                f"justification {report.justification.value if report.justification else 'missing'}"
                f"; {len(cited)} tool result(s) cited"
            ),
        ),
    )


def _common_checks(
    report: AnalysisReport, ledger_ids: set[str], compliance: Compliance | None
) -> tuple[ReportCheck, ...]:
    cited = [i for item in report.evidence for i in item.ledger_ids]
    unknown = sorted(set(cited) - ledger_ids)
    expected = verdict_for(report.classification)
    mean = report.confidence_factors.mean()
    return (
        _check(
            name="required-fields",
            passed=bool(report.key_finding.strip()) and bool(report.evidence),
            detail="key finding and at least one evidence item",
        ),
        _check(
            name="verdict-matches-classification",
            passed=report.verdict in (expected, Verdict.INCONCLUSIVE),
            detail=f"{report.classification.value} implies {expected.value}, "
            f"got {report.verdict.value}",
        ),
        _check(
            name="confidence-label-matches-score",
            passed=label_for(report.confidence_score) is report.confidence_label,
            detail=f"score {report.confidence_score} -> {label_for(report.confidence_score)}, "
            f"label {report.confidence_label.value}",
        ),
        _check(
            name="confidence-is-factor-mean",
            passed=abs(mean - report.confidence_score) <= _MEAN_TOLERANCE,
            detail=f"factor mean {mean}, score {report.confidence_score}",
        ),
        _check(
            name="citations-exist",
            passed=bool(cited) and not unknown,
            detail="no citations"
            if not cited
            else (
                f"unknown ledger ids: {', '.join(unknown)}"
                if unknown
                else f"{len(cited)} citation(s) all in the ledger"
            ),
        ),
        _check(
            name="compliance-complete",
            passed=compliance is not None and compliance.score == 1.0,
            detail="compliance missing"
            if compliance is None
            else f"{compliance.percent}% of required skills loaded"
            + (f"; skipped {', '.join(compliance.skipped)}" if compliance.skipped else ""),
        ),
    )


@lru_cache(maxsize=4096)
def _check(*, name: str, passed: bool, detail: str) -> ReportCheck:
    """One check, frozen: a decision's checks repeat across thousands of findings (the
    same names, outcomes and mostly the same details), so equal ones are built once."""
    return ReportCheck(name=name, passed=passed, detail=detail)


def entry_score(entry: ReportEntry) -> float:
    """A deterministic 0-10 score used when the judge cannot decide."""
    passed = sum(check.passed for check in entry.checks)
    share = passed / len(entry.checks) if entry.checks else 0.0
    score = entry.report.confidence_score * share * (0.5 + 0.5 * entry.compliance.score)
    if entry.challenge is not None and entry.challenge.outcome is ChallengeOutcome.REFUTED:
        score *= 0.5
    return round(score, 2)


def best_entry(entries: Sequence[ReportEntry]) -> int:
    """Index of the best report by deterministic score; ties go to the safer verdict."""
    order = {Verdict.TRUE_POSITIVE: 0, Verdict.INCONCLUSIVE: 1, Verdict.FALSE_POSITIVE: 2}
    return min(
        range(len(entries)),
        key=lambda i: (-entry_score(entries[i]), order[entries[i].report.verdict], i),
    )


@dataclass(frozen=True)
class Guarded:
    classification: Classification
    verdict: Verdict
    note: str | None


def apply_guardrails(
    classification: Classification, verdict: Verdict, validations: Iterable[ValidationResult]
) -> Guarded:
    results = list(validations)
    live_valid = any(
        r.kind is CheckKind.LIVE and r.status is ValidationStatus.VALID for r in results
    )
    checksum_failed = any(
        r.kind is CheckKind.CHECKSUM and r.status is ValidationStatus.INVALID for r in results
    )
    if live_valid and verdict is not Verdict.TRUE_POSITIVE:
        return Guarded(
            Classification.REAL,
            Verdict.TRUE_POSITIVE,
            f"live verification says the secret is valid; overrode "
            f"{verdict.value} ({classification.value})",
        )
    if classification in DEPENDENCY_CLASSIFICATIONS:
        return Guarded(
            Classification.REAL,
            Verdict.INCONCLUSIVE,
            f"'{classification.value}' answers a dependency's question, not a secret's; "
            "assumed real",
        )
    if checksum_failed and classification is Classification.REAL:
        return Guarded(
            Classification.TEST,
            Verdict.FALSE_POSITIVE,
            "the value fails its format checksum, so it was never issued; overrode 'real'",
        )
    return Guarded(classification, verdict, None)


@dataclass(frozen=True)
class GuardedDependency:
    classification: Classification
    verdict: Verdict
    justification: VexJustification | None
    note: str | None


def apply_dependency_guardrails(
    classification: Classification, verdict: Verdict, winner: ReportEntry | None
) -> GuardedDependency:
    """A dependency ends ``affected`` or ``not_affected``, never a secret's answer; an
    undecided one is ``affected``; and ``not_affected`` stands only on the winning report's
    OpenVEX justification with tool results cited from its ledger."""
    report = winner.report if winner is not None else None
    if classification not in DEPENDENCY_CLASSIFICATIONS:
        return GuardedDependency(
            Classification.AFFECTED,
            Verdict.INCONCLUSIVE,
            None,
            f"'{classification.value}' answers a secret's question, not a dependency's; "
            "assumed affected",
        )
    if classification is Classification.AFFECTED:
        return GuardedDependency(
            classification,
            Verdict.INCONCLUSIVE if verdict is Verdict.INCONCLUSIVE else Verdict.TRUE_POSITIVE,
            None,
            None,
        )
    if verdict is not Verdict.FALSE_POSITIVE:
        # not_affected, but undecided (or a verdict that contradicts it): the safe answer.
        return GuardedDependency(Classification.AFFECTED, Verdict.INCONCLUSIVE, None, None)
    backed = winner is not None and any(
        c.name == NOT_AFFECTED_CITES_EVIDENCE and c.passed for c in winner.checks
    )
    if report is None or report.justification is None or not backed:
        missing = (
            "no OpenVEX justification"
            if report is None or report.justification is None
            else "no tool result cited from the ledger"
        )
        return GuardedDependency(
            Classification.AFFECTED,
            Verdict.INCONCLUSIVE,
            None,
            f"not_affected needs an OpenVEX justification backed by evidence cited from the "
            f"ledger, and the winning report has {missing}; overrode 'not_affected'",
        )
    return GuardedDependency(classification, verdict, report.justification, None)
