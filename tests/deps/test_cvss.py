"""CVSS v3.x base scores from the vector, checked against published scores."""

from __future__ import annotations

import pytest

from thresher.deps.cvss import CvssError, CvssSeverity, rating, roundup, score, to_severity
from thresher.findings.model import Severity


@pytest.mark.parametrize(
    ("vector", "expected", "severity"),
    [
        # FIRST CVSS v3.1 Examples, CVE-2013-1937 (phpMyAdmin reflected XSS): 6.1.
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", 6.1, Severity.MEDIUM),
        # FIRST CVSS v3.1 Examples, CVE-2013-0375 (MySQL stored SQL injection): 6.4.
        ("CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:L/I:L/A:N", 6.4, Severity.MEDIUM),
        # NVD, CVE-2014-0160 (Heartbleed), v3.x: 7.5 HIGH.
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", 7.5, Severity.HIGH),
        # NVD, CVE-2021-44228 (Log4Shell): 10.0 CRITICAL.
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10.0, Severity.CRITICAL),
        # NVD, CVE-2021-3156 (sudo "Baron Samedit"): 7.8 HIGH.
        ("CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", 7.8, Severity.HIGH),
        # NVD, CVE-2014-6271 (Shellshock), scored with v3.0: 9.8 CRITICAL.
        ("CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8, Severity.CRITICAL),
        # No impact at all: 0.0, "None", which thresher reports as low.
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N", 0.0, Severity.LOW),
    ],
)
def test_base_score_matches_the_published_one(
    vector: str, expected: float, severity: Severity
) -> None:
    cvss = score(vector)
    assert cvss.base_score == expected
    assert cvss.severity is severity
    assert cvss.version == vector[5:8]


def test_temporal_metrics_do_not_change_the_base_score() -> None:
    assert score("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N/E:U/RL:O/RC:C").base_score == 7.5


def test_roundup_as_the_specification_gives_it() -> None:
    # CVSS v3.1 specification, Appendix A: Roundup(4.02) = 4.1, Roundup(4.00) = 4.0,
    # and the float-safe form keeps 4.000000000000001-style noise from rounding up.
    assert roundup(4.02, "3.1") == 4.1
    assert roundup(4.00, "3.1") == 4.0
    assert roundup(4.0000000000000001, "3.1") == 4.0


def test_qualitative_rating_boundaries() -> None:
    # CVSS v3.1 specification, Table 14.
    assert [rating(s) for s in (0.0, 0.1, 3.9, 4.0, 6.9, 7.0, 8.9, 9.0, 10.0)] == [
        CvssSeverity.NONE,
        CvssSeverity.LOW,
        CvssSeverity.LOW,
        CvssSeverity.MEDIUM,
        CvssSeverity.MEDIUM,
        CvssSeverity.HIGH,
        CvssSeverity.HIGH,
        CvssSeverity.CRITICAL,
        CvssSeverity.CRITICAL,
    ]


