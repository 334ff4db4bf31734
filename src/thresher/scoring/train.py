"""Training and grouped cross-validation of the offline scorer (needs numpy: dev only).

Everything learned is fitted on training folds only. Folds group whole
repositories, because candidates of one repository share conventions (key
names, layouts, fixtures) that would leak between folds and flatter the scores.
Hyper-parameters (the L2 strength) and the operating point (the ``real``
threshold and the escalation band) are chosen by an inner grouped
cross-validation inside each outer training split, so the outer-fold figures
are honest estimates for repositories the scorer has not seen.

The optimiser is full-batch Adam from zeros with a fixed number of steps, and the
weights are rounded before they are written: the same corpus gives the same
artifact bytes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from thresher.errors import UsageError
from thresher.results import Classification
from thresher.scoring.model import ARTIFACT_FORMAT, CLASSES, Artifact, OperatingPoint, Scorer
from thresher.scoring.policy import Band, Escalate, escalation_for, offline_call
from thresher.scoring.samples import Sample
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus

Matrix = npt.NDArray[np.float64]

LAMBDAS = (0.3, 1.0, 3.0)
STEPS = 1500
LEARNING_RATE = 0.05
WEIGHT_DECIMALS = 4
RECALL_TARGET = 0.975  # the offline 'real' threshold keeps this share of real lines
CEILING_TARGET = 0.998  # at most this share of real lines may be dismissed confidently
CONFIDENT_PRECISION = 0.95  # confident 'real' calls must be at least this precise
MAX_ESCALATION = 0.30
# Analyst knowledge as prior weights (real, test, not_secret): the L2 penalty pulls each
# weight toward its prior instead of toward zero, and training starts from it. Where the
# corpus has evidence the data moves the weight; where it has none (lockfiles, test-only
# key files, i18n calls are rare in it) the prior stands. These are the failure classes
# seen on repositories nobody tuned for, written down once, not fitted to any data.
_NOT_SECRET = (-2.0, 0.0, 2.0)
PRIORS: dict[str, tuple[float, float, float]] = {
    "file_lockfile": (-3.0, 0.0, 3.0),
    "lockfile_digest": (-4.0, 0.0, 4.0),
    "hash_named_digest": (-4.0, 0.0, 4.0),
    "value_reference": (-3.0, 0.0, 3.0),
    "value_code_edge": (-3.0, 0.0, 3.0),
    "value_code_chars": _NOT_SECRET,
    "followed_by_call": (-1.5, 0.0, 1.5),
    "comparison_before": _NOT_SECRET,
    "i18n_call": (-3.0, 0.0, 3.0),
    "ui_text": (-3.0, 0.0, 3.0),
    "key_ui": (-1.5, 0.0, 1.5),
    "value_explicit_placeholder": _NOT_SECRET,
    "referenced_by_tests_only": (-3.0, 3.0, 0.0),
    "value_repeats_key": _NOT_SECRET,
    "expression_value": (-3.0, 0.0, 3.0),
    "in_test_block": (-2.0, 2.0, 0.0),
    "line_hash_words": (-1.0, 0.0, 1.0),
    "no_credential_context": (-2.0, 0.0, 2.0),
    "entropy_only": (-3.0, 0.0, 3.0),
}
_GRID = tuple(round(x, 3) for x in np.arange(0.005, 1.0, 0.005))


class TrainingError(UsageError):
    """The data cannot train a scorer (too few labelled findings or repositories)."""


def _validations(checks: Iterable[tuple[str, str]]) -> list[ValidationResult]:
    return [
        ValidationResult(
            validator="offline", kind=CheckKind(k), status=ValidationStatus(s), detail=""
        )
        for k, s in checks
    ]


class _Design:
    """Samples expanded to one row per (finding, label) with that label's line count."""

    def __init__(self, samples: Sequence[Sample], names: Sequence[str]) -> None:
        index = {n: i for i, n in enumerate(names)}
        rows: list[int] = []
        labels: list[int] = []
        weights: list[float] = []
        for i, sample in enumerate(samples):
            for label, count in sorted(sample.labels.items()):
                rows.append(i)
                labels.append(CLASSES.index(label))
                weights.append(float(count))
        self.x = np.zeros((len(samples), len(names)))
        for i, sample in enumerate(samples):
            for name, value in sample.features.items():
                j = index.get(name)
                if j is not None:
                    self.x[i, j] = value
        self.rows = np.array(rows, dtype=np.int64)
        self.y = np.array(labels, dtype=np.int64)
        self.w = np.array(weights)


def feature_names(samples: Iterable[Sample]) -> list[str]:
    names = {name for s in samples for name in s.features}
    return ["bias", *sorted(names - {"bias"})]


