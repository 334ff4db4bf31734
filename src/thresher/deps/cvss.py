"""CVSS base scores computed from the vector, never taken from the advisory.

An advisory's numeric score can be stale or wrong; the vector is what it asserts, so
the score and the severity are derived here. CVSS v3.0 and v3.1 are computed exactly
as their specifications give them (https://www.first.org/cvss/v3.1/specification-document
§7.1 and Appendix A for the v3.1 ``Roundup``; v3.0 rounds up to one decimal with a
plain ceiling). Temporal and environmental metrics may follow the base ones and are
ignored: a base score is what we report.

CVSS v4.0 base scores (CVSS-B) are computed by ``thresher.deps.cvss4``, a port of the
FIRST / Red Hat reference calculator checked against it on every base vector.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import assert_never

from thresher.deps import cvss4
from thresher.deps.model import Cvss
from thresher.errors import ThresherError
from thresher.findings.model import Severity


class CvssError(ThresherError):
    """A vector that is not a valid CVSS v3.0, v3.1 or v4.0 vector."""


class CvssSeverity(StrEnum):
    """The qualitative rating scale (v3.1 specification, §5)."""

    NONE = "None"
    LOW = "Low"
    MEDIUM = "Medium"
    HIGH = "High"
    CRITICAL = "Critical"


_BASE: dict[str, dict[str, float]] = {
    "AV": {"N": 0.85, "A": 0.62, "L": 0.55, "P": 0.2},
    "AC": {"L": 0.77, "H": 0.44},
    "PR": {"N": 0.85, "L": 0.62, "H": 0.27},  # scope changed: L 0.68, H 0.5
    "UI": {"N": 0.85, "R": 0.62},
    "S": {"U": 0.0, "C": 0.0},
    "C": {"H": 0.56, "L": 0.22, "N": 0.0},
    "I": {"H": 0.56, "L": 0.22, "N": 0.0},
    "A": {"H": 0.56, "L": 0.22, "N": 0.0},
}
_PR_CHANGED = {"N": 0.85, "L": 0.68, "H": 0.5}
_OPTIONAL = {
    "E": "XUPFH",
    "RL": "XOTWU",
    "RC": "XURC",
    "CR": "XLMH",
    "IR": "XLMH",
    "AR": "XLMH",
    "MAV": "XNALP",
    "MAC": "XLH",
    "MPR": "XNLH",
    "MUI": "XNR",
    "MS": "XUC",
    "MC": "XNLH",
    "MI": "XNLH",
    "MA": "XNLH",
}


def score(vector: str) -> Cvss:
    """The base score and severity of a ``CVSS:3.0/``, ``CVSS:3.1/`` or ``CVSS:4.0/`` vector."""
    prefix, _, rest = vector.strip().partition("/")
    match prefix:
        case "CVSS:3.0" | "CVSS:3.1":
            version = prefix.removeprefix("CVSS:")
        case "CVSS:4.0":
            base = cvss4.base_score(_metrics_v4(vector, rest))
            return Cvss(
                vector=vector.strip(), version="4.0", base_score=base, severity=to_severity(base)
            )
        case _:
            raise CvssError(
                f"not a CVSS v3 or v4 vector: {vector!r} "
                "(expected 'CVSS:3.1/AV:…' or 'CVSS:4.0/AV:…')"
            )
    metrics = _metrics(vector, rest)
    base = _base_score(metrics, version)
    return Cvss(vector=vector.strip(), version=version, base_score=base, severity=to_severity(base))


def rating(base_score: float) -> CvssSeverity:
    if base_score == 0:
        return CvssSeverity.NONE
    if base_score < 4.0:
        return CvssSeverity.LOW
    if base_score < 7.0:
        return CvssSeverity.MEDIUM
    if base_score < 9.0:
        return CvssSeverity.HIGH
    return CvssSeverity.CRITICAL


def to_severity(base_score: float) -> Severity:
    """thresher's severity: CVSS "None" (0.0) has no thresher level and maps to low."""
    qualitative = rating(base_score)
    match qualitative:
        case CvssSeverity.NONE | CvssSeverity.LOW:
            return Severity.LOW
        case CvssSeverity.MEDIUM:
            return Severity.MEDIUM
        case CvssSeverity.HIGH:
            return Severity.HIGH
        case CvssSeverity.CRITICAL:
            return Severity.CRITICAL
        case _:
            assert_never(qualitative)


def roundup(value: float, version: str) -> float:
    """Round up to one decimal: v3.1's float-safe ``Roundup`` (Appendix A), v3.0's ceil."""
    if version == "3.0":
        return math.ceil(value * 10) / 10
    int_input = round(value * 100000)
    if int_input % 10000 == 0:
        return int_input / 100000.0
    return (math.floor(int_input / 10000) + 1) / 10.0


def _metrics(vector: str, rest: str) -> dict[str, str]:
    metrics: dict[str, str] = {}
    for part in rest.split("/") if rest else []:
        name, sep, value = part.partition(":")
        if not sep:
            raise CvssError(f"CVSS vector {vector!r}: {part!r} is not METRIC:VALUE")
        if name in metrics:
            raise CvssError(f"CVSS vector {vector!r}: metric {name} is given twice")
        allowed = _BASE.get(name)
        if allowed is not None and value not in allowed:
            raise CvssError(f"CVSS vector {vector!r}: {name}:{value} is not a valid value")
        if allowed is None and value not in _OPTIONAL.get(name, ""):
            raise CvssError(f"CVSS vector {vector!r}: unknown metric {name}:{value}")
        metrics[name] = value
    missing = [name for name in _BASE if name not in metrics]
    if missing:
        raise CvssError(f"CVSS vector {vector!r} lacks base metric(s) {', '.join(missing)}")
    return metrics


def _base_score(m: dict[str, str], version: str) -> float:
    changed = m["S"] == "C"
    iss = 1 - (1 - _BASE["C"][m["C"]]) * (1 - _BASE["I"][m["I"]]) * (1 - _BASE["A"][m["A"]])
    impact = 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 if changed else 6.42 * iss
    privileges = (_PR_CHANGED if changed else _BASE["PR"])[m["PR"]]
    exploitability = (
        8.22 * _BASE["AV"][m["AV"]] * _BASE["AC"][m["AC"]] * privileges * _BASE["UI"][m["UI"]]
    )
    if impact <= 0:
        return 0.0
    if changed:
        return roundup(min(1.08 * (impact + exploitability), 10), version)
    return roundup(min(impact + exploitability, 10), version)


def _metrics_v4(vector: str, rest: str) -> dict[str, str]:
    """The eleven base metrics of a v4 vector; the others are validated, then ignored."""
    base: dict[str, str] = {}
    seen: set[str] = set()
    for part in rest.split("/") if rest else []:
        name, sep, value = part.partition(":")
        if not sep:
            raise CvssError(f"CVSS vector {vector!r}: {part!r} is not METRIC:VALUE")
        if name in seen:
            raise CvssError(f"CVSS vector {vector!r}: metric {name} is given twice")
        seen.add(name)
        allowed = cvss4.BASE.get(name) or cvss4.OTHER.get(name)
        if allowed is None:
            raise CvssError(f"CVSS vector {vector!r}: unknown metric {name}:{value}")
        if value not in allowed:
            raise CvssError(f"CVSS vector {vector!r}: {name}:{value} is not a valid value")
        if name in cvss4.BASE:
            base[name] = value
    missing = [name for name in cvss4.BASE if name not in base]
    if missing:
        raise CvssError(f"CVSS vector {vector!r} lacks base metric(s) {', '.join(missing)}")
    return base
