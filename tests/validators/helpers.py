"""Shared helpers: findings of a given type and the redaction-safety assertion."""

from __future__ import annotations

from collections.abc import Iterable

from thresher.findings import Finding, SecretType
from thresher.validators import ValidationResult, Validator

SAFE_WINDOW = 5  # longer than any 4-character known prefix a detail may name


def finding_of(secret_type: SecretType) -> Finding:
    return Finding.model_validate(
        {
            "id": "f",
            "rule_id": "test rule",
            "secret_type": secret_type,
            "fingerprint": "x",
            "redacted": "r",
            "locations": [{"path": "a", "line": 1}],
        }
    )


def assert_safe(
    results: Iterable[ValidationResult], value: str, public: Iterable[str] = ()
) -> None:
    """No detail holds the value or any 5-character run of it (known prefixes are 4).

    ``public`` names the parts of the value that are public vocabulary (a webhook host, a
    PEM label); runs inside them are allowed, runs of everything else are not.
    """
    masked = value
    for part in public:
        masked = masked.replace(part, "\0")
    pieces = masked.split("\0")
    for result in results:
        assert value not in result.detail
        for piece in pieces:
            for start in range(len(piece) - SAFE_WINDOW + 1):
                window = piece[start : start + SAFE_WINDOW]
                if window.strip() == window:
                    assert window not in result.detail, (result.detail, window)


def run(
    validator: Validator, value: str, secret_type: SecretType, public: Iterable[str] = ()
) -> list[ValidationResult]:
    finding = finding_of(secret_type)
    assert validator.applies(finding)
    results = validator.check(value, finding)
    assert results
    assert_safe(results, value, public)
    return results


def summary(results: Iterable[ValidationResult]) -> dict[str, str]:
    """kind -> status (last wins) for compact assertions."""
    return {r.kind.value: r.status.value for r in results}
