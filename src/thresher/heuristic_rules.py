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
        for piece in _CAMEL.split(part):
            tokens += [t for t in re.split(r"[^0-9a-z]+", piece.lower()) if t]
    return tokens


def in_test_scope(path: str) -> bool:
    return any(token in TEST_TOKENS for token in path_tokens(path))


@dataclass
class Evidence:
    """What the tools returned, keyed for the rules, with the ledger ids behind it."""

    path: str | None = None
    path_id: str | None = None
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


def conclude(evidence: Evidence) -> Conclusion:
    failed = [v for v in evidence.validations if v.get("status") == "invalid"]
    placeholder = next((v for v in failed if v.get("kind") == "placeholder"), None)
    checksum = next((v for v in failed if v.get("kind") == "checksum"), None)
    items: list[EvidenceItem] = []
    history = "; ".join(
        f"{c.get('change', 'touched')} in {str(c.get('commit', ''))[:8]}"
        for c in evidence.history[:3]
    )
    if history:
        items.append(
            EvidenceItem(
                claim=f"git history of the value: {history}", ledger_ids=_cite(evidence.history_id)
            )
        )
    if placeholder is not None:
        classification = Classification.NOT_SECRET
        key = f"The value is a placeholder or documentation value ({placeholder['detail']})."
        items.insert(0, EvidenceItem(claim=key, ledger_ids=_cite(evidence.validation_id)))
        factors = _factors(verification=9, directness=8)
    elif checksum is not None:
        classification = Classification.TEST
        key = (
            f"The value fails its format checksum ({checksum['detail']}), so it was never "
            "issued: fabricated test data."
        )
        items.insert(0, EvidenceItem(claim=key, ledger_ids=_cite(evidence.validation_id)))
        factors = _factors(verification=9, directness=7)
    elif evidence.path and in_test_scope(evidence.path):
        classification = Classification.TEST
        key = f"The value sits in test-scope code ({evidence.path}) and no check shows it is live."
        items.insert(
            0, EvidenceItem(claim=key, ledger_ids=_cite(evidence.path_id, evidence.context_id))
        )
        factors = _factors(verification=4, directness=6)
    else:
        classification = Classification.REAL
        key = (
            "A credential-shaped value outside test code with no placeholder or checksum "
            "failure: treat it as real until proven otherwise."
        )
        items.insert(
            0,
            EvidenceItem(
                claim=key,
                ledger_ids=_cite(evidence.path_id, evidence.validation_id, evidence.context_id),
            ),
        )
        factors = _factors(verification=5, directness=6)
    risk = RiskLevel.HIGH if classification is Classification.REAL else RiskLevel.NONE
    return Conclusion(classification, factors, risk, key, tuple(items))


def _factors(*, verification: int, directness: int) -> ConfidenceFactors:
    return ConfidenceFactors(
        recency=6,
        directness=directness,
        completeness=6,
        source_reliability=7,
        verification_confidence=verification,
        test_results=6,
        findings_review=6,
    )
