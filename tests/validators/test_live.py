"""Live validators against loopback servers: outcomes, redirects, timeouts, token placement."""

from __future__ import annotations

import base64
import dataclasses
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import pytest

from tests.tokens import github_token, random_secret
from tests.validators.helpers import assert_safe, finding_of
from tests.validators.live_server import Captured, LiveServer, Reply, json_reply
from thresher.findings import SecretType
from thresher.validators import ValidationResult, ValidatorError
from thresher.validators.live import (
    GitHubLiveValidator,
    LiveEndpoints,
    LiveValidator,
    NpmLiveValidator,
    OpenAILiveValidator,
    SlackLiveValidator,
    StripeLiveValidator,
)


def digits(count: int, seed: int) -> str:
    return "".join(str(ord(c) % 9 + 1) for c in random_secret(count, seed))


@dataclass(frozen=True)
class Provider:
    factory: type[LiveValidator]
    secret_type: SecretType
    token: str
    method: str
    path: str
    ok: Callable[[], Reply] = lambda: json_reply(200, {"login": "someone"})

    def authorization(self) -> str:
        if self.factory is StripeLiveValidator:
            return "Basic " + base64.b64encode(f"{self.token}:".encode()).decode()
        return f"Bearer {self.token}"


PROVIDERS = {
    "github": Provider(
        GitHubLiveValidator, SecretType.GITHUB_TOKEN, github_token(seed=41), "GET", "/user"
    ),
    "slack": Provider(
        SlackLiveValidator,
        SecretType.SLACK_TOKEN,
        f"xoxb-{digits(12, 1)}-{digits(13, 2)}-{random_secret(24, 3)}",
        "POST",
        "/api/auth.test",
        lambda: json_reply(200, {"ok": True, "team": "t"}),
    ),
    "stripe": Provider(
        StripeLiveValidator,
        SecretType.STRIPE_KEY,
        "sk_test_" + random_secret(60, 3),
        "GET",
        "/v1/balance",
    ),
    "openai": Provider(
        OpenAILiveValidator,
        SecretType.OPENAI_KEY,
        "sk-proj-" + random_secret(48, 4),
        "GET",
        "/v1/models",
    ),
    "npm": Provider(
        NpmLiveValidator, SecretType.NPM_TOKEN, "npm_" + random_secret(36, 5), "GET", "/-/whoami"
    ),
}


def verify(
    provider: Provider, server: LiveServer | str, *, timeout: float = 5.0, token: str | None = None
) -> ValidationResult:
    base = server if isinstance(server, str) else server.base_url
    validator = provider.factory(base, timeout=timeout)
    value = token or provider.token
    finding = finding_of(provider.secret_type)
    assert validator.applies(finding)
    [result] = validator.check(value, finding)
    assert result.kind == "live"
    assert_safe([result], value)
    return result


def assert_token_only_in_authorization(provider: Provider, request: Captured) -> None:
    assert (request.method, request.path) == (provider.method, provider.path)
    assert request.headers["authorization"] == provider.authorization()
    encoded = base64.b64encode(f"{provider.token}:".encode()).decode()
    for needle in (provider.token, encoded):
        assert needle not in request.path
        assert needle.encode() not in request.body
        for name, value in request.headers.items():
            if name != "authorization":
                assert needle not in value


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request: pytest.FixtureRequest) -> Provider:
    return PROVIDERS[request.param]


@pytest.fixture
def server() -> Iterator[LiveServer]:
    with LiveServer() as live:
        yield live


def test_200_is_valid_and_the_token_is_only_in_the_header(
    provider: Provider, server: LiveServer
) -> None:
    server.reply = lambda _: provider.ok()
    result = verify(provider, server)
    assert result.status == "valid"
    [request] = server.requests
    assert_token_only_in_authorization(provider, request)


def test_401_is_invalid(provider: Provider, server: LiveServer) -> None:
    server.reply = lambda _: json_reply(401, {"message": "Bad credentials"})
    assert verify(provider, server).status == "invalid"


@pytest.mark.parametrize("status", [403, 404, 429, 500, 502, 503])
def test_other_statuses_are_unknown_never_invalid(
    provider: Provider, server: LiveServer, status: int
) -> None:
    server.reply = lambda _: json_reply(status, {"message": "nope"})
    result = verify(provider, server)
    assert result.status == "unknown" and str(status) in result.detail


