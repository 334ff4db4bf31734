"""Deterministic triage rules: the evidence a session gathered -> a classification.

Used by the heuristic model for all three roles. The rules look only at what
the tools returned (the ledger), so every conclusion cites the calls behind it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from thresher.findings.filekind import in_test_scope, path_tokens
from thresher.findings.results import Classification, ConfidenceFactors, EvidenceItem, RiskLevel

__all__ = [
    "Conclusion",
    "Evidence",
    "conclude",
    "in_test_scope",
    "lookalike",
    "path_tokens",
    "reads_profile",
]


@dataclass
class Evidence:
    """What the tools returned, keyed for the rules, with the ledger ids behind it."""

    path: str | None = None
    paths: tuple[str, ...] = ()
    path_id: str | None = None
    profile: dict[str, Any] = field(default_factory=dict)
    validations: list[dict[str, Any]] = field(default_factory=list)
    validation_id: str | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    history_id: str | None = None
    context_id: str | None = None
    # From get_finding: the calibrated scorer's probabilities and the offline call.
    assessment: dict[str, Any] = field(default_factory=dict)
    offline_call: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Conclusion:
    classification: Classification
    factors: ConfidenceFactors
    risk: RiskLevel
    key_finding: str
    evidence: tuple[EvidenceItem, ...]


_CLASSIFICATIONS = frozenset(c.value for c in Classification)  # an offline call's words


def _cite(*ids: str | None) -> tuple[str, ...]:
    return tuple(filter(None, ids))


def _test_scope(evidence: Evidence) -> bool:
    """A value that also sits outside test code is not test data, wherever else it is."""
    paths = evidence.paths or ((evidence.path,) if evidence.path else ())
    return bool(paths) and all(in_test_scope(p) for p in paths)


_LOOKALIKES = (
    ("placeholder_word", "the value is placeholder vocabulary, not a credential"),
    ("reference", "the value references another variable or template, not a literal secret"),
    ("descriptive_text", "the value is descriptive text naming what belongs there"),
    ("repeats_key_name", "the value merely repeats its key name"),
    ("public_key", "the value is a public key, which is meant to be shared"),
)


def lookalike(profile: dict[str, Any]) -> str | None:
    """Why the value is a credential look-alike, or None."""
    for flag, reason in _LOOKALIKES:
        if profile.get(flag):
            return reason
    if profile.get("shape") == "uuid":
        return "the value is a UUID, an identifier rather than a credential"
    if profile.get("hash_like") and profile.get("named_as_hash"):
        return "the value is a hex digest assigned to a hash-named key"
    return None


def reads_profile(offline_call: Any) -> bool:
    """Whether ``conclude`` can read the value's profile, given ``get_finding``'s
    offline call as the session saw it: not when the call names a classification (the
    live-validity and offline-call rules come before every rule that reads it). The
    offline panel leaves the profile out then (``thresher.tribunal.offline_calls``)."""
    return not (
        isinstance(offline_call, dict) and offline_call.get("classification") in _CLASSIFICATIONS
    )


def conclude(evidence: Evidence) -> Conclusion:
    """Evidence -> classification, in order of strength: hard validator results,
    look-alike shapes, test scope, then 'real until proven otherwise'."""
    failed = [v for v in evidence.validations if v.get("status") == "invalid"]
    placeholder = next((v for v in failed if v.get("kind") == "placeholder"), None)
    checksum = next((v for v in failed if v.get("kind") == "checksum"), None)
    checksum_ok = any(
        v.get("kind") == "checksum" and v.get("status") == "valid" for v in evidence.validations
    )
    live_valid = any(
        v.get("kind") == "live" and v.get("status") == "valid" for v in evidence.validations
    )
    cite_value = _cite(evidence.path_id, evidence.validation_id)
    items: list[EvidenceItem] = []
    history = "; ".join(
        f"{c.get('change') or 'touched'} in {str(c.get('commit', ''))[:8]}"
        for c in evidence.history[:3]
    )
    if history:
        items.append(
            EvidenceItem(
                claim=f"git history of the value: {history}", ledger_ids=_cite(evidence.history_id)
            )
        )
    call = evidence.offline_call
    if live_valid:
        classification, risk = Classification.REAL, RiskLevel.CRITICAL
        key = "Live verification says the credential is valid right now."
        factors = _factors(verification=10, directness=9)
    elif not reads_profile(call):  # the call names a classification: it decides
        classification = Classification(call["classification"])
        probability = float(call.get("probability", 0.5))
        risk = _risk(classification, checksum_ok)
        key = _scored_key(classification, str(call.get("reason", "")), evidence.assessment)
        factors = _uniform(probability)
    elif placeholder is not None:
        classification, risk = Classification.NOT_SECRET, RiskLevel.NONE
        key = f"The value is a placeholder or documentation value ({placeholder['detail']})."
        factors = _factors(verification=9, directness=8)
    elif checksum is not None:
        classification, risk = Classification.TEST, RiskLevel.NONE
        key = (
            f"The value fails its format checksum ({checksum['detail']}), so it was never "
            "issued: fabricated test data."
        )
        factors = _factors(verification=9, directness=7)
    elif (shape := lookalike(evidence.profile)) is not None:  # read past the call's rule only
        classification, risk = Classification.NOT_SECRET, RiskLevel.NONE
        key = f"Not a credential: {shape}."
        factors = _factors(verification=7, directness=8)
    elif _test_scope(evidence):
        classification, risk = Classification.TEST, RiskLevel.LOW
        key = (
            f"The value sits in test-scope code ({evidence.path}) and nothing shows it "
            "reaches a real system."
        )
        factors = _factors(verification=6, directness=8)
    else:
        classification = Classification.REAL
        risk = RiskLevel.HIGH if checksum_ok else RiskLevel.MEDIUM
        key = (
            "A checksum-valid token outside test code: issued by its provider; treat it as live."
            if checksum_ok
            else "A credential-shaped literal outside test code with no placeholder, reference "
            "or look-alike signal: treat it as real until proven otherwise."
        )
        factors = _factors(verification=8 if checksum_ok else 4, directness=7)
    items.insert(0, EvidenceItem(claim=key, ledger_ids=cite_value or _cite(evidence.context_id)))
    if evidence.context_id:
        items.append(
            EvidenceItem(
                claim="read the code around the finding", ledger_ids=_cite(evidence.context_id)
            )
        )
    return Conclusion(classification, factors, risk, key, tuple(items))


def _risk(classification: Classification, checksum_ok: bool) -> RiskLevel:
    if classification is not Classification.REAL:
        return RiskLevel.NONE
    return RiskLevel.HIGH if checksum_ok else RiskLevel.MEDIUM


# The assessment's strongest features the offline call's words cite: the only part of
# the assessment a rule reads (``thresher.tribunal.offline_calls`` hands over no more).
TOP_FEATURES_CITED = 3


def _scored_key(classification: Classification, reason: str, assessment: dict[str, Any]) -> str:
    """The offline call in words, with the features that moved the scorer most."""
    top = [
        f"{f.get('feature')} ({float(f.get('contribution', 0)):+.2f})"
        for f in assessment.get("top_features", [])[:TOP_FEATURES_CITED]
        if isinstance(f, dict)
    ]
    because = f"; features that moved P(real) most: {', '.join(top)}" if top else ""
    return f"Offline call '{classification.value}': {reason}{because}."


def _uniform(probability: float) -> ConfidenceFactors:
    """Every factor at the calibrated probability of the call, on the 0-10 scale."""
    return _uniform_at(max(0, min(10, round(probability * 10))))


@cache
def _uniform_at(score: int) -> ConfidenceFactors:
    """Frozen, so one of each for every conclusion (eleven scores in all)."""
    return ConfidenceFactors(
        recency=score,
        directness=score,
        completeness=score,
        source_reliability=score,
        verification_confidence=score,
        test_results=score,
        findings_review=score,
    )


@cache
def _factors(*, verification: int, directness: int) -> ConfidenceFactors:
    return ConfidenceFactors(
        recency=7,
        directness=directness,
        completeness=7,
        source_reliability=7,
        verification_confidence=verification,
        test_results=7,
        findings_review=7,
    )
