"""Deterministic secret validators and the registry behind the validator tools.

Offline validators always run; live validators (network calls to the provider a secret
belongs to) are included only when a run opts in with ``live=True`` (DESIGN §7).

The tribunal and the ``validate_secret`` tool call ``validate_async``: offline checks
take microseconds and run inline, live ones wait on a provider for up to their
timeout, so they run in the registry's own thread pool, never on the event loop. The
pool's size bounds how many provider requests are in flight at once, whatever
``--concurrency`` is: providers rate-limit, and a burst of probes looks like abuse.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from thresher.findings import Finding
from thresher.validators.aws import AwsKeyValidator
from thresher.validators.base import (
    CheckKind,
    ValidationResult,
    ValidationStatus,
    Validator,
    ValidatorError,
)
from thresher.validators.github_validity import GitHubValidityValidator
from thresher.validators.jwt import JwtValidator
from thresher.validators.keys import PrivateKeyValidator
from thresher.validators.live import (
    DEFAULT_TIMEOUT,
    LiveEndpoints,
    LiveValidator,
    live_validators,
)
from thresher.validators.offline import GitHubTokenValidator, NpmTokenValidator
from thresher.validators.placeholder import PlaceholderValidator
from thresher.validators.pypi import PyPITokenValidator
from thresher.validators.saas import SlackTokenValidator, StripeKeyValidator
from thresher.validators.urls import UrlCredentialsValidator

if TYPE_CHECKING:  # a live check loads them (``live``): offline runs never need them
    import asyncio

    import httpx


def offline_validators() -> list[Validator]:
    """Every offline validator, placeholder first."""
    return [
        PlaceholderValidator(),
        GitHubTokenValidator(),
        NpmTokenValidator(),
        AwsKeyValidator(),
        SlackTokenValidator(),
        StripeKeyValidator(),
        PyPITokenValidator(),
        PrivateKeyValidator(),
        JwtValidator(),
        UrlCredentialsValidator(),
        GitHubValidityValidator(),
    ]


DEFAULT_LIVE_CONCURRENCY = 4


class ValidatorRegistry:
    """The validators of one run, in a fixed order."""

    def __init__(
        self, validators: Sequence[Validator], *, live_concurrency: int = DEFAULT_LIVE_CONCURRENCY
    ) -> None:
        if live_concurrency < 1:
            raise ValidatorError(f"live_concurrency must be at least 1, got {live_concurrency}")
        self.validators = tuple(validators)
        self._by_type = tuple(type(v).applies is Validator.applies for v in self.validators)
        self.live_concurrency = live_concurrency
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    @classmethod
    def default(
        cls,
        *,
        live: bool = False,
        endpoints: LiveEndpoints | None = None,
        transport: httpx.BaseTransport | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        live_concurrency: int = DEFAULT_LIVE_CONCURRENCY,
    ) -> ValidatorRegistry:
        """The offline validators, plus the live ones when ``live`` is true."""
        validators: list[Validator] = offline_validators()
        if live:
            validators += live_validators(endpoints, transport=transport, timeout=timeout)
        return cls(validators, live_concurrency=live_concurrency)

    def offline_only(self) -> bool:
        """Whether these are the offline validators of ``default(live=False)``, in their
        order: the checks the scorer's contexts run, which give those results again."""
        return [type(v) for v in self.validators] == [type(v) for v in offline_validators()]

    def applicable(self, finding: Finding) -> list[Validator]:
        """The validators that apply, the finding's type worked out once for those that
        go by it alone (``Validator.accepts``): a dozen validators, every finding."""
        kind = finding.effective_secret_type
        return [
            v
            for v, by_type in zip(self.validators, self._by_type, strict=True)
            if (v.accepts(kind) if by_type else v.applies(finding))
        ]

    def validate(self, value: str, finding: Finding) -> list[ValidationResult]:
        """Every applicable check, on the calling thread: blocks on live validators.
        Code on an event loop uses ``validate_async``."""
        return [result for v in self.applicable(finding) for result in v.check(value, finding)]

    async def validate_async(self, value: str, finding: Finding) -> list[ValidationResult]:
        """``validate`` without blocking the event loop: the live checks of one value
        run side by side in the bounded pool, results in the registry's order.

        Cancelled, the await ends at once; a probe already sent finishes (bounded by
        its timeout) on its thread and is dropped, one not started yet never is.
        """
        import asyncio

        applicable = self.applicable(finding)
        pending: dict[int, asyncio.Future[list[ValidationResult]]] = {}
        if any(isinstance(v, LiveValidator) for v in applicable):
            loop = asyncio.get_running_loop()
            pool = self._live_pool()
            for live in applicable:
                if isinstance(live, LiveValidator):
                    pending[id(live)] = loop.run_in_executor(pool, live.check, value, finding)
        try:
            results: list[ValidationResult] = []
            for v in applicable:
                future = pending.get(id(v))
                results.extend(await future if future is not None else v.check(value, finding))
            return results
        finally:
            for future in pending.values():
                future.cancel()

    def _live_pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    self.live_concurrency, thread_name_prefix="thresher-live"
                )
            return self._pool

    def close(self) -> None:
        """Release the live pool's threads (idle ones also go with the registry)."""
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None


__all__ = [
    "DEFAULT_LIVE_CONCURRENCY",
    "CheckKind",
    "LiveEndpoints",
    "ValidationResult",
    "ValidationStatus",
    "Validator",
    "ValidatorError",
    "ValidatorRegistry",
    "offline_validators",
]
