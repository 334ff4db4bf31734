"""PyPI tokens: V2 macaroons assembled byte by byte at test time."""

from __future__ import annotations

import base64
import json
import random

import pytest

from tests.validators.helpers import run, summary
from thresher.findings import SecretType
from thresher.validators import ValidationResult
from thresher.validators.pypi import MacaroonError, PyPITokenValidator, parse_macaroon

NOW = 1_750_000_000.0
RNG = random.Random(5)


def varint(number: int) -> bytes:
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        out.append(byte | (0x80 if number else 0))
        if not number:
            return bytes(out)


def field(kind: int, data: bytes) -> bytes:
    return varint(kind) + varint(len(data)) + data


def macaroon(
    location: str = "pypi.org",
    caveats: tuple[object, ...] = ({"version": 1, "permissions": "user"},),
    signature: bytes | None = None,
    version: int = 2,
) -> bytes:
    data = bytes([version]) + field(1, location.encode()) + field(2, RNG.randbytes(16)) + b"\0"
    for caveat in caveats:
        data += field(2, json.dumps(caveat).encode()) + b"\0"
    data += b"\0" + field(6, RNG.randbytes(32) if signature is None else signature)
    return data


def token(data: bytes) -> str:
    return "pypi-" + base64.urlsafe_b64encode(data).decode().rstrip("=")


def check(value: str) -> list[ValidationResult]:
    return run(PyPITokenValidator(clock=lambda: NOW), value, SecretType.PYPI_TOKEN)


def test_production_token_account_wide() -> None:
    [result] = check(token(macaroon()))
    assert (result.kind, result.status) == ("structure", "valid")
    assert "pypi.org (the production index)" in result.detail
    assert "account-wide" in result.detail and "1 caveat(s)" in result.detail


def test_test_index_token_scoped_to_projects() -> None:
    caveat = {"version": 1, "permissions": {"projects": ["one", "two"]}}
    [result] = check(token(macaroon("test.pypi.org", (caveat,))))
    assert result.status == "valid"
    assert "test.pypi.org" in result.detail and "production" not in result.detail
    assert "scoped to 2 project(s)" in result.detail


def test_new_style_caveats_and_expiry() -> None:
    live = (
        [0, int(NOW) + 3600, int(NOW) - 60],
        [1, ["only-project"]],
    )
    [result] = check(token(macaroon(caveats=live)))
    assert result.status == "valid" and "scoped to 1 project(s)" in result.detail
    expired = ([0, int(NOW) - 3600, int(NOW) - 7200],)
    results = check(token(macaroon(caveats=expired)))
    assert [r.status for r in results] == ["valid", "invalid"]
    assert "expired" in results[1].detail


def test_location_must_be_pypi() -> None:
    [result] = check(token(macaroon("files.example.test")))
    assert result.status == "invalid" and "not PyPI" in result.detail


@pytest.mark.parametrize(
    "data",
    [
        macaroon()[:-5],
        macaroon(signature=b"x" * 16),
        macaroon(version=1),
        macaroon() + b"\0\0",
        b"\x02" + b"\x01\x50pypi.org",
    ],
    ids=["truncated", "short-signature", "version-1", "trailing", "overlong-field"],
)
def test_broken_macaroons(data: bytes) -> None:
    assert summary(check(token(data))) in ({"structure": "invalid"}, {"format": "invalid"})


@pytest.mark.parametrize(
    "value", ["pypi-short", "pypi_" + "A" * 60, "pypi-" + "A" * 61, "npm_" + "a" * 36]
)
def test_not_a_token(value: str) -> None:
    assert "invalid" in summary(check(value)).values()


def test_parse_macaroon_rejects_missing_identifier() -> None:
    data = b"\x02" + field(1, b"pypi.org") + b"\0\0" + field(6, b"s" * 32)
    with pytest.raises(MacaroonError):
        parse_macaroon(data)
