"""Deterministic secret validators and the registry behind the validator tools.

Offline validators always run; live validators (network calls to the provider a secret
belongs to) are included only when a run opts in with ``live=True`` (DESIGN §7).
"""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from thresher.findings import Finding
from thresher.validators.aws import AwsKeyValidator
from thresher.validators.base import (
    CheckKind,
    ValidationResult,
    ValidationStatus,
    Validator,
    ValidatorError,
)
from thresher.validators.jwt import JwtValidator
from thresher.validators.keys import PrivateKeyValidator
from thresher.validators.live import DEFAULT_TIMEOUT, LiveEndpoints, live_validators
from thresher.validators.offline import GitHubTokenValidator, NpmTokenValidator
from thresher.validators.placeholder import PlaceholderValidator
from thresher.validators.pypi import PyPITokenValidator
from thresher.validators.saas import SlackTokenValidator, StripeKeyValidator
from thresher.validators.urls import UrlCredentialsValidator


def offline_validators() -> list[Validator]:
    """Every offline validator, placeholder first."""
    return [
        PlaceholderValidator(),
        GitHubTokenValidator(),
        NpmTokenValidator(),
        AwsKeyValidator(),
        SlackTokenValidator(),
        StripeKeyValidator(),
        PyPITokenValidator(),
        PrivateKeyValidator(),
        JwtValidator(),
        UrlCredentialsValidator(),
    ]


class ValidatorRegistry:
    """The validators of one run, in a fixed order."""

    def __init__(self, validators: Sequence[Validator]) -> None:
        self.validators = tuple(validators)

    @classmethod
    def default(
        cls,
        *,
        live: bool = False,
        endpoints: LiveEndpoints | None = None,
        transport: httpx.BaseTransport | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> ValidatorRegistry:
        """The offline validators, plus the live ones when ``live`` is true."""
        validators: list[Validator] = offline_validators()
        if live:
            validators += live_validators(endpoints, transport=transport, timeout=timeout)
        return cls(validators)

    def applicable(self, finding: Finding) -> list[Validator]:
        return [v for v in self.validators if v.applies(finding)]

    def validate(self, value: str, finding: Finding) -> list[ValidationResult]:
        return [result for v in self.applicable(finding) for result in v.check(value, finding)]


__all__ = [
    "CheckKind",
    "LiveEndpoints",
    "ValidationResult",
    "ValidationStatus",
    "Validator",
    "ValidatorError",
    "ValidatorRegistry",
    "offline_validators",
]
