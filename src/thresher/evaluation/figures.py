"""The figures ``thresher eval`` reports over flagged lines: precision and recall of
the calls, breakdowns by slice, calibration, and the operating-point-free ranking with
the decisive promises. Kept apart from ``evaluation.secrets`` (which scans and decides) so the
arithmetic can be read, and tested, without the pipeline around it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from thresher.findings.results import Classification
from thresher.scoring.metrics import (
    CalibrationRow,
    CurvePoint,
    average_precision,
    calibration,
    pr_curve,
    precision_at_recall,
)


class Scores(BaseModel):
    model_config = ConfigDict(frozen=True)

    precision: float
    recall: float
    f1: float
    true_positives: int
    false_positives: int
    false_negatives: int


class Breakdown(BaseModel):
    """Scores of one slice (a rule, a file kind) with its label counts."""

    model_config = ConfigDict(frozen=True)

    lines: int
    labels: dict[str, int]
    scores: Scores


class Ranking(BaseModel):
    """Operating-point-free figures of P(real) (average precision, precision at recall
    0.9) and the operating point's two decisive promises, over labelled flagged lines."""

    model_config = ConfigDict(frozen=True)

    lines: int
    real_lines: int
    average_precision: float
    precision_at_recall_90: float
    decisive_real_lines: int  # called real and not escalated
    decisive_wrong_real: int
    decisive_real_precision: float
    decisive_misses: int  # real lines dismissed and not escalated
    dismissal_miss_rate: float


def scores(tp: int, fp: int, fn: int) -> Scores:
    """Precision, recall and F1 of the positive class (0 where undefined)."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Scores(
        precision=round(precision, 4),
        recall=round(recall, 4),
        f1=round(f1, 4),
        true_positives=tp,
        false_positives=fp,
        false_negatives=fn,
    )


@dataclass(frozen=True)
class Line:
    """One flagged line: its truth (or None), the call, the oracle call, P(real)."""

    repo: str
    path: str
    rule: str
    source: str
    truth: str | None
    predicted: Classification
    oracle_real: bool
    p_real: float | None
    escalated: bool = False


def score_lines(lines: list[Line]) -> tuple[Scores, Scores]:
    tp = fp = fn = otp = ofp = ofn = 0
    for line in lines:
        if line.truth is None:
            continue
        truth = line.truth == "real"
        real = line.predicted is Classification.REAL
        tp, fp, fn = tp + (real and truth), fp + (real and not truth), fn + (not real and truth)
        o = line.oracle_real
        otp, ofp, ofn = otp + (o and truth), ofp + (o and not truth), ofn + (not o and truth)
    return scores(tp, fp, fn), scores(otp, ofp, ofn)


def breakdown(lines: list[Line], key: Callable[[Line], str]) -> dict[str, Breakdown]:
    groups: dict[str, list[Line]] = {}
    for line in lines:
        if line.truth is not None:
            groups.setdefault(key(line), []).append(line)
    return {
        name: Breakdown(
            lines=len(group),
            labels=dict(Counter(str(line.truth) for line in group)),
            scores=score_lines(group)[0],
        )
        for name, group in sorted(groups.items())
    }


def calibration_of(lines: list[Line]) -> list[CalibrationRow]:
    return calibration(
        (line.p_real, int(line.truth == "real"), 1)
        for line in lines
        if line.truth is not None and line.p_real is not None
    )


def curve_of(lines: list[Line]) -> list[CurvePoint]:
    """The precision-recall curve of P(real) over the labelled lines (a line without a
    P(real) ranks last, as in ``ranking``): what ``eval --html`` draws."""
    return pr_curve(
        (line.p_real if line.p_real is not None else 0.0, line.truth == "real", 1.0)
        for line in lines
        if line.truth is not None
    )


def ranking(lines: list[Line]) -> Ranking:
    labelled = [line for line in lines if line.truth is not None]
    points = [
        (line.p_real if line.p_real is not None else 0.0, line.truth == "real", 1.0)
        for line in labelled
    ]
    real_lines = sum(1 for line in labelled if line.truth == "real")
    decisive = [
        line for line in labelled if not line.escalated and line.predicted is Classification.REAL
    ]
    wrong = sum(1 for line in decisive if line.truth != "real")
    misses = sum(
        1
        for line in labelled
        if not line.escalated and line.predicted is not Classification.REAL and line.truth == "real"
    )
    return Ranking(
        lines=len(labelled),
        real_lines=real_lines,
        average_precision=average_precision(points),
        precision_at_recall_90=precision_at_recall(points, 0.9),
        decisive_real_lines=len(decisive),
        decisive_wrong_real=wrong,
        decisive_real_precision=round((len(decisive) - wrong) / len(decisive), 4)
        if decisive
        else 0.0,
        decisive_misses=misses,
        dismissal_miss_rate=round(misses / real_lines, 4) if real_lines else 0.0,
    )


def rankings(lines: list[Line], sources: Mapping[str, str]) -> dict[str, Ranking]:
    """``all``, then one entry per label source of the corpus's repositories."""
    result = {"all": ranking(lines)}
    for source in sorted({sources[line.repo] for line in lines if line.repo in sources}):
        result[source] = ranking([line for line in lines if sources.get(line.repo) == source])
    return result
