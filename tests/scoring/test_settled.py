"""In-band dismissals that need no model (``policy.Settled``): a generic value in a
translation catalog or in test code, and hex nothing names a credential (issue 25)."""

from __future__ import annotations

import random

import pytest

from thresher.findings.results import Classification
from thresher.scoring.features import CandidateContext
from thresher.scoring.model import Assessment, OperatingPoint, shipped_scorer
from thresher.scoring.placement import Placement
from thresher.scoring.policy import Band, Escalate, Settled, escalation_for, offline_call, settled
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus

# As shipped: offline `real` only when decisive (the threshold is the band's upper edge).
POINT = OperatingPoint(real_threshold=0.9, band_low=0.05, band_high=0.9)
BAND = Band.of(POINT)


def assessed(
    p_real: float,
    *,
    placement: Placement = Placement.DEPLOYMENT,
    generic: bool = True,
    test_scope: bool = False,
    unnamed_hex: bool = False,
    private_key: bool = False,
) -> Assessment:
    rest = round(1.0 - p_real, 6)
    return Assessment(
        p_real=p_real,
        p_test=rest / 2,
        p_not_secret=rest / 2,
        placement=placement,
        generic_value=generic,
        test_scope=test_scope,
        unnamed_hex=unnamed_hex,
        private_key=private_key,
    )


def decided(
    assessment: Assessment, results: list[ValidationResult] | None = None
) -> tuple[Classification, bool, str]:
    call = offline_call(assessment, results or [], POINT)
    escalation = escalation_for(call, assessment, Escalate.UNCERTAIN, BAND)
    return call.classification, escalation.would_escalate, escalation.reason


CASES = [
    ({"placement": Placement.LOCALE}, Settled.TRANSLATION, "translation catalog"),
    ({"test_scope": True}, Settled.TEST_FIXTURE, "test code"),
    ({"unnamed_hex": True}, Settled.UNNAMED_HEX, "nothing naming a credential"),
]


@pytest.mark.parametrize(("facts", "why", "words"), CASES)
def test_an_in_band_generic_dismissal_there_is_decisive(
    facts: dict[str, object], why: Settled, words: str
) -> None:
    for p in (0.06, 0.3, 0.6, 0.89):
        assessment = assessed(p, **facts)  # type: ignore[arg-type]
        assert settled(assessment) is why
        classification, escalated, reason = decided(assessment)
        assert classification is not Classification.REAL
        assert not escalated, p
        assert words in reason and "decisive" in reason


@pytest.mark.parametrize(("facts", "why", "words"), CASES)
def test_a_provider_format_there_is_still_escalated(
    facts: dict[str, object], why: Settled, words: str
) -> None:
    assessment = assessed(0.3, generic=False, **facts)  # type: ignore[arg-type]
    assert settled(assessment) is None
    _, escalated, reason = decided(assessment)
    assert escalated and "band" in reason


@pytest.mark.parametrize(("facts", "why", "words"), CASES)
def test_what_the_scorer_would_call_real_stays_escalated_or_real(
    facts: dict[str, object], why: Settled, words: str
) -> None:
    """At or above the upper edge nothing is settled: a translation catalog's value is
    held from `real` and escalated; test code's and unnamed hex keep a decisive call."""
    classification, escalated, reason = decided(assessed(0.95, **facts))  # type: ignore[arg-type]
    assert why.described not in reason
    if facts.get("placement") is Placement.LOCALE:
        assert classification is Classification.NOT_SECRET and escalated
    else:
        assert classification is Classification.REAL and not escalated


def test_a_checksum_valid_token_in_test_code_is_still_escalated() -> None:
    valid = ValidationResult(
        validator="v", kind=CheckKind.CHECKSUM, status=ValidationStatus.VALID, detail=""
    )
    classification, escalated, reason = decided(assessed(0.3, test_scope=True), [valid])
    assert classification is Classification.REAL and escalated
    assert Settled.TEST_FIXTURE.described not in reason


def test_deployed_generic_values_in_band_are_still_escalated() -> None:
    _, escalated, reason = decided(assessed(0.3))
    assert escalated and "band" in reason


def test_the_scorer_reads_unnamed_hex_from_the_features() -> None:
    """A 64-hex digest in a list, found by the hex plugin alone, no credential word."""
    digest = random.Random(3).randbytes(32).hex()
    hex_ctx = CandidateContext(
        value=digest,
        rule_id="Hex High Entropy String",
        path="build/repositories.bzl",
        line=f'        ["macOS", "arm64", "zip", "{digest}"],',
    )
    assessment = shipped_scorer().assess(hex_ctx)
    assert assessment.unnamed_hex and assessment.generic_value
    named = CandidateContext(
        value=digest,
        rule_id="Hex High Entropy String",
        path="app/settings.py",
        line=f'API_SECRET = "{digest}"',
    )
    assert not shipped_scorer().assess(named).unnamed_hex


def test_a_private_key_in_test_code_is_a_fixture() -> None:
    """No provider issues a private key: in test scope an in-band PEM key is a fixture;
    outside test scope it is still escalated."""
    fixture = assessed(0.2, generic=False, test_scope=True, private_key=True)
    assert settled(fixture) is Settled.TEST_FIXTURE
    _, escalated, reason = decided(fixture)
    assert not escalated and "private key in test code" in reason
    deployed = assessed(0.2, generic=False, private_key=True)
    assert settled(deployed) is None
    assert decided(deployed)[1]
