"""Nested grouped cross-validation of the offline scorer, and the one way a scorer is
built from labelled samples (needs the ``train`` extra).

``build_scorer`` is what ``train_scorer.py`` ships and what each fold of ``thresher
eval --folds`` uses: trees fitted on the samples, Platt scaling and the operating
point chosen from an inner grouped CV of the same samples. ``cross_validate`` wraps
it in an outer grouped CV, so every figure it reports is measured on repositories
the fold's scorer never saw, per label source (creddata's human labels apart from
the synthetic leaky-repo and SEDATED parts), with the operating-point-free figures
first: average precision of P(real) and precision at recall 0.9.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from thresher.findings.results import Classification
from thresher.scoring import metrics
from thresher.scoring.model import Calibration, Scorer
from thresher.scoring.operating import choose_point
from thresher.scoring.policy import Band, Escalate, escalation_for, offline_call
from thresher.scoring.samples import WEAK_SOURCES, WILD_SOURCE, Sample
from thresher.scoring.train import (
    INNER_FOLDS,
    Matrix,
    fit_components,
    grouped_folds,
    out_of_fold,
    platt,
    scorer_from,
)
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus

ALL = "all"


def _validations(checks: Sequence[tuple[str, str]]) -> list[ValidationResult]:
    return [
        ValidationResult(
            validator="offline", kind=CheckKind(k), status=ValidationStatus(s), detail=""
        )
        for k, s in checks
    ]


def calibrate(p: Matrix, calibration: Calibration) -> Matrix:
    return np.array([calibration.apply(float(x)) for x in p])


def build_scorer(
    samples: Sequence[Sample],
    *,
    training: dict[str, str | int | float] | None = None,
    cross_validation: dict[str, object] | None = None,
    name: str = "fold",
) -> Scorer:
    """Trees on every sample; calibration and operating point by inner grouped CV.

    Weak labels (clean trees, unlabelled dev findings) train the trees only: P(real)
    is calibrated and the band chosen on the labelled repositories, whose promises
    (decisive precision, missed real lines) they state. With the wild corpus's tens of
    thousands of negatives in the calibration the upper edge never reached the
    decisive precision target (band (0.01, 1.0) in four folds of five, no decisive
    `real` at all, 57% of dev findings escalated)."""
    oof = out_of_fold(samples, INNER_FOLDS)
    strong = np.array([s.source not in WEAK_SOURCES for s in samples])
    labelled = [s for s in samples if s.source not in WEAK_SOURCES]
    calibration = platt(oof[strong], labelled)
    point = choose_point(calibrate(oof[strong], calibration), labelled)
    # A fold's scorer keeps the logistic family for the comparison; the shipped one
    # carries only what has a share of the scores.
    parts = fit_components(samples, linear=name == "fold")
    return scorer_from(parts, calibration, point, training, cross_validation, name)


@dataclass(frozen=True)
class Figures:
    """What one set of held-out lines says about a scorer."""

    lines: int
    real_lines: int
    average_precision: float
    precision_at_recall_90: float
    precision: float  # offline 'real' calls (--escalate never)
    recall: float
    decisive_real_precision: float
    decisive_real_lines: int
    decisive_wrong_real: int
    dismissal_miss_rate: float  # real lines dismissed decisively / real lines
    decisive_misses: int
    escalation_rate: float  # share of findings the policy escalates
    oracle_precision: float
    oracle_recall: float


@dataclass(frozen=True)
class Judged:
    """One held-out sample as the fold's scorer and policy decided it."""

    sample: Sample
    p_real: float
    real: bool  # the offline call
    escalated: bool


def judge(scorer: Scorer, samples: Sequence[Sample]) -> list[Judged]:
    point = scorer.operating_point
    band = Band.of(point)
    judged: list[Judged] = []
    for sample in samples:
        assessment = scorer.assess_features(sample.features)
        call = offline_call(assessment, _validations(sample.checks), point)
        escalation = escalation_for(call, assessment, Escalate.UNCERTAIN, band)
        judged.append(
            Judged(
                sample=sample,
                p_real=assessment.p_real,
                real=call.classification is Classification.REAL,
                escalated=escalation.would_escalate,
            )
        )
    return judged


def _ratio(a: float, b: float) -> float:
    return round(a / b, 4) if b else 0.0


def figures(judged: Sequence[Judged]) -> Figures:
    points: list[tuple[float, bool, float]] = []
    tp = fp = fn = otp = ofp = ofn = 0
    decisive_real = decisive_wrong = misses = 0
    for j in judged:
        for label, count in j.sample.labels.items():
            truth = label == "real"
            points.append((j.p_real, truth, float(count)))
            tp += count * (j.real and truth)
            fp += count * (j.real and not truth)
            fn += count * (not j.real and truth)
            oracle = truth if j.escalated else j.real
            otp += count * (oracle and truth)
            ofp += count * (oracle and not truth)
            ofn += count * (not oracle and truth)
            if not j.escalated and j.real:
                decisive_real += count
                decisive_wrong += count * (not truth)
            if not j.escalated and not j.real and truth:
                misses += count
    lines = int(sum(w for _, _, w in points))
    real_lines = tp + fn
    return Figures(
        lines=lines,
        real_lines=real_lines,
        average_precision=metrics.average_precision(points),
        precision_at_recall_90=metrics.precision_at_recall(points, 0.9),
        precision=_ratio(tp, tp + fp),
        recall=_ratio(tp, real_lines),
        decisive_real_precision=_ratio(decisive_real - decisive_wrong, decisive_real),
        decisive_real_lines=decisive_real,
        decisive_wrong_real=decisive_wrong,
        dismissal_miss_rate=_ratio(misses, real_lines),
        decisive_misses=misses,
        escalation_rate=_ratio(sum(j.escalated for j in judged), len(judged)),
        oracle_precision=_ratio(otp, otp + ofp),
        oracle_recall=_ratio(otp, otp + ofn),
    )


