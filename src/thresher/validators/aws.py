"""AWS access key ids and secret access keys: shape, kind and documentation values.

An access key id is 20 characters: a four-letter prefix naming the kind of IAM unique id,
then 16 base32 characters (``A-Z2-7``). Only ``AKIA`` (long-term) and ``ASIA`` (temporary,
STS) ids belong to credentials; the other prefixes identify users, roles, groups and
policies, which are public identifiers, not secrets.
"""

from __future__ import annotations

import re

from thresher.findings import Finding, SecretType
from thresher.validators.base import CheckKind, ValidationResult, Validator
from thresher.validators.placeholder import is_documentation_value

_KEY_ID = re.compile(r"^(A3T[A-Z0-9]|[A-Z]{4})([A-Z2-7]{16})$")
_ID_LIKE = re.compile(r"^(A3T[A-Z0-9]|A[A-Z]{3})[A-Z0-9]{16}$")
_SECRET = re.compile(r"^[A-Za-z0-9/+]{40}$")
_HEX40 = re.compile(r"^[0-9a-fA-F]{40}$")

# IAM unique-id prefixes (AWS IAM User Guide, "Unique identifiers").
CREDENTIAL_PREFIXES = {
    "AKIA": "long-term access key id (an IAM user's or root's key)",
    "ASIA": "temporary access key id (STS; short-lived, needs its session token)",
}
IDENTIFIER_PREFIXES = {
    "ABIA": "an AWS STS service bearer token id",
    "ACCA": "a context-specific credential id",
    "AGPA": "an IAM group id",
    "AIDA": "an IAM user id",
    "AIPA": "an EC2 instance profile id",
    "ANPA": "a managed policy id",
    "ANVA": "a managed policy version id",
    "APKA": "a public key id",
    "AROA": "an IAM role id",
    "ASCA": "a certificate id",
}


class AwsKeyValidator(Validator):
    name = "aws-key-format"
    description = (
        "AWS access key ids (AKIA long-term / ASIA temporary; other IAM id prefixes are "
        "identifiers, not credentials), secret access key shape, documentation values"
    )
    secret_types = frozenset({SecretType.AWS_ACCESS_KEY})

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        value = value.strip()
        if is_documentation_value(value) or (
            len(value) in (20, 40) and value.endswith(("EXAMPLE", "EXAMPLEKEY"))
        ):
            return [
                self.invalid(
                    CheckKind.DOCUMENTATION,
                    "an AWS documentation example value: never a credential",
                )
            ]
        if len(value) == 20:
            return self._key_id(value)
        if len(value) == 40:
            return self._secret(value)
        return [
            self.invalid(
                CheckKind.FORMAT,
                f"neither an access key id (20 characters) nor a secret access key "
                f"(40 characters): {len(value)} characters",
            )
        ]

    def _key_id(self, value: str) -> list[ValidationResult]:
        match = _KEY_ID.match(value)
        if not match:
            if _ID_LIKE.match(value):
                return [
                    self.invalid(
                        CheckKind.FORMAT,
                        "prefix is right but the body has characters outside base32 "
                        "(A-Z, 2-7): AWS never issued this id",
                    )
                ]
            return [self.invalid(CheckKind.FORMAT, "not the shape of an AWS access key id")]
        prefix = match.group(1)
        if prefix in CREDENTIAL_PREFIXES:
            return [self.valid(CheckKind.FORMAT, f"well-formed {CREDENTIAL_PREFIXES[prefix]}")]
        if prefix in IDENTIFIER_PREFIXES:
            return [
                self.invalid(
                    CheckKind.STRUCTURE,
                    f"{IDENTIFIER_PREFIXES[prefix]} ({prefix} prefix): a public identifier, "
                    "not a credential",
                )
            ]
        if prefix.startswith("A3T"):
            return [self.valid(CheckKind.FORMAT, "well-formed legacy access key id (A3T prefix)")]
        return [self.invalid(CheckKind.FORMAT, "unknown IAM id prefix: not an AWS access key id")]

    def _secret(self, value: str) -> list[ValidationResult]:
        if _HEX40.match(value):
            return [
                self.invalid(
                    CheckKind.FORMAT,
                    "40 hexadecimal characters: a SHA-1 digest (e.g. a git commit), "
                    "not an AWS secret access key",
                )
            ]
        if not _SECRET.match(value):
            return [
                self.invalid(
                    CheckKind.FORMAT,
                    "40 characters but outside the secret key alphabet (A-Z, a-z, 0-9, /, +)",
                )
            ]
        classes = sum(
            any(test(c) for c in value) for test in (str.isupper, str.islower, str.isdigit)
        )
        if classes < 2:
            return [
                self.invalid(
                    CheckKind.FORMAT,
                    "40 characters of a single character class: not a generated secret key",
                )
            ]
        return [
            self.valid(
                CheckKind.FORMAT,
                "shape of an AWS secret access key (40 characters, base64 alphabet); "
                "only a live check with its key id could confirm it",
            )
        ]