def fit(samples: Sequence[Sample], lam: float) -> dict[str, tuple[float, float, float]]:
    """Weighted multinomial logistic regression with L2 (bias not penalised)."""
    if not any(s.labels for s in samples):
        raise TrainingError("no labelled findings to train on")
    names = sorted((set(feature_names(s for s in samples if s.labels)) | set(PRIORS)) - {"bias"})
    names = ["bias", *names]
    design = _Design([s for s in samples if s.labels], names)
    x = design.x[design.rows]
    targets = np.eye(len(CLASSES))[design.y]
    total = float(design.w.sum())
    sw = (design.w / total)[:, None]
    penalty = np.ones((len(names), 1)) * lam / total
    penalty[0] = 0.0
    prior = np.array([PRIORS.get(name, (0.0, 0.0, 0.0)) for name in names])
    weights = prior.copy()
    m = np.zeros_like(weights)
    v = np.zeros_like(weights)
    for step in range(1, STEPS + 1):
        logits = x @ weights
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        grad = x.T @ ((probs - targets) * sw) + penalty * (weights - prior)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        m_hat = m / (1 - 0.9**step)
        v_hat = v / (1 - 0.999**step)
        weights -= LEARNING_RATE * m_hat / (np.sqrt(v_hat) + 1e-8)
    rounded = np.round(weights, WEIGHT_DECIMALS)
    return {
        name: (float(row[0]) + 0.0, float(row[1]) + 0.0, float(row[2]) + 0.0)
        for name, row in zip(names, rounded, strict=True)
        if np.any(row != 0.0)
    }


def grouped_folds(samples: Sequence[Sample], k: int) -> list[list[str]]:
    """Repositories dealt into ``k`` folds, largest first, each to the lightest fold
    (by labelled lines), ties by name: deterministic and balanced."""
    load: Counter[str] = Counter()
    for s in samples:
        load[s.group] += sum(s.labels.values())
    groups = sorted({s.group for s in samples}, key=lambda g: (-load[g], g))
    folds: list[list[str]] = [[] for _ in range(k)]
    totals = [0] * k
    for group in groups:
        target = min(range(k), key=lambda j: (totals[j], j))
        folds[target].append(group)
        totals[target] += load[group]
    return [sorted(f) for f in folds]


def _p_real(scorer: Scorer, samples: Sequence[Sample]) -> Matrix:
    return np.array([scorer.assess_features(s.features).p_real for s in samples])


@dataclass(frozen=True)
class Scores:
    precision: float
    recall: float
    f1: float


def scores(tp: float, fp: float, fn: float) -> Scores:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return Scores(round(p, 4), round(r, 4), round(f1, 4))


def choose_point(p_real: Matrix, samples: Sequence[Sample]) -> OperatingPoint:
    """The operating point from out-of-fold P(real) of labelled lines."""
    real = np.array([s.labels.get("real", 0) for s in samples], dtype=np.float64)
    rest = np.array([sum(s.labels.values()) - s.labels.get("real", 0) for s in samples], float)
    all_real = float(real.sum()) or 1.0
    threshold = _GRID[0]
    for t in _GRID:
        if real[p_real >= t].sum() / all_real >= RECALL_TARGET:
            threshold = t
    low = 0.0
    for t in _GRID:
        if real[p_real <= t].sum() / all_real <= 1 - CEILING_TARGET:
            low = t
    low = min(low, round(threshold - 0.005, 3))

    def escalated(lo: float, hi: float) -> float:
        return float(np.mean((p_real > lo) & (p_real < hi))) if len(p_real) else 0.0

    # The most decisive upper edge whose confident 'real' calls are precise enough.
    above = [t for t in _GRID if t > threshold]
    precise = [
        t
        for t in above
        if real[p_real >= t].sum()
        >= CONFIDENT_PRECISION * max(1.0, (real + rest)[p_real >= t].sum())
    ]
    high = min(precise) if precise else max(above, default=threshold)
    # Within the escalation budget: raise the lower edge first (the ceiling target may
    # ask for more than the budget allows), then lower the upper one.
    while low < threshold - 0.005 and escalated(low, high) > MAX_ESCALATION:
        low = round(low + 0.005, 3)
    while high > threshold and escalated(low, high) > MAX_ESCALATION:
        high = round(high - 0.005, 3)
    return OperatingPoint(real_threshold=threshold, band_low=max(0.0, low), band_high=high)


@dataclass(frozen=True)
class FoldReport:
    fold: int
    repositories: int
    findings: int
    lines: int
    offline: Scores
    oracle: Scores
    escalation_rate: float
    operating_point: OperatingPoint
    regularisation: float


