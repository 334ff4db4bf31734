"""AWS access key ids and secret access keys, generated at test time."""

from __future__ import annotations

import random
import string

import pytest

from tests.validators.helpers import run, summary
from thresher.findings import SecretType
from thresher.validators import ValidationResult
from thresher.validators.aws import AwsKeyValidator

BASE32 = string.ascii_uppercase + "234567"
SECRET_ALPHABET = string.ascii_letters + string.digits + "/+"


def key_id(prefix: str = "AKIA", seed: int = 1) -> str:
    rng = random.Random(seed)
    return prefix + "".join(rng.choice(BASE32) for _ in range(16))


def secret_key(seed: int = 2) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(SECRET_ALPHABET) for _ in range(40))


def check(value: str) -> list[ValidationResult]:
    return run(AwsKeyValidator(), value, SecretType.AWS_ACCESS_KEY)


def test_long_term_key_id() -> None:
    [result] = check(key_id("AKIA"))
    assert result.status == "valid" and result.kind == "format"
    assert "long-term" in result.detail


def test_temporary_key_id() -> None:
    [result] = check(key_id("ASIA"))
    assert result.status == "valid"
    assert "temporary" in result.detail


@pytest.mark.parametrize(
    ("prefix", "what"), [("AIDA", "user"), ("AROA", "role"), ("AGPA", "group")]
)
def test_iam_identifiers_are_not_credentials(prefix: str, what: str) -> None:
    [result] = check(key_id(prefix))
    assert result.status == "invalid"
    assert what in result.detail and "not a credential" in result.detail


def test_key_id_outside_base32_is_invalid() -> None:
    value = key_id()[:-2] + "08"
    [result] = check(value)
    assert result.status == "invalid" and "base32" in result.detail


def test_unknown_prefix_is_invalid() -> None:
    assert summary(check(key_id("ZZZZ")))["format"] == "invalid"


def test_secret_key_shape() -> None:
    [result] = check(secret_key())
    assert result.status == "valid" and "secret access key" in result.detail


def test_hex_sha1_is_not_a_secret_key() -> None:
    value = "".join(random.Random(3).choice("0123456789abcdef") for _ in range(40))
    [result] = check(value)
    assert result.status == "invalid" and "SHA-1" in result.detail


def test_wrong_alphabet_and_length() -> None:
    assert summary(check(secret_key()[:-1] + "!"))["format"] == "invalid"
    assert summary(check(secret_key()[:30]))["format"] == "invalid"


@pytest.mark.parametrize(
    "value",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AKIAI44QH8DHBEXAMPLE",
        key_id()[:13] + "EXAMPLE",
    ],
)
def test_documentation_values_are_documentation_evidence(value: str) -> None:
    # A vendor's published example is hard evidence (never a credential), not a soft
    # placeholder pattern.
    [result] = check(value)
    assert result.kind == "documentation" and result.status == "invalid"
