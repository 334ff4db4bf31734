"""CVSS v4.0 base score (CVSS-B), ported from the FIRST / Red Hat reference calculator.

v4.0 has no closed formula: a vector falls into a macro-vector (six equivalence
classes, EQ1..EQ6), whose expert-assigned score (``cvss4_tables.LOOKUP``) is lowered
by the vector's mean severity distance from the macro-vector's highest-severity
vectors, each EQ's share scaled by how far the next lower macro-vector is
(https://www.first.org/cvss/v4-0/specification-document §8.2). This is
``CVSS40.calculateScore`` of ``cvss40.js`` (commit d1eafe0) step for step, in the
same floating-point order, so scores agree to the bit; it was checked against that
calculator under node on every one of the 104,976 base vectors.

Only the base score is computed: threat (``E``), environmental and supplemental
metrics in a vector are validated and then read as "not defined", which is how the
specification defines CVSS-B (E=X scores as E:A, CR/IR/AR=X as H).
"""

from __future__ import annotations

import math
from typing import cast

from thresher.deps.cvss4_tables import LOOKUP, MAX_COMPOSED, MAX_SEVERITY

BASE: dict[str, tuple[str, ...]] = {
    "AV": ("N", "A", "L", "P"),
    "AC": ("L", "H"),
    "AT": ("N", "P"),
    "PR": ("N", "L", "H"),
    "UI": ("N", "P", "A"),
    "VC": ("N", "L", "H"),
    "VI": ("N", "L", "H"),
    "VA": ("N", "L", "H"),
    "SC": ("N", "L", "H"),
    "SI": ("N", "L", "H"),
    "SA": ("N", "L", "H"),
}
OTHER: dict[str, tuple[str, ...]] = {
    "E": ("X", "A", "P", "U"),
    "CR": ("X", "H", "M", "L"),
    "IR": ("X", "H", "M", "L"),
    "AR": ("X", "H", "M", "L"),
    "MAV": ("X", "N", "A", "L", "P"),
    "MAC": ("X", "L", "H"),
    "MAT": ("X", "N", "P"),
    "MPR": ("X", "N", "L", "H"),
    "MUI": ("X", "N", "P", "A"),
    "MVC": ("X", "H", "L", "N"),
    "MVI": ("X", "H", "L", "N"),
    "MVA": ("X", "H", "L", "N"),
    "MSC": ("X", "H", "L", "N"),
    "MSI": ("X", "S", "H", "L", "N"),
    "MSA": ("X", "S", "H", "L", "N"),
    "S": ("X", "N", "P"),
    "AU": ("X", "N", "Y"),
    "R": ("X", "A", "U", "I"),
    "V": ("X", "D", "C"),
    "RE": ("X", "L", "M", "H"),
    "U": ("X", "Clear", "Green", "Amber", "Red"),
}
_LEVELS: dict[str, dict[str, float]] = {
    "AV": {"N": 0.0, "A": 0.1, "L": 0.2, "P": 0.3},
    "PR": {"N": 0.0, "L": 0.1, "H": 0.2},
    "UI": {"N": 0.0, "P": 0.1, "A": 0.2},
    "AC": {"L": 0.0, "H": 0.1},
    "AT": {"N": 0.0, "P": 0.1},
    "VC": {"H": 0.0, "L": 0.1, "N": 0.2},
    "VI": {"H": 0.0, "L": 0.1, "N": 0.2},
    "VA": {"H": 0.0, "L": 0.1, "N": 0.2},
    "SC": {"H": 0.1, "L": 0.2, "N": 0.3},
    "SI": {"S": 0.0, "H": 0.1, "L": 0.2, "N": 0.3},
    "SA": {"S": 0.0, "H": 0.1, "L": 0.2, "N": 0.3},
    "CR": {"H": 0.0, "M": 0.1, "L": 0.2},
    "IR": {"H": 0.0, "M": 0.1, "L": 0.2},
    "AR": {"H": 0.0, "M": 0.1, "L": 0.2},
    "E": {"U": 0.2, "P": 0.1, "A": 0.0},
}
_STEP = 0.1


