"""The offline call and the escalation policy.

The offline call turns hard evidence and the scorer's probabilities into a
classification. Hard evidence — a live check that says valid, a vendor's
published documentation value, a failed format checksum — settles a finding
whatever the probabilities say; nothing else does. One structural fact bends the
call without settling it: a file that only test code references is called ``test``
however high its P(real), and always escalated, because reference lookup is a
heuristic and the labelled corpus calls such key files ``real`` by their path. Another
keeps a call from ``real`` without settling it: documentation is not a deployment. A
generic value (found by a key word or entropy, in no provider's format, with no valid
checksum, or in a format a validator refutes) in documentation or on a commented-out
line is called ``not_secret`` (``test`` in test scope) where P(real) would call it
``real``, and exactly those are escalated, so a model or ``--fail-on uncertain`` decides
(``placement.py``). Where P(real) would not call it ``real``, its call stands.

Inside the band, three facts settle a dismissal without a model (``Settled``): a
generic value in a translation catalog, a generic value or a private key in test code,
and hex that only its characters flagged with no word of credentials near it. The
labelled corpus has no real line in test scope or in a translation catalog; unnamed hex
moved one real line of 1,317 to a decisive dismissal on the labelled folds.

Escalation decides which calls the LLM tribunal should look at. It is driven by
risk, not by which way the call went: a ``test`` or ``not_secret`` call without
hard evidence is as escalatable as a ``real`` one, because a confident miss
that never reaches a model caps recall for good. Every decision records what the
policy says, also in runs that call no model, so ``thresher eval`` can report
the escalation rate and the oracle ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from thresher.findings.results import Classification
from thresher.scoring.model import Assessment, OperatingPoint
from thresher.scoring.placement import Placement
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus


class Escalate(StrEnum):
    UNCERTAIN = "uncertain"
    ALL = "all"
    NEVER = "never"


class HardEvidence(StrEnum):
    LIVE_VALID = "live-valid"
    DOCUMENTATION_VALUE = "documentation-value"
    FORMAT_SYNTAX = "format-syntax"
    CHECKSUM_INVALID = "checksum-invalid"


class Settled(StrEnum):
    """Why an in-band dismissal needs no model: where the value lives, or what it is,
    already says it is no credential anyone issued. Only a generic value (found by a key
    word or entropy, in no provider's format, with no valid checksum) is settled this
    way (and a private key in test code), and only below the band's upper edge: a call
    the scorer would make ``real`` stays escalated."""

    # A translation catalog's ``password`` key holds the word a login form shows.
    TRANSLATION = "translation"
    # Test code's password or private key is a fixture: the labelled corpus has no real
    # line in test scope, no provider issues a private key, and a provider's token there
    # is still escalated.
    TEST_FIXTURE = "test-fixture"
    # Hex that only its characters flagged, with no word of credentials near it: a
    # digest in a checksum list, a fixture's id, a colour table.
    UNNAMED_HEX = "unnamed-hex"

    @property
    def described(self) -> str:
        match self:
            case Settled.TRANSLATION:
                return "a generic value in a translation catalog"
            case Settled.TEST_FIXTURE:
                return "a generic value or a private key in test code"
            case Settled.UNNAMED_HEX:
                return "hex found by its characters alone, with nothing naming a credential"


def settled(assessment: Assessment) -> Settled | None:
    """What settles an in-band dismissal of this finding without a model, if anything."""
    if assessment.test_scope and assessment.private_key:
        return Settled.TEST_FIXTURE
    if not assessment.generic_value:
        return None
    if assessment.placement is Placement.LOCALE:
        return Settled.TRANSLATION
    if assessment.test_scope:
        return Settled.TEST_FIXTURE
    if assessment.unnamed_hex:
        return Settled.UNNAMED_HEX
    return None


class Escalation(BaseModel):
    """What the escalation policy says about one decision."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: Escalate
    would_escalate: bool
    reason: str


@dataclass(frozen=True)
class Band:
    """P(real) strictly between ``low`` and ``high`` is not decisive."""

    low: float
    high: float

    @classmethod
    def of(cls, point: OperatingPoint) -> Band:
        return cls(point.band_low, point.band_high)

    def __str__(self) -> str:
        return f"({self.low:g}, {self.high:g})"


class OfflineCall(BaseModel):
    """The offline classification and why: hard evidence, else the scorer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    classification: Classification
    probability: float  # the scorer's probability of the called class (1.0 on hard evidence)
    reason: str
    hard: HardEvidence | None = None
    checksum_valid: bool = False
    # Set when P(real) would have called a generic value ``real`` but its text lives in
    # documentation or a commented-out line: the call is a dismissal, never decisive.
    undeployed: Placement | None = None


def _call(
    classification: Classification,
    probability: float,
    reason: str,
    hard: HardEvidence | None,
    checksum_valid: bool,
    undeployed: Placement | None = None,
) -> OfflineCall:
    return OfflineCall(
        classification=classification,
        probability=probability,
        reason=reason,
        hard=hard,
        checksum_valid=checksum_valid,
        undeployed=undeployed,
    )


def _has(results: Sequence[ValidationResult], kind: CheckKind, status: ValidationStatus) -> bool:
    return any(r.kind is kind and r.status is status for r in results)


def hard_evidence(results: Sequence[ValidationResult]) -> HardEvidence | None:
    if _has(results, CheckKind.LIVE, ValidationStatus.VALID):
        return HardEvidence.LIVE_VALID
    if _has(results, CheckKind.DOCUMENTATION, ValidationStatus.INVALID):
        return HardEvidence.DOCUMENTATION_VALUE
    if _has(results, CheckKind.SYNTAX, ValidationStatus.INVALID):
        return HardEvidence.FORMAT_SYNTAX
    if _has(results, CheckKind.CHECKSUM, ValidationStatus.INVALID):
        return HardEvidence.CHECKSUM_INVALID
    return None


def unproven(assessment: Assessment, results: Sequence[ValidationResult]) -> bool:
    """Nothing says a provider issued the value: only context rules found it (a key word,
    entropy), or a validator refutes the format or structure its rule claims (a PEM
    header over a body that does not parse). A valid checksum is proof enough."""
    if _has(results, CheckKind.CHECKSUM, ValidationStatus.VALID):
        return False
    return (
        assessment.generic_value
        or _has(results, CheckKind.FORMAT, ValidationStatus.INVALID)
        or _has(results, CheckKind.STRUCTURE, ValidationStatus.INVALID)
    )


# Inside the band, a provider-format token in deployable code at least this likely real
# keeps a `real` call (escalated). The upper edge asks 98% expected precision of a call
# that needs no model; a Slack bot token or a Stripe live key in application code at
# P(real) 0.7-0.9 was then called `not_secret`, which no reader of the report expects.
ISSUED_FORMAT_FLOOR = 0.5


def issued_format(assessment: Assessment) -> bool:
    """A token in a provider's own format (not found by context alone, not a private key,
    which no provider issues) in deployable code outside test scope."""
    return (
        not assessment.generic_value
        and not assessment.private_key
        and not assessment.test_scope
        and assessment.placement is Placement.DEPLOYMENT
    )


def offline_call(
    assessment: Assessment, results: Sequence[ValidationResult], point: OperatingPoint
) -> OfflineCall:
    checksum_valid = _has(results, CheckKind.CHECKSUM, ValidationStatus.VALID)
    match hard_evidence(results):
        case HardEvidence.LIVE_VALID:
            return _call(
                Classification.REAL,
                1.0,
                "live verification says the credential is valid right now",
                HardEvidence.LIVE_VALID,
                checksum_valid,
            )
        case HardEvidence.DOCUMENTATION_VALUE:
            return _call(
                Classification.NOT_SECRET,
                1.0,
                "the value is a vendor's published documentation example",
                HardEvidence.DOCUMENTATION_VALUE,
                checksum_valid,
            )
        case HardEvidence.FORMAT_SYNTAX:
            return _call(
                Classification.NOT_SECRET,
                1.0,
                "the value is a keyword of the file's own syntax, not a credential",
                HardEvidence.FORMAT_SYNTAX,
                checksum_valid,
            )
        case HardEvidence.CHECKSUM_INVALID:
            return _call(
                Classification.TEST,
                1.0,
                "the value fails its format checksum, so its provider never issued it",
                HardEvidence.CHECKSUM_INVALID,
                checksum_valid,
            )
        case None:
            pass
    if assessment.only_tests_reference and assessment.p_real >= point.real_threshold:
        return _call(
            Classification.TEST,
            assessment.p_test,
            f"only test code references this file, so it is test data by the repository's "
            f"own structure, though the scorer gives P(real) = {assessment.p_real:.2f}",
            None,
            checksum_valid,
        )
    where = assessment.placement
    if (
        where is not Placement.DEPLOYMENT
        and assessment.p_real >= point.real_threshold
        and unproven(assessment, results)
    ):
        held = Classification.TEST if assessment.test_scope else Classification.NOT_SECRET
        what = (
            "a generic value (no provider format, no valid checksum)"
            if assessment.generic_value
            else "a value whose format a validator refutes"
        )
        return _call(
            held,
            assessment.probability(held.value),
            f"{what} in {where.described}, which no system loads: nothing says it was ever "
            f"issued, though the scorer gives P(real) = {assessment.p_real:.2f}",
            None,
            checksum_valid,
            undeployed=where,
        )
    if assessment.p_real >= point.real_threshold:
        return _call(
            Classification.REAL,
            assessment.p_real,
            f"the calibrated scorer gives P(real) = {assessment.p_real:.2f}",
            None,
            checksum_valid,
        )
    if checksum_valid and assessment.p_real > point.band_low:
        # Offline, ``real`` is a decisive call, except for a token its provider's checksum
        # says was issued: inside the band its context is uncertain, and uncertain
        # context never dismisses an issued token (it is escalated all the same).
        return _call(
            Classification.REAL,
            assessment.p_real,
            f"the token's checksum is valid and the calibrated scorer gives P(real) = "
            f"{assessment.p_real:.2f}, inside the uncertainty band: context does not "
            "dismiss an issued token",
            None,
            checksum_valid,
        )
    if issued_format(assessment) and assessment.p_real >= ISSUED_FORMAT_FLOOR:
        # The same for a token in its provider's own format in deployable code: the band
        # is not sure enough to need no model, but more likely real than not.
        return _call(
            Classification.REAL,
            assessment.p_real,
            f"a token in its provider's own format in deployable code, and the calibrated "
            f"scorer gives P(real) = {assessment.p_real:.2f}, inside the uncertainty band: "
            "context does not dismiss it",
            None,
            checksum_valid,
        )
    other = (
        Classification.TEST
        if assessment.p_test >= assessment.p_not_secret
        else Classification.NOT_SECRET
    )
    probability = assessment.probability(other.value)
    if checksum_valid:
        # Its provider issued it: context alone never makes that a confident dismissal.
        probability = min(probability, 0.5)
    return _call(
        other,
        probability,
        f"the calibrated scorer gives P(real) = {assessment.p_real:.2f}, "
        f"P({other.value}) = {assessment.probability(other.value):.2f}",
        None,
        checksum_valid,
    )


_BY_POLICY = {
    Escalate.NEVER: Escalation(
        policy=Escalate.NEVER, would_escalate=False, reason="--escalate never"
    ),
    Escalate.ALL: Escalation(policy=Escalate.ALL, would_escalate=True, reason="--escalate all"),
}


def escalation_for(
    call: OfflineCall, assessment: Assessment | None, policy: Escalate, band: Band
) -> Escalation:
    """Would this call go to the LLM tribunal under ``policy``, and why."""
    match policy:
        case Escalate.NEVER | Escalate.ALL:
            return _BY_POLICY[policy]  # one for every decision: the run keeps them all
        case Escalate.UNCERTAIN:
            pass
    if call.hard is not None:
        return Escalation(
            policy=policy, would_escalate=False, reason=f"hard evidence ({call.hard.value})"
        )
    if assessment is None:
        return Escalation(
            policy=policy, would_escalate=True, reason="no offline assessment for this finding"
        )
    if call.checksum_valid and call.classification is not Classification.REAL:
        return Escalation(
            policy=policy,
            would_escalate=True,
            reason=f"a checksum-valid token called '{call.classification.value}' from its "
            "context alone",
        )
    if assessment.only_tests_reference:
        return Escalation(
            policy=policy,
            would_escalate=True,
            reason="only test code references this file: reference lookup is evidence for "
            "a model to weigh, not a decisive call",
        )
    p = assessment.p_real
    if call.undeployed is not None:
        return Escalation(
            policy=policy,
            would_escalate=True,
            reason=f"P(real) = {p:.3f} would call it real, but it lives in "
            f"{call.undeployed.described} and nothing says it was ever issued: evidence for "
            "a model to weigh, not a decisive call",
        )
    if band.low < p < band.high:
        why = settled(assessment) if call.classification is not Classification.REAL else None
        if why is not None:
            return Escalation(
                policy=policy,
                would_escalate=False,
                reason=f"P(real) = {p:.3f} is inside the uncertainty band {band}, but "
                f"{why.described} is no credential anyone issued: decisive",
            )
        return Escalation(
            policy=policy,
            would_escalate=True,
            reason=f"P(real) = {p:.3f} is inside the uncertainty band {band}",
        )
    side = f">= {band.high:g}" if p >= band.high else f"<= {band.low:g}"
    return Escalation(
        policy=policy, would_escalate=False, reason=f"P(real) = {p:.3f} {side}: decisive"
    )
