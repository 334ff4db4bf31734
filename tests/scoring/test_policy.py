"""Hard evidence first, then the calibrated probabilities; escalation by risk."""

from __future__ import annotations

from thresher.findings.results import Classification
from thresher.scoring.model import Assessment, OperatingPoint
from thresher.scoring.policy import (
    ISSUED_FORMAT_FLOOR,
    Band,
    Escalate,
    HardEvidence,
    escalation_for,
    offline_call,
)
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus

POINT = OperatingPoint(real_threshold=0.3, band_low=0.05, band_high=0.9)
BAND = Band.of(POINT)


def assessed(p_real: float, p_test: float | None = None) -> Assessment:
    rest = 1.0 - p_real
    test = rest / 2 if p_test is None else p_test
    return Assessment(p_real=p_real, p_test=test, p_not_secret=round(rest - test, 6))


def check(kind: CheckKind, status: ValidationStatus) -> ValidationResult:
    return ValidationResult(validator="v", kind=kind, status=status, detail="")


def test_live_valid_beats_any_probability() -> None:
    call = offline_call(assessed(0.01), [check(CheckKind.LIVE, ValidationStatus.VALID)], POINT)
    assert call.classification is Classification.REAL and call.hard is HardEvidence.LIVE_VALID


def test_documentation_value_is_hard_evidence_but_a_placeholder_pattern_is_not() -> None:
    doc = offline_call(
        assessed(0.99), [check(CheckKind.DOCUMENTATION, ValidationStatus.INVALID)], POINT
    )
    assert doc.classification is Classification.NOT_SECRET and doc.hard is not None
    soft = offline_call(
        assessed(0.99), [check(CheckKind.PLACEHOLDER, ValidationStatus.INVALID)], POINT
    )
    assert soft.classification is Classification.REAL and soft.hard is None


def test_failed_checksum_is_never_real() -> None:
    call = offline_call(
        assessed(0.99), [check(CheckKind.CHECKSUM, ValidationStatus.INVALID)], POINT
    )
    assert call.classification is Classification.TEST


def test_threshold_and_test_versus_not_secret() -> None:
    assert offline_call(assessed(0.31), [], POINT).classification is Classification.REAL
    assert offline_call(assessed(0.2, 0.7), [], POINT).classification is Classification.TEST
    assert offline_call(assessed(0.2, 0.1), [], POINT).classification is Classification.NOT_SECRET


def test_dismissals_inside_the_band_are_escalated_like_real_calls() -> None:
    for p in (0.06, 0.2, 0.5, 0.89):
        a = assessed(p)
        escalation = escalation_for(offline_call(a, [], POINT), a, Escalate.UNCERTAIN, BAND)
        assert escalation.would_escalate, p
        assert "band" in escalation.reason


def test_confident_calls_and_hard_evidence_are_not_escalated() -> None:
    for p in (0.01, 0.95):
        a = assessed(p)
        assert not escalation_for(
            offline_call(a, [], POINT), a, Escalate.UNCERTAIN, BAND
        ).would_escalate
    a = assessed(0.5)
    call = offline_call(a, [check(CheckKind.CHECKSUM, ValidationStatus.INVALID)], POINT)
    assert not escalation_for(call, a, Escalate.UNCERTAIN, BAND).would_escalate


def test_checksum_valid_token_dismissed_by_context_is_escalated() -> None:
    a = assessed(0.001, 0.99)
    call = offline_call(a, [check(CheckKind.CHECKSUM, ValidationStatus.VALID)], POINT)
    assert call.classification is Classification.TEST
    escalation = escalation_for(call, a, Escalate.UNCERTAIN, BAND)
    assert escalation.would_escalate and "checksum-valid" in escalation.reason


