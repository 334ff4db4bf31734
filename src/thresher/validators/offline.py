"""Offline validators: format, checksum and placeholder checks that need no network."""

from __future__ import annotations

import re
import zlib

from thresher.findings import Finding, SecretType
from thresher.validators.base import CheckKind, ValidationResult, ValidationStatus, Validator
from thresher.validators.placeholder import DOCUMENTATION_VALUES, PlaceholderValidator

__all__ = [
    "BASE62",
    "DOCUMENTATION_VALUES",
    "GitHubTokenValidator",
    "NpmTokenValidator",
    "PlaceholderValidator",
    "base62",
    "crc32_base62",
]

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def base62(number: int, width: int = 6) -> str:
    digits = ""
    while number:
        number, remainder = divmod(number, 62)
        digits = BASE62[remainder] + digits
    return digits.rjust(width, "0")


def crc32_base62(text: str) -> str:
    return base62(zlib.crc32(text.encode("ascii")) & 0xFFFFFFFF)


_CLASSIC = re.compile(r"^(gh[pousr])_([0-9A-Za-z]{30})([0-9A-Za-z]{6})$")
_FINE_GRAINED = re.compile(r"^github_pat_[0-9A-Za-z]{22}_[0-9A-Za-z]{59}$")
_GITHUB_KIND = {
    "ghp": "personal access token",
    "gho": "OAuth access token",
    "ghu": "user-to-server token",
    "ghs": "server-to-server token",
    "ghr": "refresh token",
}


class GitHubTokenValidator(Validator):
    name = "github-token-format"
    description = "GitHub classic tokens: prefix, length and CRC32 checksum; fine-grained PAT shape"
    secret_types = frozenset({SecretType.GITHUB_TOKEN})

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        classic = _CLASSIC.match(value)
        if classic:
            kind = _GITHUB_KIND[classic.group(1)]
            good = crc32_base62(classic.group(2)) == classic.group(3)
            return [
                ValidationResult(
                    validator=self.name,
                    kind=CheckKind.FORMAT,
                    status=ValidationStatus.VALID,
                    detail=f"well-formed GitHub {kind} (40 characters)",
                ),
                ValidationResult(
                    validator=self.name,
                    kind=CheckKind.CHECKSUM,
                    status=ValidationStatus.VALID if good else ValidationStatus.INVALID,
                    detail="CRC32 checksum matches: the shape GitHub issues"
                    if good
                    else "CRC32 checksum does not match: GitHub never issued this value",
                ),
            ]
        if _FINE_GRAINED.match(value):
            return [
                ValidationResult(
                    validator=self.name,
                    kind=CheckKind.FORMAT,
                    status=ValidationStatus.VALID,
                    detail="well-formed fine-grained personal access token",
                )
            ]
        return [
            ValidationResult(
                validator=self.name,
                kind=CheckKind.FORMAT,
                status=ValidationStatus.INVALID,
                detail=f"not the shape of any GitHub token ({len(value)} characters)",
            )
        ]


class NpmTokenValidator(Validator):
    name = "npm-token-format"
    description = "npm access tokens: npm_ prefix, 36 characters, CRC32 checksum"
    secret_types = frozenset({SecretType.NPM_TOKEN})

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        match = re.fullmatch(r"npm_([0-9A-Za-z]{30})([0-9A-Za-z]{6})", value)
        if not match:
            return [
                ValidationResult(
                    validator=self.name,
                    kind=CheckKind.FORMAT,
                    status=ValidationStatus.INVALID,
                    detail="not the shape of an npm access token",
                )
            ]
        good = crc32_base62(match.group(1)) == match.group(2)
        return [
            ValidationResult(
                validator=self.name,
                kind=CheckKind.CHECKSUM,
                status=ValidationStatus.VALID if good else ValidationStatus.INVALID,
                detail="CRC32 checksum matches" if good else "CRC32 checksum does not match",
            )
        ]
