"""PyPI API tokens: ``pypi-`` + a base64url macaroon (libmacaroons V2 binary format).

The macaroon is decoded and walked field by field: version byte 2, a header section
(location, identifier), caveat sections, an end-of-caveats marker and a 32-byte HMAC
signature. Its location says which index issued it (pypi.org or test.pypi.org); its
caveats say whether it is scoped to projects. Nothing is sent anywhere.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from thresher.findings import Finding, SecretType
from thresher.validators.base import CheckKind, ValidationResult, Validator

_TOKEN = re.compile(r"^pypi-([A-Za-z0-9_-]{40,4096})$")
_EOS, _LOCATION, _IDENTIFIER, _VID, _SIGNATURE = 0, 1, 2, 4, 6
_INDEXES = {"pypi.org": "pypi.org (the production index)", "test.pypi.org": "test.pypi.org"}


class MacaroonError(ValueError):
    """The bytes are not a well-formed V2 macaroon; the message is redaction-safe."""


@dataclass
class Macaroon:
    location: bytes = b""
    identifier: bytes = b""
    caveats: list[bytes] = field(default_factory=list)
    third_party_caveats: int = 0
    signature: bytes = b""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def varint(self) -> int:
        result = shift = 0
        while True:
            if self.pos >= len(self.data) or shift > 28:
                raise MacaroonError("truncated length field")
            byte = self.data[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7

    def field(self) -> tuple[int, bytes]:
        kind = self.varint()
        if kind == _EOS:
            return kind, b""
        size = self.varint()
        if self.pos + size > len(self.data):
            raise MacaroonError("a field runs past the end of the data")
        value = self.data[self.pos : self.pos + size]
        self.pos += size
        return kind, value

    def section(self) -> dict[int, bytes]:
        fields: dict[int, bytes] = {}
        last = 0
        while True:
            kind, value = self.field()
            if kind == _EOS:
                return fields
            if kind <= last or kind not in (_LOCATION, _IDENTIFIER, _VID):
                raise MacaroonError("fields out of order or of an unknown type")
            fields[kind] = value
            last = kind

    def peek_eos(self) -> bool:
        return self.pos < len(self.data) and self.data[self.pos] == _EOS


def parse_macaroon(data: bytes) -> Macaroon:
    """Parse a V2 binary macaroon; raises :class:`MacaroonError`."""
    if not data or data[0] != 2:
        raise MacaroonError("not a version 2 macaroon")
    reader = _Reader(data)
    reader.pos = 1
    header = reader.section()
    if _IDENTIFIER not in header or _VID in header:
        raise MacaroonError("the header has no identifier")
    macaroon = Macaroon(location=header.get(_LOCATION, b""), identifier=header[_IDENTIFIER])
    while not reader.peek_eos():
        if reader.pos >= len(reader.data):
            raise MacaroonError("truncated inside the caveats")
        caveat = reader.section()
        if _IDENTIFIER not in caveat:
            raise MacaroonError("a caveat has no identifier")
        if _VID in caveat:
            macaroon.third_party_caveats += 1
        else:
            macaroon.caveats.append(caveat[_IDENTIFIER])
    reader.pos += 1
    kind, signature = reader.field()
    if kind != _SIGNATURE or len(signature) != 32:
        raise MacaroonError("no 32-byte signature")
    if reader.pos != len(reader.data):
        raise MacaroonError("trailing bytes after the signature")
    macaroon.signature = signature
    return macaroon


def _decode(body: str) -> bytes:
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))


def _scope(caveats: list[bytes], now: float) -> tuple[str, bool]:
    """A redaction-safe description of the caveats, and whether an expiry has passed."""
    projects = 0
    user_wide = False
    expired = False
    for raw in caveats:
        try:
            caveat: Any = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        if isinstance(caveat, dict):
            permissions = caveat.get("permissions")
            if permissions == "user":
                user_wide = True
            elif isinstance(permissions, dict) and isinstance(permissions.get("projects"), list):
                projects = max(projects, len(permissions["projects"]))
        elif isinstance(caveat, list) and caveat and isinstance(caveat[0], int):
            tag = caveat[0]
            if tag == 0 and len(caveat) >= 2 and isinstance(caveat[1], int | float):
                expired = expired or caveat[1] < now
            elif tag in (1, 2) and len(caveat) >= 2 and isinstance(caveat[1], list):
                projects = max(projects, len(caveat[1]))
    if projects:
        scope = f"scoped to {projects} project(s)"
    elif user_wide:
        scope = "account-wide (every project of the user)"
    else:
        scope = "no project restriction found (account-wide)"
    return scope, expired


class PyPITokenValidator(Validator):
    name = "pypi-token-format"
    description = (
        "PyPI API tokens: decodes the macaroon, checks its V2 structure and that its "
        "location is pypi.org or test.pypi.org; reports project scope and expiry"
    )
    secret_types = frozenset({SecretType.PYPI_TOKEN})

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        match = _TOKEN.match(value.strip())
        if not match:
            return [self.invalid(CheckKind.FORMAT, "not the shape of a PyPI API token")]
        try:
            macaroon = parse_macaroon(_decode(match.group(1)))
        except binascii.Error:
            return [self.invalid(CheckKind.FORMAT, "the body is not valid base64url")]
        except MacaroonError as error:
            return [self.invalid(CheckKind.STRUCTURE, f"not a well-formed macaroon: {error}")]
        location = macaroon.location.decode("utf-8", "replace")
        if location not in _INDEXES:
            return [
                self.invalid(
                    CheckKind.STRUCTURE,
                    f"a macaroon, but its location is not PyPI ({len(location)} characters)",
                )
            ]
        scope, expired = _scope(macaroon.caveats, self.clock())
        results = [
            self.valid(
                CheckKind.STRUCTURE,
                f"well-formed PyPI API token: macaroon for {_INDEXES[location]}, "
                f"{len(macaroon.caveats)} caveat(s), {scope}",
            )
        ]
        if expired:
            results.append(
                self.invalid(CheckKind.STRUCTURE, "an expiry caveat has passed: expired")
            )
        return results
