"""Opt-in live verification against the provider a secret belongs to (DESIGN §7).

Each validator calls one read-only endpoint of one provider, and only for a value of its
secret type *and* its provider's prefix. The token travels only in the ``Authorization``
header, never in the URL. Redirects are refused, every request has connect and read
timeouts, and only a provider's own answer can make a value ``invalid``: 200 -> valid,
401 -> invalid, anything else (403, 429, 5xx, a redirect, a timeout, a network error)
-> unknown.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import re
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from thresher.findings import Finding, SecretType
from thresher.validators.base import CheckKind, ValidationResult, Validator, ValidatorError

if TYPE_CHECKING:  # loaded when a live check runs: offline runs never need it
    import httpx

DEFAULT_TIMEOUT = 5.0
MAX_BODY_BYTES = 64 * 1024
USER_AGENT = "thresher-secret-validator"
_SAFE_WORD = re.compile(r"^[a-z0-9_.:-]{1,40}$")


@dataclass(frozen=True)
class LiveEndpoints:
    """Provider base URLs; tests point them at loopback servers."""

    github: str = "https://api.github.com"
    slack: str = "https://slack.com"
    stripe: str = "https://api.stripe.com"
    openai: str = "https://api.openai.com"
    npm: str = "https://registry.npmjs.org"


@dataclass(frozen=True)
class Probe:
    """One read-only request: no body, the credential only in headers."""

    method: str
    path: str
    headers: dict[str, str]


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _base(url: str) -> str:
    """Validate a base URL: https (plain http only to loopback), a host, nothing else."""
    import httpx

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as error:
        raise ValidatorError("live endpoint base URL does not parse") from error
    if parsed.scheme not in ("https", "http") or not parsed.host:
        raise ValidatorError(f"live endpoint base URL must be http(s) with a host: {url!r}")
    if parsed.scheme == "http" and not _is_loopback(parsed.host):
        raise ValidatorError(
            "live endpoint base URL must be https (plain http only to loopback, for tests)"
        )
    if parsed.userinfo or parsed.query or parsed.fragment:
        raise ValidatorError("live endpoint base URL must not carry credentials or a query")
    return url.rstrip("/")


def _borrowed(inner: httpx.BaseTransport) -> httpx.BaseTransport:
    """A caller's transport, shared by every validator: our clients must not close it."""
    return _borrowed_type()(inner)


@cache
def _borrowed_type() -> Callable[[httpx.BaseTransport], httpx.BaseTransport]:
    import httpx

    class Borrowed(httpx.BaseTransport):
        def __init__(self, inner: httpx.BaseTransport) -> None:
            self.inner = inner

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            return self.inner.handle_request(request)

        def close(self) -> None:
            """The caller owns the transport and closes it."""

    return Borrowed