def test_redirect_to_another_host_is_not_followed(provider: Provider, server: LiveServer) -> None:
    with LiveServer() as elsewhere:
        target = f"{elsewhere.base_url}/steal"
        for location in (target, "https://collector.example/steal"):
            server.reply = lambda _, loc=location: (302, {"Location": loc}, b"")
            result = verify(provider, server)
            assert result.status == "unknown" and "refused redirect" in result.detail
        assert elsewhere.requests == []
    assert len(server.requests) == 2


def test_timeout_is_unknown(provider: Provider, server: LiveServer) -> None:
    server.delay = 1.0
    result = verify(provider, server, timeout=0.2)
    assert result.status == "unknown" and "in time" in result.detail


def test_connection_refused_is_unknown(provider: Provider) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = verify(provider, f"http://127.0.0.1:{port}")
    assert result.status == "unknown" and "network error" in result.detail


def test_other_shapes_are_never_sent(provider: Provider, server: LiveServer) -> None:
    other = "ghp_short" if provider.factory is not GitHubLiveValidator else "xoxb-1-2-3"
    result = verify(provider, server, token=other)
    assert result.status == "unknown" and "not sent" in result.detail
    assert server.requests == []


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        ({"ok": False, "error": "invalid_auth"}, "invalid"),
        ({"ok": False, "error": "token_revoked"}, "invalid"),
        ({"ok": False, "error": "account_inactive"}, "invalid"),
        ({"ok": False, "error": "ratelimited"}, "unknown"),
        ({"ok": False, "error": "<script>" * 20}, "unknown"),
        ({"unexpected": True}, "unknown"),
        ("not an object", "unknown"),
    ],
)
def test_slack_auth_test_bodies(server: LiveServer, payload: object, status: str) -> None:
    server.reply = lambda _: json_reply(200, payload)
    result = verify(PROVIDERS["slack"], server)
    assert result.status == status
    assert "<script>" not in result.detail


def test_github_scopes_are_reported(server: LiveServer) -> None:
    server.reply = lambda _: json_reply(200, {}, {"X-OAuth-Scopes": "repo, workflow, <bad>"})
    result = verify(PROVIDERS["github"], server)
    assert result.status == "valid" and "scopes: repo, workflow" in result.detail
    assert "<bad>" not in result.detail


def test_transport_is_injectable() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(401)

    validator = NpmLiveValidator(
        "https://registry.npmjs.org", transport=httpx.MockTransport(handler)
    )
    token = PROVIDERS["npm"].token
    [result] = validator.check(token, finding_of(SecretType.NPM_TOKEN))
    assert result.status == "invalid"
    assert str(seen[0].url) == "https://registry.npmjs.org/-/whoami"


def test_live_endpoints_are_frozen_with_provider_defaults() -> None:
    endpoints = LiveEndpoints()
    assert endpoints.github == "https://api.github.com"
    assert endpoints.slack == "https://slack.com"
    assert endpoints.stripe == "https://api.stripe.com"
    assert endpoints.openai == "https://api.openai.com"
    assert endpoints.npm == "https://registry.npmjs.org"
    with pytest.raises(dataclasses.FrozenInstanceError):
        endpoints.github = "http://127.0.0.1"  # type: ignore[misc]


@pytest.mark.parametrize(
    "base",
    [
        "ftp://api.github.com",
        "https://user:pw@api.github.com",
        "https://h/?token=x",
        "nohost",
        "http://api.github.com",
    ],
)
def test_bad_base_urls_are_refused(base: str) -> None:
    with pytest.raises(ValidatorError):
        GitHubLiveValidator(base)


def test_a_shared_transport_is_not_closed_between_validators(server: LiveServer) -> None:
    server.reply = lambda _: json_reply(401, {})
    transport = httpx.HTTPTransport()
    closed: list[bool] = []
    original = transport.close
    transport.close = lambda: closed.append(True)  # type: ignore[method-assign]
    try:
        for name in ("github", "npm"):
            provider = PROVIDERS[name]
            validator = provider.factory(server.base_url, transport=transport)
            [result] = validator.check(provider.token, finding_of(provider.secret_type))
            assert result.status == "invalid"
        assert closed == [] and len(server.requests) == 2
    finally:
        original()
