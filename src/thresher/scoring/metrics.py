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
