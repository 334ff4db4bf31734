"""Credentials in URLs and HTTP Basic auth headers."""

from __future__ import annotations

import base64

import pytest

from tests.tokens import random_secret
from tests.validators.helpers import run, summary
from thresher.findings import SecretType
from thresher.validators import ValidationResult
from thresher.validators.urls import UrlCredentialsValidator, host_kind, split_url

PASSWORD = random_secret(24, seed=31)
PUBLIC = ("postgres://", "postgresql://", "https://", "redis://", "mongodb://", "Basic ", ":5432")


def check(
    value: str,
    secret_type: SecretType = SecretType.URL_CREDENTIALS,
    public: tuple[str, ...] = (),
) -> list[ValidationResult]:
    """Run the validator; ``public`` adds placeholder words and reserved hosts under test."""
    return run(UrlCredentialsValidator(), value, secret_type, PUBLIC + public)


def test_database_url_with_real_looking_password() -> None:
    value = f"postgres://app_user:{PASSWORD}@db.prod.internal:5432/app"
    password, host = check(value, SecretType.DATABASE_CONNECTION_STRING)
    assert (password.kind, password.status) == ("format", "valid")
    assert "database URL" in password.detail and "24-character password" in password.detail
    assert (host.kind, host.status) == ("structure", "valid")


def test_password_with_at_and_slash_is_split_correctly() -> None:
    secret = "p@ss/w:rd" + PASSWORD
    assert split_url(f"redis://:{secret}@cache.internal:6379/0") == (
        "redis",
        "",
        secret,
        "cache.internal:6379",
    )


@pytest.mark.parametrize(
    "password",
    [
        "${DB_PASSWORD}",
        "$DB_PASSWORD",
        "%(password)s",
        "{{ db_password }}",
        "%DB_PASS%",
        "<password>",
    ],
)
def test_env_reference_passwords_are_placeholders(password: str) -> None:
    results = check(f"postgresql://app:{password}@db.prod.internal/app", public=(password,))
    assert results[0].kind == "placeholder" and results[0].status == "invalid"
    assert "reference" in results[0].detail


@pytest.mark.parametrize("password", ["password", "changeme", "xxxxxxxx", "admin"])
def test_placeholder_passwords(password: str) -> None:
    results = check(f"mongodb://admin:{password}@db.prod.internal/app", public=(password,))
    assert results[0].kind == "placeholder" and results[0].status == "invalid"


@pytest.mark.parametrize(
    "host",
    [
        "example.com",
        "db.example.org",
        "example.net",
        "svc.example",
        "db.test",
        "x.invalid",
        "192.0.2.4",
    ],
)
def test_documentation_hosts(host: str) -> None:
    results = check(f"https://deploy:{PASSWORD}@{host}/path", public=(host,))
    assert summary(results) == {"format": "valid", "structure": "invalid"}
    assert "documentation" in results[1].detail


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "api.localhost"])
def test_loopback_hosts_are_noted(host: str) -> None:
    results = check(f"https://deploy:{PASSWORD}@{host}:8443/", public=(host,))
    assert summary(results) == {"format": "valid", "structure": "unknown"}
    assert "loopback" in results[1].detail


def test_user_only_and_no_credentials() -> None:
    [result] = check(f"https://{PASSWORD}@github.internal/org/repo.git")
    assert result.status == "valid" and "only a user part" in result.detail
    assert summary(check("https://github.internal/org/repo.git")) == {"format": "invalid"}


def test_multi_host_mongodb() -> None:
    value = f"mongodb://app:{PASSWORD}@h1.internal:27017,h2.internal:27017/db?replicaSet=rs"
    assert summary(check(value)) == {"format": "valid", "structure": "valid"}


def test_basic_auth_header() -> None:
    good = base64.b64encode(f"deploy:{PASSWORD}".encode()).decode()
    [result] = check(f"Basic {good}")
    assert result.status == "valid" and "24-character password" in result.detail
    templated = base64.b64encode(b"deploy:${TOKEN}").decode()
    [result] = check(f"Authorization: Basic {templated}")
    assert (result.kind, result.status) == ("placeholder", "invalid")
    no_colon = base64.b64encode(b"justauser").decode()
    assert summary(check(f"Basic {no_colon}")) == {"format": "invalid"}


def test_user_equals_password() -> None:
    results = check("postgres://postgres:postgres@db.prod.internal:5432/app", public=("postgres",))
    assert results[0].status == "invalid" and "equals the user name" in results[0].detail


def test_bare_password() -> None:
    assert summary(check(PASSWORD)) == {"format": "unknown"}
    assert summary(check("${SECRET}")) == {"placeholder": "invalid"}


def test_host_kind() -> None:
    assert host_kind("EXAMPLE.COM.") == "documentation host"
    assert host_kind("notexample.com") is None
    assert host_kind("0.0.0.0") == "loopback host"
    assert host_kind("10.0.0.1") is None
