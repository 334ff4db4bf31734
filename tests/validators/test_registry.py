"""The registry: offline by default, live only on opt-in, one provider per secret."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tokens import github_token, random_secret
from tests.validators.helpers import assert_safe, finding_of
from tests.validators.live_server import LiveServer, json_reply
from thresher.findings import SecretType
from thresher.validators import CheckKind, LiveEndpoints, ValidatorRegistry
from thresher.validators.live import LiveValidator

LIVE_NAMES = {"github-live", "slack-live", "stripe-live", "openai-live", "npm-live"}


def test_default_is_offline() -> None:
    registry = ValidatorRegistry.default()
    assert not any(isinstance(v, LiveValidator) for v in registry.validators)
    assert registry.validators[0].name == "placeholder"
    names = [v.name for v in registry.validators]
    assert len(names) == len(set(names))


def test_every_offline_validator_is_described() -> None:
    for validator in ValidatorRegistry.default().validators:
        assert validator.name and validator.description
        # Placeholders apply to every value, GitHub's validity to every alert of any type.
        if validator.name not in {"placeholder", "github-validity"}:
            assert validator.secret_types


@pytest.mark.parametrize(
    ("secret_type", "expected"),
    [
        (SecretType.GITHUB_TOKEN, {"github-token-format", "github-live"}),
        (SecretType.AWS_ACCESS_KEY, {"aws-key-format"}),
        (SecretType.SLACK_TOKEN, {"slack-token-format", "slack-live"}),
        (SecretType.STRIPE_KEY, {"stripe-key-format", "stripe-live"}),
        (SecretType.NPM_TOKEN, {"npm-token-format", "npm-live"}),
        (SecretType.PYPI_TOKEN, {"pypi-token-format"}),
        (SecretType.OPENAI_KEY, {"openai-live"}),
        (SecretType.PRIVATE_KEY, {"private-key-structure"}),
        (SecretType.JWT, {"jwt-structure"}),
        (SecretType.URL_CREDENTIALS, {"url-credentials"}),
        (SecretType.DATABASE_CONNECTION_STRING, {"url-credentials"}),
        (SecretType.PASSWORD, set()),
        (SecretType.HIGH_ENTROPY_STRING, set()),
    ],
)
def test_applicability_per_type(secret_type: SecretType, expected: set[str]) -> None:
    registry = ValidatorRegistry.default(live=True)
    names = {v.name for v in registry.applicable(finding_of(secret_type))}
    assert names == {"placeholder", *expected}
    offline = {v.name for v in ValidatorRegistry.default().applicable(finding_of(secret_type))}
    assert offline == {"placeholder", *(expected - LIVE_NAMES)}


@pytest.fixture
def servers() -> Iterator[dict[str, LiveServer]]:
    names = ("github", "slack", "stripe", "openai", "npm")
    started = {name: LiveServer().__enter__() for name in names}
    try:
        yield started
    finally:
        for live in started.values():
            live.__exit__(None, None, None)


def test_live_registry_calls_only_the_owning_provider(servers: dict[str, LiveServer]) -> None:
    servers["slack"].reply = lambda _: json_reply(200, {"ok": True})
    endpoints = LiveEndpoints(**{name: s.base_url for name, s in servers.items()})
    registry = ValidatorRegistry.default(live=True, endpoints=endpoints, timeout=2.0)
    token = f"xoxb-{'8' * 3}{'7' * 9}-{'1' * 3}{'2' * 10}-{random_secret(24, 9)}"
    results = registry.validate(token, finding_of(SecretType.SLACK_TOKEN))
    assert_safe(results, token)
    live = [r for r in results if r.kind is CheckKind.LIVE]
    assert [(r.validator, r.status.value) for r in live] == [("slack-live", "valid")]
    assert len(servers["slack"].requests) == 1
    assert all(not s.requests for name, s in servers.items() if name != "slack")


def test_live_and_offline_results_side_by_side(servers: dict[str, LiveServer]) -> None:
    servers["github"].reply = lambda _: json_reply(401, {"message": "Bad credentials"})
    endpoints = LiveEndpoints(github=servers["github"].base_url)
    registry = ValidatorRegistry.default(live=True, endpoints=endpoints)
    token = github_token(seed=12)
    results = registry.validate(token, finding_of(SecretType.GITHUB_TOKEN))
    assert {(r.validator, r.kind.value): r.status.value for r in results} == {
        ("placeholder", "placeholder"): "valid",
        ("github-token-format", "format"): "valid",
        ("github-token-format", "checksum"): "valid",
        ("github-live", "live"): "invalid",
    }


ODD_VALUES = [
    "",
    " ",
    "\x00\x01",
    "é" * 10,
    "a@b" * 5000,
    "x://" + "@" * 3000,
    "eyJ." * 3,
    "eyJhbGciOiJIUzI1NiJ9." + "W" * 40000 + ".sig",
    "e" + "[" * 30000,
    "pypi-" + "A" * 4096,
    "-----BEGIN PRIVATE KEY-----\n" + "MII" + "A" * 5000 + "\n-----END PRIVATE KEY-----",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY-----",
    "Basic " + "=" * 10,
    "https://hooks.slack.com/services/",
    "A" * 300_000,
]


@pytest.mark.parametrize("secret_type", list(SecretType))
def test_odd_inputs_never_raise(secret_type: SecretType) -> None:
    registry = ValidatorRegistry.default()
    for value in ODD_VALUES:
        results = registry.validate(value, finding_of(secret_type))
        assert results
        for result in results:
            assert value not in result.detail or not value.strip()


@pytest.mark.parametrize("secret_type", list(SecretType))
def test_the_registry_applies_what_each_validator_says_it_applies_to(
    secret_type: SecretType,
) -> None:
    """The registry works a finding's type out once for the validators that go by the
    type alone, and asks the others (GitHub's validity reads the alert)."""
    registry = ValidatorRegistry.default(live=True)
    finding = finding_of(secret_type)
    assert registry.applicable(finding) == [v for v in registry.validators if v.applies(finding)]
