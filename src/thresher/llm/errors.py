"""Typed failures of the LLM boundary; foreign exceptions are translated into these."""

from __future__ import annotations

from thresher.errors import ConfigError, ThresherError


class ProviderError(ThresherError):
    """A provider request failed; carries provider, HTTP status and a short body."""

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
        self.status = status
        self.body = body[:500]


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
    """The provider answered something that is not its documented shape."""


class ModelConfigError(ConfigError):
    """A ``provider:model`` string, a base URL or a key is missing or wrong."""


class BudgetExceeded(ThresherError):
    """A usage limit would be crossed by the next request; carries the numbers."""

    def __init__(self, what: str, used: int, limit: int, scope: str) -> None:
        super().__init__(
            f"{scope} {what} limit reached: {used} used of {limit}",
            hint=f"raise the {scope} {what} limit or triage fewer findings",
        )
        self.what = what
        self.used = used
        self.limit = limit
        self.scope = scope