def base_score(base: dict[str, str]) -> float:
    """The CVSS-B score of the eleven base metrics (validated by the caller)."""
    m = {**base, "E": "A", "CR": "H", "IR": "H", "AR": "H"}  # "not defined", worst case
    if all(m[k] == "N" for k in ("VC", "VI", "VA", "SC", "SI", "SA")):
        return 0.0
    eq = _macro_vector(m)
    value = LOOKUP[eq]
    eq1, eq2, eq3, eq4, eq5, eq6 = (int(c) for c in eq)

    def lower(*digits: int) -> float | None:
        return LOOKUP.get("".join(str(d) for d in digits))

    score_eq1 = lower(eq1 + 1, eq2, eq3, eq4, eq5, eq6)
    score_eq2 = lower(eq1, eq2 + 1, eq3, eq4, eq5, eq6)
    score_eq3eq6: float | None
    if eq3 == 0 and eq6 == 0:
        left = lower(eq1, eq2, eq3, eq4, eq5, eq6 + 1)
        right = lower(eq1, eq2, eq3 + 1, eq4, eq5, eq6)
        # JS Math.max: NaN (a missing macro-vector) wins
        score_eq3eq6 = None if left is None or right is None else max(left, right)
    elif eq6 == 1 and eq3 in (0, 1):
        score_eq3eq6 = lower(eq1, eq2, eq3 + 1, eq4, eq5, eq6)
    elif eq3 == 1 and eq6 == 0:
        score_eq3eq6 = lower(eq1, eq2, eq3, eq4, eq5, eq6 + 1)
    else:
        score_eq3eq6 = lower(eq1, eq2, eq3 + 1, eq4, eq5, eq6 + 1)
    score_eq4 = lower(eq1, eq2, eq3, eq4 + 1, eq5, eq6)
    score_eq5 = lower(eq1, eq2, eq3, eq4, eq5 + 1, eq6)

    eq3_vectors = cast(dict[int, tuple[str, ...]], MAX_COMPOSED["eq3"][eq3])
    candidates = [
        a + b + c + d + e
        for a in cast(tuple[str, ...], MAX_COMPOSED["eq1"][eq1])
        for b in cast(tuple[str, ...], MAX_COMPOSED["eq2"][eq2])
        for c in eq3_vectors[eq6]
        for d in cast(tuple[str, ...], MAX_COMPOSED["eq4"][eq4])
        for e in cast(tuple[str, ...], MAX_COMPOSED["eq5"][eq5])
    ]
    distances: dict[str, float] = {}
    for candidate in candidates:
        top = dict(part.split(":") for part in candidate.strip("/").split("/"))
        distances = {k: _LEVELS[k][m[k]] - _LEVELS[k][top[k]] for k in _LEVELS}
        if all(d >= 0 for d in distances.values()):
            break

    current = (
        distances["AV"] + distances["PR"] + distances["UI"],
        distances["AC"] + distances["AT"],
        distances["VC"]
        + distances["VI"]
        + distances["VA"]
        + distances["CR"]
        + distances["IR"]
        + distances["AR"],
        distances["SC"] + distances["SI"] + distances["SA"],
    )
    depth = (
        cast(dict[int, int], MAX_SEVERITY["eq1"])[eq1] * _STEP,
        cast(dict[int, int], MAX_SEVERITY["eq2"])[eq2] * _STEP,
        cast(dict[int, dict[int, int]], MAX_SEVERITY["eq3eq6"])[eq3][eq6] * _STEP,
        cast(dict[int, int], MAX_SEVERITY["eq4"])[eq4] * _STEP,
    )
    existing = 0
    normalized = [0.0, 0.0, 0.0, 0.0, 0.0]
    for i, lower_score in enumerate((score_eq1, score_eq2, score_eq3eq6, score_eq4)):
        if lower_score is not None:
            existing += 1
            normalized[i] = (value - lower_score) * (current[i] / depth[i])
    if score_eq5 is not None:
        existing += 1
        normalized[4] = (value - score_eq5) * 0
    mean = 0.0
    if existing:
        total = normalized[0] + normalized[1] + normalized[2] + normalized[3] + normalized[4]
        mean = total / existing
    return _round(max(0.0, min(10.0, value - mean)))


def _macro_vector(m: dict[str, str]) -> str:
    av, pr, ui = m["AV"], m["PR"], m["UI"]
    if av == "N" and pr == "N" and ui == "N":
        eq1 = 0
    elif (av == "N" or pr == "N" or ui == "N") and av != "P":
        eq1 = 1
    else:
        eq1 = 2
    eq2 = 0 if m["AC"] == "L" and m["AT"] == "N" else 1
    vc, vi, va = m["VC"], m["VI"], m["VA"]
    if vc == "H" and vi == "H":
        eq3 = 0
    elif vc == "H" or vi == "H" or va == "H":
        eq3 = 1
    else:
        eq3 = 2
    # MSI/MSA "S" (safety) exist only as environmental values: never in a base score.
    eq4 = 1 if "H" in (m["SC"], m["SI"], m["SA"]) else 2
    eq5 = 0  # E not defined reads as Attacked
    eq6 = 0 if "H" in (vc, vi, va) else 1  # CR/IR/AR not defined read as High
    return f"{eq1}{eq2}{eq3}{eq4}{eq5}{eq6}"


def _round(value: float) -> float:
    """``roundToDecimalPlaces``: half up, after adding 1e-6 against float noise."""
    return math.floor((value + 10.0**-6) * 10 + 0.5) / 10
