"""JSON Web Tokens: segments, decoded header and claims, signature size, expiry.

Nothing is verified cryptographically (the key is not known); the checks say whether the
value is a JWT at all, whether it can still be used (``exp``) and what it is for (issuer
host, audience count) without echoing claim values.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from thresher.findings import Finding, SecretType
from thresher.validators.base import CheckKind, ValidationResult, Validator
from thresher.validators.urls import host_kind

_SEGMENT = re.compile(r"^[A-Za-z0-9_-]*$")
_ALG = re.compile(r"^[A-Za-z0-9+-]{1,20}$")
_HOST = re.compile(r"^[a-z0-9.-]{1,64}$")
# Signature sizes that are fixed by the algorithm (RFC 7518 §3, RFC 8037).
_SIGNATURE_BYTES = {
    "HS256": 32,
    "HS384": 48,
    "HS512": 64,
    "ES256": 64,
    "ES256K": 64,
    "ES384": 96,
    "ES512": 132,
    "EdDSA": 64,
}
MAX_JWT_CHARS = 64 * 1024


def b64url_json(segment: str) -> Any:
    """Decode one unpadded base64url JSON segment; raises ValueError."""
    if not segment or not _SEGMENT.match(segment) or len(segment) % 4 == 1:
        raise ValueError("not base64url")
    raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
    return json.loads(raw.decode("utf-8"))


def _span(seconds: float) -> str:
    seconds = abs(seconds)
    if seconds < 3600:
        return f"{int(seconds // 60)} minute(s)"
    if seconds < 86400 * 2:
        return f"{int(seconds // 3600)} hour(s)"
    return f"{int(seconds // 86400)} day(s)"


def _issuer(claims: dict[str, Any]) -> str | None:
    issuer = claims.get("iss")
    if not isinstance(issuer, str) or not issuer:
        return None
    host = ""
    if issuer.startswith(("https://", "http://")):
        try:
            host = urlsplit(issuer).hostname or ""
        except ValueError:
            host = ""
    if host and _HOST.match(host):
        kind = host_kind(host)
        note = f" ({kind})" if kind else ""
        return f"issuer host {host}{note}"
    return f"issuer present ({len(issuer)} characters)"


def _audience(claims: dict[str, Any]) -> str | None:
    audience = claims.get("aud")
    if isinstance(audience, str):
        return "1 audience"
    if isinstance(audience, list):
        return f"{len(audience)} audience(s)"
    return None


def _is_jwt_io_example(claims: dict[str, Any]) -> bool:
    return claims.get("sub") == "1234567890" and claims.get("name") == "John Doe"


class JwtValidator(Validator):
    name = "jwt-structure"
    description = (
        "JWTs: three base64url segments, header and payload are JSON objects, alg (none "
        "noted), signature size for the alg, exp in the past means expired; notes issuer "
        "host and audience count"
    )
    secret_types = frozenset({SecretType.JWT})

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        value = value.strip()
        if value.lower().startswith("bearer "):
            value = value[7:].strip()
        if len(value) > MAX_JWT_CHARS:
            return [self.unknown(CheckKind.FORMAT, "too large to check (over 64 KiB)")]
        segments = value.split(".")
        if len(segments) == 5:
            return self._jwe(segments[0])
        if len(segments) != 3:
            return [
                self.invalid(
                    CheckKind.FORMAT, f"not three dot-separated segments ({len(segments)})"
                )
            ]
        try:
            header, claims = b64url_json(segments[0]), b64url_json(segments[1])
        except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
            return [
                self.invalid(CheckKind.FORMAT, "header or payload is not base64url-encoded JSON")
            ]
        if not isinstance(header, dict) or not isinstance(claims, dict):
            return [self.invalid(CheckKind.FORMAT, "header or payload is not a JSON object")]
        alg = header.get("alg")
        if not isinstance(alg, str) or not _ALG.match(alg):
            return [self.invalid(CheckKind.STRUCTURE, "the header has no usable alg")]
        if _is_jwt_io_example(claims):
            return [self.invalid(CheckKind.DOCUMENTATION, "the jwt.io documentation example token")]
        signature = self._signature(alg, segments[2])
        if signature is not None:
            return [signature]
        notes = [f"alg {alg}"]
        if alg.lower() == "none":
            notes[0] = "alg none: unsigned, anyone can forge it"
        notes += [note for note in (_issuer(claims), _audience(claims)) if note]
        notes.append(f"{len(claims)} claim(s)")
        results = [self.valid(CheckKind.STRUCTURE, "well-formed JWT: " + ", ".join(notes))]
        results.append(self._expiry(claims))
        return results

    def _signature(self, alg: str, segment: str) -> ValidationResult | None:
        if alg.lower() == "none":
            if segment:
                return self.invalid(CheckKind.STRUCTURE, "alg none but a signature is present")
            return None
        if not segment:
            return self.invalid(CheckKind.STRUCTURE, "signature segment is empty: truncated")
        if not _SEGMENT.match(segment) or len(segment) % 4 == 1:
            return self.invalid(CheckKind.FORMAT, "signature is not base64url")
        size = len(segment) * 6 // 8
        expected = _SIGNATURE_BYTES.get(alg)
        if expected is not None and size != expected:
            return self.invalid(
                CheckKind.STRUCTURE,
                f"signature is {size} bytes but {alg} signatures are {expected}: truncated "
                "or altered",
            )
        if alg[:2] in ("RS", "PS") and size < 64:
            return self.invalid(
                CheckKind.STRUCTURE, f"signature is {size} bytes: too short for {alg}"
            )
        return None

    def _expiry(self, claims: dict[str, Any]) -> ValidationResult:
        now = self.clock()
        exp = claims.get("exp")
        nbf = claims.get("nbf")
        if isinstance(exp, bool) or (exp is not None and not isinstance(exp, int | float)):
            return self.invalid(CheckKind.STRUCTURE, "exp claim is not a number")
        if exp is not None and exp <= now:
            return self.invalid(CheckKind.STRUCTURE, f"expired {_span(now - exp)} ago")
        not_yet = ""
        if isinstance(nbf, int | float) and not isinstance(nbf, bool) and nbf > now:
            not_yet = f"; not valid for another {_span(nbf - now)} (nbf)"
        if exp is None:
            return self.valid(
                CheckKind.STRUCTURE, f"no exp claim: does not expire by itself{not_yet}"
            )
        return self.valid(
            CheckKind.STRUCTURE, f"not expired: expires in {_span(exp - now)}{not_yet}"
        )

    def _jwe(self, header_segment: str) -> list[ValidationResult]:
        try:
            header = b64url_json(header_segment)
        except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
            return [self.invalid(CheckKind.FORMAT, "five segments but the header is not JSON")]
        if not isinstance(header, dict) or "enc" not in header:
            return [self.invalid(CheckKind.FORMAT, "five segments but not a JWE header")]
        return [
            self.valid(
                CheckKind.STRUCTURE,
                "well-formed JWE (encrypted JWT): claims are not readable without the key",
            )
        ]
