"""GitHub's validity verdict on an alert is evidence; ``active`` is hard evidence."""

from __future__ import annotations

import pytest

from thresher.findings import (
    AlertState,
    AlertValidity,
    DetectSecretsSource,
    Finding,
    GitHubAlertSource,
    Location,
)
from thresher.scoring.policy import HardEvidence, hard_evidence
from thresher.validators import ValidatorRegistry
from thresher.validators.base import CheckKind, ValidationStatus
from thresher.validators.github_validity import GitHubValidityValidator


def _finding(validity: AlertValidity | None, *, alert: bool = True) -> Finding:
    source = (
        GitHubAlertSource(
            repo="octo/app",
            number=3,
            url="https://github.com/octo/app/security/secret-scanning/3",
            state=AlertState.OPEN,
            validity=validity,
        )
        if alert
        else DetectSecretsSource()
    )
    return Finding(
        id="f1",
        rule_id="github_personal_access_token",
        locations=(Location(path="app.py", line=1),),
        fingerprint="abc",
        redacted="ghp_…(40 chars)",
        source=source,
    )


@pytest.mark.parametrize(
    ("validity", "status", "hard"),
    [
        (AlertValidity.ACTIVE, ValidationStatus.VALID, HardEvidence.LIVE_VALID),
        (AlertValidity.INACTIVE, ValidationStatus.INVALID, None),
        (AlertValidity.UNKNOWN, ValidationStatus.UNKNOWN, None),
    ],
)
def test_githubs_validity_is_a_live_result(
    validity: AlertValidity, status: ValidationStatus, hard: HardEvidence | None
) -> None:
    results = ValidatorRegistry.default().validate("value-not-used", _finding(validity))
    mine = [r for r in results if r.validator == GitHubValidityValidator.name]
    assert [(r.kind, r.status) for r in mine] == [(CheckKind.LIVE, status)]
    assert hard_evidence(results) is hard


def test_no_verdict_and_other_sources_have_no_validity_result() -> None:
    validator = GitHubValidityValidator()
    assert not validator.applies(_finding(None))
    assert not validator.applies(_finding(AlertValidity.ACTIVE, alert=False))
    assert validator.check("v", _finding(AlertValidity.ACTIVE, alert=False)) == []
