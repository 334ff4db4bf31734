"""Findings: the candidates thresher decides, and where they come from."""

from thresher.findings.model import (
    DetectSecretsSource,
    Finding,
    FindingKind,
    GitHubAlertSource,
    Location,
    OsvSource,
    SecretType,
    Severity,
    secret_type_for_rule,
)

__all__ = [
    "DetectSecretsSource",
    "Finding",
    "FindingKind",
    "GitHubAlertSource",
    "Location",
    "OsvSource",
    "SecretType",
    "Severity",
    "secret_type_for_rule",
]
