"""JWTs built and signed at test time; the clock is injected."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

import pytest

from tests.validators.helpers import run, summary
from thresher.findings import SecretType
from thresher.validators import ValidationResult
from thresher.validators.jwt import JwtValidator

NOW = 1_750_000_000


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def segment(obj: Any) -> str:
    return b64(json.dumps(obj).encode())


def jwt(claims: dict[str, Any], alg: str = "HS256", signature: bytes | None = None) -> str:
    signing_input = f"{segment({'alg': alg, 'typ': 'JWT'})}.{segment(claims)}"
    if signature is None:
        signature = hmac.new(b"test-key", signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{b64(signature)}"


def check(value: str) -> list[ValidationResult]:
    return run(JwtValidator(clock=lambda: NOW), value, SecretType.JWT)


def test_live_token_with_issuer_and_audience() -> None:
    claims = {
        "iss": "https://auth.corp.internal/realms/x",
        "aud": ["api", "web"],
        "sub": "someone",
        "exp": NOW + 7200,
    }
    structure, expiry = check(jwt(claims))
    assert (structure.status, expiry.status) == ("valid", "valid")
    assert "alg HS256" in structure.detail
    assert "issuer host auth.corp.internal" in structure.detail
    assert "2 audience(s)" in structure.detail and "someone" not in structure.detail
    assert "expires in 2 hour(s)" in expiry.detail


def test_expired_token() -> None:
    _, expiry = check(jwt({"exp": NOW - 3 * 86400}))
    assert expiry.status == "invalid" and expiry.detail == "expired 3 day(s) ago"


def test_no_exp_and_not_before() -> None:
    _, expiry = check(jwt({"nbf": NOW + 600}))
    assert expiry.status == "valid"
    assert "does not expire" in expiry.detail and "nbf" in expiry.detail


def test_test_issuer_is_noted() -> None:
    structure, _ = check(jwt({"iss": "http://localhost:8080", "exp": NOW + 60}))
    assert "loopback host" in structure.detail
    structure, _ = check(jwt({"iss": "https://login.example.com/", "exp": NOW + 60}))
    assert "documentation host" in structure.detail


def test_opaque_issuer_is_not_echoed() -> None:
    structure, _ = check(jwt({"iss": "my-internal-issuer-name"}))
    assert "issuer present (23 characters)" in structure.detail
    assert "internal" not in structure.detail


def test_alg_none() -> None:
    value = f"{segment({'alg': 'none'})}.{segment({'sub': 'x'})}."
    structure, _ = check(value)
    assert structure.status == "valid" and "alg none" in structure.detail
    assert summary(check(value + "abcd")) == {"structure": "invalid"}


def test_signature_size_must_fit_the_alg() -> None:
    [result] = check(jwt({"sub": "x"}, signature=b"\x01" * 20))
    assert result.status == "invalid" and "HS256 signatures are 32" in result.detail
    es256 = check(jwt({"sub": "x"}, alg="ES256", signature=b"\x02" * 64))
    assert [r.status for r in es256] == ["valid", "valid"]
    [result] = check(jwt({"sub": "x"}).rsplit(".", 1)[0] + ".")
    assert "empty" in result.detail


def test_rs256_signature_accepted_at_key_size() -> None:
    results = check(jwt({"sub": "x", "exp": NOW + 10}, alg="RS256", signature=b"\x03" * 256))
    assert summary(results) == {"structure": "valid"}


@pytest.mark.parametrize(
    "value",
    [
        "abc.def",
        "not-a-jwt",
        f"{segment([1, 2])}.{segment({'a': 1})}.{b64(b'x' * 32)}",
        f"{segment({'typ': 'JWT'})}.{segment({'a': 1})}.{b64(b'x' * 32)}",
        f"{b64(b'{not json')}.{segment({'a': 1})}.{b64(b'x' * 32)}",
        "eyJ!!.eyJ.sig",
    ],
)
def test_not_jwts(value: str) -> None:
    assert "invalid" in summary(check(value)).values()


def test_bearer_prefix_is_accepted() -> None:
    assert "valid" in summary(check("Bearer " + jwt({"exp": NOW + 60}))).values()


def test_exp_must_be_a_number() -> None:
    _, expiry = check(jwt({"exp": "tomorrow"}))
    assert expiry.status == "invalid"


def test_jwe_is_recognised() -> None:
    value = ".".join(
        [segment({"alg": "RSA-OAEP", "enc": "A256GCM"}), "a" * 20, "b" * 16, "c" * 40, "d" * 22]
    )
    [result] = check(value)
    assert result.status == "valid" and "JWE" in result.detail


def test_jwt_io_example_is_documentation() -> None:
    value = jwt({"sub": "1234567890", "name": "John Doe", "iat": 1516239022})
    assert summary(check(value)) == {"documentation": "invalid"}


def test_deeply_nested_payload_is_rejected_not_raised() -> None:
    value = f"{segment({'alg': 'HS256'})}.{b64(b'[' * 30000)}.{b64(b'x' * 32)}"
    assert summary(check(value)) == {"format": "invalid"}
