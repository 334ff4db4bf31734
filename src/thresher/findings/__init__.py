"""Findings: the candidates thresher decides, and where they come from."""

from thresher.findings.model import (
    AlertResolution,
    AlertState,
    AlertValidity,
    DetectSecretsSource,
    Finding,
    FindingKind,
    GitHubAlertSource,
    GitHubLocationType,
    Location,
    OsvSource,
    SecretType,
    Severity,
    secret_type_for_rule,
)

__all__ = [
    "AlertResolution",
    "AlertState",
    "AlertValidity",
    "DetectSecretsSource",
    "Finding",
    "FindingKind",
    "GitHubAlertSource",
    "GitHubLocationType",
    "Location",
    "OsvSource",
    "SecretType",
    "Severity",
    "secret_type_for_rule",
]
