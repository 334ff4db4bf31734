"""A whole value that is an interpolation is syntax, hard evidence: never a secret."""

from __future__ import annotations

import pytest

from thresher.findings import Finding, Location
from thresher.validators.base import CheckKind, ValidationStatus
from thresher.validators.placeholder import PlaceholderValidator


def _finding() -> Finding:
    return Finding(
        id="s-1",
        rule_id="Secret Keyword",
        locations=(Location(path="deploy/app.yaml", line=3),),
        fingerprint="sha256:x",
        redacted="…(9 chars)",
    )


@pytest.mark.parametrize(
    "value", ["${DB_PASS}", "$DB_PASS", "%(password)s", "%APP_SECRET%", "{{ .Values.password }}"]
)
def test_interpolations_are_syntax(value: str) -> None:
    [result] = PlaceholderValidator().check(value, _finding())
    assert result.kind is CheckKind.SYNTAX and result.status is ValidationStatus.INVALID


@pytest.mark.parametrize("value", ["${DB_PASS:-hunter2}", "x${DB_PASS}", "s3cr3t-Value-9"])
def test_a_literal_beside_a_reference_is_not_syntax(value: str) -> None:
    results = PlaceholderValidator().check(value, _finding())
    assert all(r.kind is not CheckKind.SYNTAX for r in results)
