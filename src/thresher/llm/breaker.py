"""A per-provider circuit breaker: after K failed requests in a row, stop asking.

A provider that is down, hangs, or refuses the key fails every request the same
way; without a breaker each finding pays attempts x timeout before it falls back
to the offline decision. The breaker counts *requests* (each after its retries),
not HTTP attempts, so one bad minute of 5xx that the retries absorb never opens
it. Every kind of final failure counts, client errors included: an invalid key or
an unknown model fails every request too, and hammering on helps nobody.

Once open, the circuit stays open for the rest of the run (there is no half-open
probe): the run is bounded, and a provider that failed K requests in a row is
not trusted with the remaining findings. State lives on the ``HttpProvider``
instance, which a run shares between the agents that use the same provider.
"""

from __future__ import annotations

from thresher.llm.errors import ProviderError, ProviderUnavailableError


class CircuitBreaker:
    """Consecutive-failure counter for one provider; opens at ``threshold``."""

    def __init__(self, provider: str, threshold: int) -> None:
        if threshold < 1:
            raise ValueError("a circuit breaker needs a threshold of at least 1")
        self.provider = provider
        self.threshold = threshold
        self.failures = 0
        self.last_error: ProviderError | None = None
        self.is_open = False

    def check(self, *, sent: bool = False) -> None:
        """Raise ``ProviderUnavailableError`` when open; ``sent`` says whether the
        request being refused already had attempts on the wire (a retry)."""
        if not self.is_open:
            return
        last = self.last_error.reason if self.last_error is not None else "unknown"
        error = ProviderUnavailableError(
            f"circuit open after {self.failures} consecutive failed requests; "
            f"not sent (last error: {last})",
            provider=self.provider,
            hint="the provider keeps failing: the rest of the run is decided offline; "
            "check the provider's status, the key, or the http.* timeouts",
        )
        error.sent = sent
        raise error

    def success(self) -> None:
        """One answered request resets the count (an open circuit stays open)."""
        self.failures = 0

    def failure(self, error: ProviderError) -> None:
        """A request failed after its retries; an open circuit's own refusals do not count."""
        if isinstance(error, ProviderUnavailableError):
            return
        self.failures += 1
        self.last_error = error
        if self.failures >= self.threshold:
            self.is_open = True
