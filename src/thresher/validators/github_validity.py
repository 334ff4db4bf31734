"""GitHub's own validity check of an alert's secret, as evidence.

GitHub secret scanning checks many token types against their issuer and reports
``active``, ``inactive`` or ``unknown`` on the alert. thresher does not repeat that
call: it reads the verdict GitHub already made. ``active`` is what a live check of
our own would call valid, and it is hard evidence that the secret is real (see
``scoring.policy.hard_evidence``). ``inactive`` says the issuer no longer accepts it
(revoked or expired): still a leaked credential, so it is evidence, never proof of a
false positive. Findings from any other source have no such verdict and this check
does not apply to them.
"""

from __future__ import annotations

from thresher.findings import AlertValidity, Finding, GitHubAlertSource
from thresher.validators.base import CheckKind, ValidationResult, Validator


class GitHubValidityValidator(Validator):
    name = "github-validity"
    description = "GitHub's own validity check of a secret-scanning alert (active, inactive)."

    def applies(self, finding: Finding) -> bool:
        return isinstance(finding.source, GitHubAlertSource) and finding.source.validity is not None

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        if not isinstance(finding.source, GitHubAlertSource) or finding.source.validity is None:
            return []
        match finding.source.validity:
            case AlertValidity.ACTIVE:
                return [self.valid(CheckKind.LIVE, "GitHub reports the secret active: it works")]
            case AlertValidity.INACTIVE:
                return [
                    self.invalid(
                        CheckKind.LIVE,
                        "GitHub reports the secret inactive: its issuer no longer accepts it "
                        "(revoked or expired); it was still a credential",
                    )
                ]
            case AlertValidity.UNKNOWN:
                return [self.unknown(CheckKind.LIVE, "GitHub could not tell whether it works")]
