"""Deterministic secret validators and the registry behind the validator tools."""

from __future__ import annotations

from collections.abc import Sequence

from thresher.findings import Finding
from thresher.validators.base import (
    CheckKind,
    ValidationResult,
    ValidationStatus,
    Validator,
    ValidatorError,
)
from thresher.validators.offline import (
    GitHubTokenValidator,
    NpmTokenValidator,
    PlaceholderValidator,
)


class ValidatorRegistry:
    """The validators of one run, in a fixed order."""

    def __init__(self, validators: Sequence[Validator]) -> None:
        self.validators = tuple(validators)

    @classmethod
    def default(cls) -> ValidatorRegistry:
        return cls([PlaceholderValidator(), GitHubTokenValidator(), NpmTokenValidator()])

    def applicable(self, finding: Finding) -> list[Validator]:
        return [v for v in self.validators if v.applies(finding)]

    def validate(self, value: str, finding: Finding) -> list[ValidationResult]:
        return [result for v in self.applicable(finding) for result in v.check(value, finding)]


__all__ = [
    "CheckKind",
    "ValidationResult",
    "ValidationStatus",
    "Validator",
    "ValidatorError",
    "ValidatorRegistry",
]
