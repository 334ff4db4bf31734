"""Summary figures shared by training and ``thresher eval``: the calibration table and
the spread of a figure across folds. Numpy-free, so ``eval`` imports it freely."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

CALIBRATION_BINS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 0.98, 1.0)


class CalibrationRow(BaseModel):
    """One P(real) bin: how many lines fell in it, the mean predicted P(real) and the
    observed share of real lines."""

    model_config = ConfigDict(frozen=True)

    low: float
    high: float
    lines: int
    predicted: float
    observed: float


def calibration(rows: Iterable[tuple[float, int, int]]) -> list[CalibrationRow]:
    """``rows`` are (P(real), real lines, lines); empty bins are left out."""
    table: list[CalibrationRow] = []
    data = list(rows)
    for low, high in itertools.pairwise(CALIBRATION_BINS):
        last = high >= 1.0
        inside = [r for r in data if low <= r[0] < high or (last and r[0] == 1.0)]
        lines = sum(r[2] for r in inside)
        if not lines:
            continue
        predicted = sum(r[0] * r[2] for r in inside) / lines
        observed = sum(r[1] for r in inside) / lines
        table.append(
            CalibrationRow(
                low=low,
                high=high,
                lines=lines,
                predicted=round(predicted, 3),
                observed=round(observed, 3),
            )
        )
    return table


def spread(values: list[float]) -> dict[str, float]:
    """Mean, population standard deviation, minimum and maximum, rounded for reports."""
    return {
        "mean": round(statistics.fmean(values), 4),
        "stdev": round(statistics.pstdev(values), 4),
        "min": round(min(values), 4),
        "max": round(max(values), 4),
    }


def _curve(points: Iterable[tuple[float, bool, float]]) -> list[tuple[float, float, float]]:
    """(threshold, true positives, false positives) at each distinct score, highest
    first; ``points`` are (score, is positive, weight)."""
    ordered = sorted(points, key=lambda p: -p[0])
    curve: list[tuple[float, float, float]] = []
    tp = fp = 0.0
    for index, (score, positive, weight) in enumerate(ordered):
        if positive:
            tp += weight
        else:
            fp += weight
        if index + 1 == len(ordered) or ordered[index + 1][0] != score:
            curve.append((score, tp, fp))
    return curve


def average_precision(points: Iterable[tuple[float, bool, float]]) -> float:
    """Area under the precision-recall curve as a step function (scikit-learn's
    definition): the mean precision at each threshold, weighted by the recall it adds.
    Ties are one threshold, so a model that scores many lines alike gains nothing."""
    curve = _curve(points)
    total = curve[-1][1] if curve else 0.0
    if not total:
        return 0.0
    area = previous = 0.0
    for _, tp, fp in curve:
        recall = tp / total
        area += (recall - previous) * (tp / (tp + fp) if tp + fp else 0.0)
        previous = recall
    return round(area, 4)


def precision_at_recall(points: Iterable[tuple[float, bool, float]], recall: float) -> float:
    """The best precision of any threshold that keeps at least ``recall`` of the
    positives (0 when none does)."""
    curve = _curve(points)
    total = curve[-1][1] if curve else 0.0
    if not total:
        return 0.0
    best = max((tp / (tp + fp) for _, tp, fp in curve if tp / total >= recall - 1e-12), default=0.0)
    return round(best, 4)


class CurvePoint(BaseModel):
    """One point of the precision-recall curve of P(real): calling ``real`` every line
    at or above ``threshold`` keeps ``recall`` of the real lines at ``precision``."""

    model_config = ConfigDict(frozen=True)

    threshold: float
    recall: float
    precision: float


def pr_curve(points: Iterable[tuple[float, bool, float]], step: float = 0.005) -> list[CurvePoint]:
    """The precision-recall curve, highest threshold first, thinned for drawing.

    A corpus has thousands of distinct scores; a point is kept when recall or precision
    has moved by ``step`` since the last kept one (and the last point always), so a
    chart or a JSON report carries a few hundred points that draw the same line. The
    figures are rounded to 4 places so that the curve, and what is drawn from it, is
    byte-stable across runs and platforms."""
    curve = _curve(points)
    total = curve[-1][1] if curve else 0.0
    if not total:
        return []
    kept: list[CurvePoint] = []
    for index, (threshold, tp, fp) in enumerate(curve):
        point = CurvePoint(
            threshold=round(threshold, 4),
            recall=round(tp / total, 4),
            precision=round(tp / (tp + fp), 4) if tp + fp else 0.0,
        )
        last = kept[-1] if kept else None
        if (
            last is None
            or index + 1 == len(curve)
            or abs(point.recall - last.recall) >= step
            or abs(point.precision - last.precision) >= step
        ):
            kept.append(point)
    return kept
