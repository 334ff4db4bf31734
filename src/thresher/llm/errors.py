"""Typed failures of the LLM boundary; foreign exceptions are translated into these."""

from __future__ import annotations

from thresher.errors import ConfigError, ThresherError


class ProviderError(ThresherError):
    """A provider request failed; carries provider, HTTP status and a short body.

    ``sent`` says whether any attempt of the request may have reached the provider
    (and may be billed): false only when every attempt failed before a connection
    was made, or the circuit was open. Usage accounting charges a sent request.
    """

    retryable = False

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status: int | None = None,
        body: str = "",
        hint: str | None = None,
    ) -> None:
        detail = f"{provider}: {message}"
        if status is not None:
            detail += f" (HTTP {status})"
        super().__init__(detail, hint=hint)
        self.provider = provider
        self.reason = message
        self.status = status
        self.body = body[:500]
        self.sent = True


class RateLimitedError(ProviderError):
    retryable = True


class OverloadedError(ProviderError):
    """5xx, Anthropic's 529, Gemini's 503: the provider is struggling; retried."""

    retryable = True


class QuotaExhaustedError(ProviderError):
    """Billing or daily quota exhausted: retrying cannot help."""


class AuthenticationError(ProviderError):
    pass


class BadRequestError(ProviderError):
    pass


class ProviderTimeoutError(ProviderError):
    retryable = True


class ProviderConnectionError(ProviderError):
    retryable = True


class MalformedResponseError(ProviderError):
    """The provider answered something that is not its documented shape.

    Not ``retryable`` in general: the HTTP layer retries one malformed answer once
    (a body cut mid-object is usually a transient proxy or network fault), no more.
    """


class ProviderUnavailableError(ProviderError):
    """The provider's circuit is open: it failed too many requests in a row this run.

    Raised at once, without touching the network, so a dead or hostile provider
    cannot hold the run for attempts x timeout per finding; the caller falls back to
    the offline decision and records this error.
    """


class ModelConfigError(ConfigError):
    """A ``provider:model`` string, a base URL or a key is missing or wrong."""


class BudgetExceeded(ThresherError):
    """A usage limit would be crossed by the next request; carries the numbers.

    ``used`` counts what is spent plus what requests in flight have reserved;
    ``needed`` is what the refused request would have reserved (0 when unknown).
    """

    def __init__(self, what: str, used: int, limit: int, scope: str, needed: int = 0) -> None:
        wanted = f"; the next request needs about {needed}" if needed else ""
        super().__init__(
            f"{scope} {what} limit reached: {used} used of {limit}{wanted}",
            hint=f"raise the {scope} {what} limit or triage fewer findings",
        )
        self.what = what
        self.used = used
        self.limit = limit
        self.scope = scope
        self.needed = needed