class LiveValidator(Validator):
    """Base class: the HTTP exchange and the status mapping shared by every provider."""

    provider: str
    pattern: re.Pattern[str]

    def __init__(
        self,
        base_url: str,
        *,
        transport: httpx.BaseTransport | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.base_url = _base(base_url)
        self.transport = _borrowed(transport) if transport is not None else None
        self.timeout = timeout

    @abstractmethod
    def probe(self, value: str) -> Probe:
        """The request for this value."""

    def interpret(self, response: httpx.Response, body: bytes) -> ValidationResult:
        """Map a non-redirect answer; providers override for 200 bodies."""
        if response.status_code == 200:
            return self.valid(CheckKind.LIVE, f"{self.provider} accepted the credential (200)")
        return self.status_result(response.status_code)

    def status_result(self, status: int) -> ValidationResult:
        if status == 401:
            return self.invalid(
                CheckKind.LIVE,
                f"{self.provider} rejected the credential (401): revoked or never valid",
            )
        if status == 403:
            reason = "forbidden by a proxy, a permission or a rate limit"
        elif status == 429:
            reason = "rate limited"
        elif status >= 500:
            reason = "provider error"
        else:
            reason = "unexpected answer"
        return self.unknown(
            CheckKind.LIVE, f"{self.provider} answered {status} ({reason}): cannot tell"
        )

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        token = value.strip()
        if not self.pattern.match(token):
            return [
                self.unknown(
                    CheckKind.LIVE,
                    f"not the shape of a {self.provider} credential: not sent to {self.provider}",
                )
            ]
        import httpx

        probe = self.probe(token)
        headers = {"User-Agent": USER_AGENT, **probe.headers}
        try:
            with (
                httpx.Client(
                    transport=self.transport,
                    timeout=httpx.Timeout(self.timeout),
                    follow_redirects=False,
                ) as client,
                client.stream(
                    probe.method, self.base_url + probe.path, headers=headers
                ) as response,
            ):
                if response.is_redirect or 300 <= response.status_code < 400:
                    return [
                        self.unknown(
                            CheckKind.LIVE,
                            f"{self.provider} answered {response.status_code}: refused redirect "
                            "(redirects are never followed)",
                        )
                    ]
                body = b""
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_BODY_BYTES:
                        break
                return [self.interpret(response, body[:MAX_BODY_BYTES])]
        except httpx.TimeoutException:
            return [
                self.unknown(CheckKind.LIVE, f"{self.provider} did not answer in time: cannot tell")
            ]
        except (httpx.HTTPError, httpx.StreamError, OSError) as error:
            return [
                self.unknown(
                    CheckKind.LIVE,
                    f"network error reaching {self.provider} ({type(error).__name__}): cannot tell",
                )
            ]


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


class GitHubLiveValidator(LiveValidator):
    name = "github-live"
    provider = "GitHub"
    description = "Live: GET /user on the GitHub API with the token (read-only)"
    secret_types = frozenset({SecretType.GITHUB_TOKEN})
    pattern = re.compile(
        r"^(?:gh[pousr]_[0-9A-Za-z]{36}|github_pat_[0-9A-Za-z]{22}_[0-9A-Za-z]{59})$"
    )

    def probe(self, value: str) -> Probe:
        return Probe(
            "GET",
            "/user",
            {
                **_bearer(value),
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
            },
        )

    def interpret(self, response: httpx.Response, body: bytes) -> ValidationResult:
        if response.status_code != 200:
            return super().interpret(response, body)
        scopes = [s.strip() for s in response.headers.get("x-oauth-scopes", "").split(",")]
        safe = [s for s in scopes if _SAFE_WORD.match(s)][:20]
        detail = "GitHub accepted the token (200)"
        if safe:
            detail += f"; scopes: {', '.join(safe)}"
        return self.valid(CheckKind.LIVE, detail)


class SlackLiveValidator(LiveValidator):
    name = "slack-live"
    provider = "Slack"
    description = "Live: POST /api/auth.test on Slack with the token as Bearer (read-only)"
    secret_types = frozenset({SecretType.SLACK_TOKEN})
    pattern = re.compile(r"^(?:xox[abprs]-|xoxe\.xox[bp]-|xapp-)[A-Za-z0-9_-]{10,400}$")
    _REJECTED = frozenset(
        {"invalid_auth", "token_revoked", "account_inactive", "not_authed", "token_expired"}
    )

    def probe(self, value: str) -> Probe:
        return Probe("POST", "/api/auth.test", _bearer(value))

    def interpret(self, response: httpx.Response, body: bytes) -> ValidationResult:
        if response.status_code != 200:
            return super().interpret(response, body)
        data = _json(body)
        if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
            return self.unknown(
                CheckKind.LIVE, "Slack answered 200 without an ok field: cannot tell"
            )
        if data["ok"]:
            return self.valid(CheckKind.LIVE, "Slack auth.test says ok: the token is live")
        error = data.get("error")
        code = error if isinstance(error, str) and _SAFE_WORD.match(error) else "unrecognised"
        if code in self._REJECTED:
            return self.invalid(CheckKind.LIVE, f"Slack auth.test rejected the token ({code})")
        return self.unknown(CheckKind.LIVE, f"Slack auth.test failed ({code}): cannot tell")


class StripeLiveValidator(LiveValidator):
    name = "stripe-live"
    provider = "Stripe"
    description = "Live: GET /v1/balance on the Stripe API with the key as Basic auth user"
    secret_types = frozenset({SecretType.STRIPE_KEY})
    pattern = re.compile(r"^(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,247}$")

    def probe(self, value: str) -> Probe:
        basic = base64.b64encode(f"{value}:".encode()).decode("ascii")
        return Probe("GET", "/v1/balance", {"Authorization": f"Basic {basic}"})


class OpenAILiveValidator(LiveValidator):
    name = "openai-live"
    provider = "OpenAI"
    description = "Live: GET /v1/models on the OpenAI API with the key as Bearer (read-only)"
    secret_types = frozenset({SecretType.OPENAI_KEY})
    pattern = re.compile(r"^sk-[A-Za-z0-9_-]{20,300}$")

    def probe(self, value: str) -> Probe:
        return Probe("GET", "/v1/models", _bearer(value))


class NpmLiveValidator(LiveValidator):
    name = "npm-live"
    provider = "npm"
    description = "Live: GET /-/whoami on the npm registry with the token as Bearer"
    secret_types = frozenset({SecretType.NPM_TOKEN})
    pattern = re.compile(r"^npm_[0-9A-Za-z]{36}$")

    def probe(self, value: str) -> Probe:
        return Probe("GET", "/-/whoami", _bearer(value))


def live_validators(
    endpoints: LiveEndpoints | None = None,
    *,
    transport: httpx.BaseTransport | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[LiveValidator]:
    """One live validator per provider, pointed at ``endpoints``."""
    ends = endpoints or LiveEndpoints()
    options: dict[str, Any] = {"transport": transport, "timeout": timeout}
    return [
        GitHubLiveValidator(ends.github, **options),
        SlackLiveValidator(ends.slack, **options),
        StripeLiveValidator(ends.stripe, **options),
        OpenAILiveValidator(ends.openai, **options),
        NpmLiveValidator(ends.npm, **options),
    ]