def test_checksum_valid_token_inside_the_band_stays_real_and_is_escalated() -> None:
    """Offline `real` is decisive only, but uncertain context never dismisses a token its
    provider's checksum says was issued (the demo's deployed GitHub token)."""
    a = assessed(0.2)  # inside the band, under the decisive edge
    valid = [check(CheckKind.CHECKSUM, ValidationStatus.VALID)]
    call = offline_call(a, valid, POINT)
    assert call.classification is Classification.REAL and "checksum is valid" in call.reason
    assert escalation_for(call, a, Escalate.UNCERTAIN, BAND).would_escalate
    assert offline_call(a, [], POINT).classification is not Classification.REAL
    # Below the band it is a decisive dismissal's territory: escalated, not called real.
    low = assessed(0.01)
    assert offline_call(low, valid, POINT).classification is not Classification.REAL


def test_policies_all_and_never() -> None:
    a = assessed(0.99)
    call = offline_call(a, [], POINT)
    assert escalation_for(call, a, Escalate.ALL, BAND).would_escalate
    uncertain = assessed(0.5)
    uncertain_call = offline_call(uncertain, [], POINT)
    assert escalation_for(uncertain_call, uncertain, Escalate.UNCERTAIN, BAND).would_escalate
    assert not escalation_for(uncertain_call, uncertain, Escalate.NEVER, BAND).would_escalate


def test_a_syntax_keyword_is_hard_evidence() -> None:
    a = assessed(0.97)
    call = offline_call(a, [check(CheckKind.SYNTAX, ValidationStatus.INVALID)], POINT)
    assert call.classification is Classification.NOT_SECRET
    assert call.hard is HardEvidence.FORMAT_SYNTAX
    assert not escalation_for(call, a, Escalate.UNCERTAIN, BAND).would_escalate


def test_a_file_only_tests_reference_is_never_real_nor_decisive_offline() -> None:
    for p in (0.001, 0.5, 0.99):
        a = Assessment(
            p_real=p, p_test=round(1 - p, 6), p_not_secret=0.0, only_tests_reference=True
        )
        call = offline_call(a, [], POINT)
        assert call.classification is Classification.TEST, p
        escalation = escalation_for(call, a, Escalate.UNCERTAIN, BAND)
        assert escalation.would_escalate and "only test code" in escalation.reason, p
    # Hard evidence still settles it, and --escalate never still means never.
    a = Assessment(p_real=0.99, p_test=0.01, p_not_secret=0.0, only_tests_reference=True)
    live = offline_call(a, [check(CheckKind.LIVE, ValidationStatus.VALID)], POINT)
    assert live.classification is Classification.REAL
    assert not escalation_for(live, a, Escalate.UNCERTAIN, BAND).would_escalate
    call = offline_call(a, [], POINT)
    assert not escalation_for(call, a, Escalate.NEVER, BAND).would_escalate


def test_a_provider_format_token_in_deployable_code_inside_the_band_stays_real() -> None:
    """A Slack bot token in application code at P(real) 0.7 is `real` and escalated; a
    generic value, a private key, test code or a weaker score keep the dismissal."""
    point = OperatingPoint(real_threshold=0.955, band_low=0.02, band_high=0.955)
    band = Band.of(point)

    def call(p: float, **facts: bool) -> tuple[Classification, bool]:
        rest = round(1.0 - p, 6)
        assessment = Assessment(p_real=p, p_test=rest / 2, p_not_secret=rest / 2, **facts)
        decided = offline_call(assessment, [], point)
        escalation = escalation_for(decided, assessment, Escalate.UNCERTAIN, band)
        return decided.classification, escalation.would_escalate

    assert call(0.7) == (Classification.REAL, True)
    assert call(ISSUED_FORMAT_FLOOR) == (Classification.REAL, True)
    assert call(0.97) == (Classification.REAL, False)
    for facts in ({"generic_value": True}, {"private_key": True}, {"test_scope": True}):
        classification, escalated = call(0.7, **facts)
        assert classification is not Classification.REAL and escalated, facts
    assert call(0.45)[0] is not Classification.REAL
