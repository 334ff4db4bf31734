"""The validator seam: one small interface, its error type beside it.

Validators run on the raw value inside the process; only their verdict and a
redaction-safe detail ever reach a model or a report.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict

from thresher.errors import ThresherError
from thresher.findings import Finding, SecretType
from thresher.redaction.redactor import Structural


class ValidationStatus(StrEnum):
    """``valid``: the check passed; ``invalid``: it failed; ``unknown``: it could not tell
    (network trouble, 5xx, a proxy's 403 — never ``invalid``)."""

    VALID = "valid"
    INVALID = "invalid"
    UNKNOWN = "unknown"


class CheckKind(StrEnum):
    FORMAT = "format"
    CHECKSUM = "checksum"
    PLACEHOLDER = "placeholder"
    # A vendor's published example value: hard evidence, unlike placeholder patterns.
    DOCUMENTATION = "documentation"
    # A keyword of the file's own syntax (GitHub Actions' `secrets: inherit`): hard evidence.
    SYNTAX = "syntax"
    STRUCTURE = "structure"
    LIVE = "live"


_RESULTS_KEPT = 256  # distinct results a validator shares (``Validator.result``)


class ValidationResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    validator: Annotated[str, Structural]  # the validator's name
    kind: CheckKind
    status: ValidationStatus
    detail: str


class ValidatorError(ThresherError):
    """A validator failed in a way that is a bug or a misconfiguration."""


class Validator(ABC):
    """Checks one kind of secret. ``secret_types`` empty means it applies to all."""

    name: str
    description: str
    secret_types: frozenset[SecretType] = frozenset()

    def applies(self, finding: Finding) -> bool:
        return self.accepts(finding.effective_secret_type)

    def accepts(self, secret_type: SecretType | None) -> bool:
        """``applies`` to a finding of that (effective) type, for a validator that goes
        by the type alone (one that does not override ``applies``)."""
        return not self.secret_types or secret_type in self.secret_types

    @abstractmethod
    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        """Results for this value; an empty list means nothing to say."""

    def result(self, kind: CheckKind, status: ValidationStatus, detail: str) -> ValidationResult:
        """One result of this validator; ``detail`` must never echo the value.

        Equal results are one object (they are frozen): a run keeps every decision's
        results to its report, and most say the same ("no placeholder pattern found")."""
        memo: dict[tuple[CheckKind, ValidationStatus, str], ValidationResult]
        memo = self.__dict__.setdefault("_results", {})
        key = (kind, status, detail)
        found = memo.get(key)
        if found is None:
            found = ValidationResult(validator=self.name, kind=kind, status=status, detail=detail)
            if len(memo) < _RESULTS_KEPT:
                memo[key] = found
        return found

    def valid(self, kind: CheckKind, detail: str) -> ValidationResult:
        return self.result(kind, ValidationStatus.VALID, detail)

    def invalid(self, kind: CheckKind, detail: str) -> ValidationResult:
        return self.result(kind, ValidationStatus.INVALID, detail)

    def unknown(self, kind: CheckKind, detail: str) -> ValidationResult:
        return self.result(kind, ValidationStatus.UNKNOWN, detail)