@pytest.mark.parametrize(
    ("vector", "message"),
    [
        ("AV:N/AC:L/Au:N/C:P/I:P/A:P", "not a CVSS v3 or v4 vector"),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N", "lacks base metric"),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:S", "SA:S is not"),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N/Q:1", "unknown"),
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H", "lacks base metric"),
        ("CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "AV:X is not a valid value"),
        ("CVSS:3.1/AV:N/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "given twice"),
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/ZZ:1", "unknown metric"),
    ],
)
def test_invalid_vectors_are_clear_errors(vector: str, message: str) -> None:
    with pytest.raises(CvssError, match=message):
        score(vector)


@pytest.mark.parametrize(
    ("vector", "expected"),
    [
        # CVSS v4.0 specification examples / FIRST calculator: the all-high network vector.
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", 9.3),
        ("CVSS:4.0/AV:L/AC:L/AT:N/PR:N/UI:P/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", 8.5),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N", 0.0),
        # A random sample of base vectors scored by the FIRST / Red Hat reference calculator
        # (github.com/RedHatProductSecurity/cvss-v4-calculator, cvss40.js at d1eafe0, under
        # node); the port was checked against it on all 104,976 base vectors.
        ("CVSS:4.0/AV:A/AC:L/AT:N/PR:H/UI:N/VC:L/VI:N/VA:H/SC:H/SI:H/SA:N", 8.3),
        ("CVSS:4.0/AV:A/AC:H/AT:N/PR:N/UI:N/VC:L/VI:L/VA:H/SC:L/SI:N/SA:N", 6.1),
        ("CVSS:4.0/AV:N/AC:H/AT:N/PR:N/UI:N/VC:L/VI:L/VA:H/SC:H/SI:L/SA:L", 9.1),
        ("CVSS:4.0/AV:P/AC:H/AT:N/PR:L/UI:N/VC:H/VI:N/VA:N/SC:N/SI:L/SA:L", 4.1),
        ("CVSS:4.0/AV:A/AC:H/AT:P/PR:H/UI:A/VC:N/VI:L/VA:H/SC:H/SI:N/SA:N", 5.6),
        ("CVSS:4.0/AV:L/AC:L/AT:P/PR:L/UI:A/VC:N/VI:N/VA:H/SC:H/SI:N/SA:L", 5.7),
        ("CVSS:4.0/AV:N/AC:H/AT:P/PR:N/UI:N/VC:H/VI:L/VA:H/SC:N/SI:H/SA:H", 9.1),
        ("CVSS:4.0/AV:N/AC:L/AT:P/PR:H/UI:P/VC:N/VI:L/VA:H/SC:L/SI:N/SA:L", 5.8),
        ("CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:A/VC:H/VI:H/VA:L/SC:H/SI:H/SA:N", 8.7),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:L/UI:N/VC:L/VI:H/VA:N/SC:N/SI:L/SA:H", 8.4),
        ("CVSS:4.0/AV:L/AC:L/AT:N/PR:N/UI:N/VC:N/VI:L/VA:H/SC:L/SI:L/SA:H", 8.4),
        ("CVSS:4.0/AV:L/AC:H/AT:N/PR:H/UI:A/VC:H/VI:L/VA:N/SC:N/SI:N/SA:H", 5.6),
        ("CVSS:4.0/AV:A/AC:L/AT:P/PR:H/UI:P/VC:N/VI:N/VA:N/SC:H/SI:L/SA:N", 2),
        ("CVSS:4.0/AV:P/AC:H/AT:P/PR:H/UI:A/VC:H/VI:H/VA:N/SC:H/SI:L/SA:N", 6.8),
        ("CVSS:4.0/AV:P/AC:H/AT:P/PR:N/UI:A/VC:L/VI:H/VA:N/SC:L/SI:L/SA:L", 4.3),
        ("CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:P/VC:L/VI:H/VA:N/SC:H/SI:N/SA:N", 7),
        ("CVSS:4.0/AV:A/AC:L/AT:N/PR:L/UI:N/VC:H/VI:H/VA:N/SC:L/SI:N/SA:N", 8.5),
        ("CVSS:4.0/AV:L/AC:H/AT:N/PR:L/UI:N/VC:L/VI:L/VA:H/SC:H/SI:H/SA:H", 7.2),
        ("CVSS:4.0/AV:L/AC:H/AT:N/PR:H/UI:N/VC:L/VI:L/VA:L/SC:N/SI:H/SA:H", 4.5),
        ("CVSS:4.0/AV:A/AC:H/AT:P/PR:N/UI:P/VC:H/VI:N/VA:H/SC:H/SI:L/SA:L", 7.1),
        ("CVSS:4.0/AV:A/AC:L/AT:P/PR:L/UI:P/VC:H/VI:N/VA:H/SC:N/SI:L/SA:L", 4.4),
        ("CVSS:4.0/AV:P/AC:H/AT:P/PR:L/UI:A/VC:N/VI:L/VA:H/SC:N/SI:H/SA:L", 5.7),
        ("CVSS:4.0/AV:N/AC:H/AT:P/PR:L/UI:P/VC:N/VI:N/VA:L/SC:N/SI:L/SA:H", 4.8),
        ("CVSS:4.0/AV:N/AC:H/AT:N/PR:N/UI:P/VC:N/VI:N/VA:H/SC:L/SI:L/SA:N", 6),
    ],
)
def test_v4_base_score_matches_the_reference_calculator(vector: str, expected: float) -> None:
    cvss = score(vector)
    assert (cvss.version, cvss.base_score) == ("4.0", expected)
    assert cvss.severity is to_severity(expected)


def test_v4_threat_and_environmental_metrics_do_not_change_the_base_score() -> None:
    base = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"
    assert score(base + "/E:U/CR:L/MAV:P/S:N/U:Red").base_score == 9.3
