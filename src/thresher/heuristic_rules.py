"""Deterministic triage rules: the evidence a session gathered -> a classification.

Used by the heuristic model for all three roles. The rules look only at what
the tools returned (the ledger), so every conclusion cites the calls behind it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from thresher.results import Classification, ConfidenceFactors, EvidenceItem, RiskLevel

# The test-scope vocabulary: a path component token equal to one of these.
TEST_TOKENS = frozenset(
    {
        "conftest",
        "demo",
        "demos",
        "dummy",
        "e2e",
        "example",
        "examples",
        "fake",
        "fakes",
        "fixture",
        "fixtures",
        "httptest",
        "itest",
        "itests",
        "mock",
        "mocked",
        "mocking",
        "mocks",
        "pytest",
        "sample",
        "samples",
        "spec",
        "specs",
        "stub",
        "stubs",
        "test",
        "testcase",
        "testcases",
        "testdata",
        "testhelper",
        "testhelpers",
        "testing",
        "tests",
        "testsuite",
        "testsupport",
        "testutil",
        "testutils",
        "unittest",
        "unittests",
    }
)
_CAMEL = re.compile(
    r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])"
    r"|(?<=[0-9])(?=[A-Za-z])"
)


def path_tokens(path: str) -> list[str]:
    tokens: list[str] = []
    for part in PurePosixPath(path).parts:
        # Whole words too: the letter/digit split below would cut "e2e" into e, 2, e.
        tokens += [t for t in re.split(r"[^0-9a-z]+", part.lower()) if t]
        for piece in _CAMEL.split(part):
            tokens += [t for t in re.split(r"[^0-9a-z]+", piece.lower()) if t]
    return tokens


def in_test_scope(path: str) -> bool:
    return any(token in TEST_TOKENS for token in path_tokens(path))


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


@dataclass(frozen=True)
class Conclusion:
    classification: Classification
    factors: ConfidenceFactors
    risk: RiskLevel
    key_finding: str
    evidence: tuple[EvidenceItem, ...]


def _cite(*ids: str | None) -> tuple[str, ...]:
    return tuple(i for i in ids if i)


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
    shape = lookalike(evidence.profile)
    # A value that also sits outside test code is not test data, wherever else it is.
    paths = evidence.paths or ((evidence.path,) if evidence.path else ())
    test_scope = bool(paths) and all(in_test_scope(p) for p in paths)
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
    if live_valid:
        classification, risk = Classification.REAL, RiskLevel.CRITICAL
        key = "Live verification says the credential is valid right now."
        factors = _factors(verification=10, directness=9)
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
    elif shape is not None:
        classification, risk = Classification.NOT_SECRET, RiskLevel.NONE
        key = f"Not a credential: {shape}."
        factors = _factors(verification=7, directness=8)
    elif test_scope:
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