@dataclass(frozen=True)
class CleanFigures:
    """What held-out clean trees (no live credential in them) say about a scorer: every
    ``real`` call is a false alarm, and every escalation costs model calls."""

    repositories: int
    findings: int
    false_real: int  # findings called ``real`` offline
    decisive_false_real: int  # ... and not escalated: no model would see them
    escalated: int
    false_real_per_repository: float
    worst_repository: str
    worst_false_real: int
    escalation_rate: float


def clean_figures(judged: Sequence[Judged]) -> CleanFigures:
    """Per finding, not per line: a user sees findings."""
    repos = sorted({j.sample.group for j in judged})
    per_repo = dict.fromkeys(repos, 0)
    for j in judged:
        per_repo[j.sample.group] += j.real
    worst = max(repos, key=lambda r: (per_repo[r], r)) if repos else ""
    false_real = sum(per_repo.values())
    escalated = sum(j.escalated for j in judged)
    return CleanFigures(
        repositories=len(repos),
        findings=len(judged),
        false_real=false_real,
        decisive_false_real=sum(j.real and not j.escalated for j in judged),
        escalated=escalated,
        false_real_per_repository=_ratio(false_real, len(repos)),
        worst_repository=worst,
        worst_false_real=per_repo.get(worst, 0),
        escalation_rate=_ratio(escalated, len(judged)),
    )


@dataclass(frozen=True)
class FoldReport:
    fold: int
    repositories: int
    findings: int
    real_threshold: float
    band: tuple[float, float]
    by_source: dict[str, Figures]  # "all" and each label source
    # source -> family ("trees", "logistic") -> (AP, P@R0.9) of that family alone
    families: dict[str, dict[str, tuple[float, float]]]
    clean: CleanFigures | None = None  # the fold's weakly labelled clean trees, if any


def by_source(judged: Sequence[Judged]) -> dict[str, Figures]:
    """Figures per label source and for all of them; weak labels (clean trees, dev
    findings nobody labelled) are left out: they are counted by ``clean_of``."""
    judged = [j for j in judged if j.sample.source not in WEAK_SOURCES]
    sources = sorted({j.sample.source for j in judged if j.sample.source})
    result = {ALL: figures(judged)}
    for source in sources:
        result[source] = figures([j for j in judged if j.sample.source == source])
    return result


def clean_of(judged: Sequence[Judged]) -> CleanFigures | None:
    """The clean-tree figures of the weakly labelled samples among ``judged``, if any."""
    weak = [j for j in judged if j.sample.source == WILD_SOURCE]
    return clean_figures(weak) if weak else None


def families(scorer: Scorer, held: Sequence[Sample]) -> dict[str, dict[str, tuple[float, float]]]:
    """Each model family of the fold's scorer alone, ranked on the same held-out lines."""
    held = [s for s in held if s.source not in WEAK_SOURCES]
    parts = [scorer.component_p_real(s.features) for s in held]
    result: dict[str, dict[str, tuple[float, float]]] = {}
    for source in [ALL, *sorted({s.source for s in held if s.source})]:
        chosen = [(s, p) for s, p in zip(held, parts, strict=True) if source in (ALL, s.source)]
        result[source] = {}
        for index, family in enumerate(("trees", "logistic")):
            points = [
                (p[index], label == "real", float(count))
                for s, p in chosen
                for label, count in s.labels.items()
            ]
            result[source][family] = (
                metrics.average_precision(points),
                metrics.precision_at_recall(points, 0.9),
            )
    return result


def cross_validate(samples: Sequence[Sample], k: int = 5) -> tuple[list[FoldReport], list[Judged]]:
    """Outer grouped CV: per fold, ``build_scorer`` on the other repositories, then
    judge the fold's. Returns the fold reports and every held-out judgement."""
    reports: list[FoldReport] = []
    everything: list[Judged] = []
    for number, fold in enumerate(grouped_folds(samples, k), 1):
        held = [s for s in samples if s.group in fold]
        train = [s for s in samples if s.group not in fold]
        scorer = build_scorer(train)
        judged = judge(scorer, held)
        everything += judged
        point = scorer.operating_point
        # The labelled repositories' counts; clean trees are counted by ``clean_of``, so
        # the figures of the labelled folds do not depend on whether the trees are here.
        strong = [s for s in held if s.source not in WEAK_SOURCES]
        reports.append(
            FoldReport(
                fold=number,
                repositories=len({s.group for s in strong}),
                findings=len(strong),
                real_threshold=point.real_threshold,
                band=(point.band_low, point.band_high),
                by_source=by_source(judged),
                families=families(scorer, held),
                clean=clean_of(judged),
            )
        )
    return reports, everything