def evaluate_fold(
    scorer: Scorer, samples: Sequence[Sample], point: OperatingPoint
) -> tuple[Scores, Scores, float, list[tuple[float, int, int]]]:
    """Offline and oracle scores for 'real', the escalation rate, calibration rows."""
    tp = fp = fn = otp = ofp = ofn = 0
    escalated = 0
    calibration: list[tuple[float, int, int]] = []
    band = Band.of(point)
    for sample in samples:
        assessment = scorer.assess_features(sample.features)
        call = offline_call(assessment, _validations(sample.checks), point)
        escalation = escalation_for(call, assessment, Escalate.UNCERTAIN, band)
        escalated += escalation.would_escalate
        is_real = call.classification is Classification.REAL
        for label, count in sample.labels.items():
            truth = label == "real"
            calibration.append((assessment.p_real, int(truth) * count, count))
            tp += count * (is_real and truth)
            fp += count * (is_real and not truth)
            fn += count * (not is_real and truth)
            oracle_real = truth if escalation.would_escalate else is_real
            otp += count * (oracle_real and truth)
            ofp += count * (oracle_real and not truth)
            ofn += count * (not oracle_real and truth)
    rate = escalated / len(samples) if samples else 0.0
    return scores(tp, fp, fn), scores(otp, ofp, ofn), round(rate, 4), calibration


def scorer_from(
    weights: dict[str, tuple[float, float, float]], point: OperatingPoint, lam: float = 0.0
) -> Scorer:
    """An in-memory scorer (a fold's), without provenance."""
    artifact = Artifact(
        format=ARTIFACT_FORMAT,
        classes=CLASSES,
        weights=weights,
        operating_point=point,
        regularisation=lam,
        training={},
    )
    return Scorer(artifact, name="fold")


def select(samples: Sequence[Sample], k: int) -> tuple[float, OperatingPoint]:
    """L2 strength (lowest out-of-fold log-loss) and operating point by grouped CV."""
    labelled = {s.group for s in samples if s.labels}
    if len(labelled) < 2:
        raise TrainingError(
            f"choosing the operating point needs at least 2 repositories with labelled "
            f"lines, got {len(labelled)}"
        )
    folds = [f for f in grouped_folds(samples, min(k, len(labelled))) if f]
    best: tuple[float, float, Matrix] | None = None
    placeholder = OperatingPoint(real_threshold=0.5, band_low=0.0, band_high=1.0)
    for lam in LAMBDAS:
        p = np.zeros(len(samples))
        for fold in folds:
            held = np.array([s.group in fold for s in samples])
            train = [s for s, h in zip(samples, held, strict=True) if not h]
            scorer = scorer_from(fit(train, lam), placeholder)
            p[held] = _p_real(scorer, [s for s, h in zip(samples, held, strict=True) if h])
        loss = _log_loss(p, samples)
        if best is None or loss < best[1] - 1e-9:
            best = (lam, loss, p)
    assert best is not None
    return best[0], choose_point(best[2], samples)


def _log_loss(p_real: Matrix, samples: Sequence[Sample]) -> float:
    real = np.array([s.labels.get("real", 0) for s in samples], dtype=np.float64)
    rest = np.array([sum(s.labels.values()) - s.labels.get("real", 0) for s in samples], float)
    p = np.clip(p_real, 1e-6, 1 - 1e-6)
    return float(-(real * np.log(p) + rest * np.log(1 - p)).sum() / max(1.0, (real + rest).sum()))


def cross_validate(
    samples: Sequence[Sample], k: int = 5, inner: int = 4
) -> tuple[list[FoldReport], list[tuple[float, int, int]]]:
    """Nested grouped CV: per outer fold, choose on the training repositories, fit on
    them, and score the held-out repositories."""
    reports: list[FoldReport] = []
    calibration: list[tuple[float, int, int]] = []
    for number, fold in enumerate(grouped_folds(samples, k), 1):
        held = [s for s in samples if s.group in fold]
        train = [s for s in samples if s.group not in fold]
        lam, point = select(train, inner)
        scorer = scorer_from(fit(train, lam), point)
        offline, oracle, rate, rows = evaluate_fold(scorer, held, point)
        calibration += rows
        reports.append(
            FoldReport(
                fold=number,
                repositories=len(fold),
                findings=len(held),
                lines=sum(sum(s.labels.values()) for s in held),
                offline=offline,
                oracle=oracle,
                escalation_rate=rate,
                operating_point=point,
                regularisation=lam,
            )
        )
    return reports, calibration
