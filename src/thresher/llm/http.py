"""The HTTP side of a provider: client, auth headers, deadlines, retries, breaker.

A provider object owns the httpx client, base URL and key; wire adapters own
translation. Retries use jittered exponential backoff for rate limits, 5xx and
529, honour ``Retry-After``, ``retry-after-ms`` and Gemini's ``RetryInfo``, and
give up at once on quota exhaustion and other 4xx. A server asking for a wait
longer than ``max_delay`` is not waited for: the typed error says how long.

Deadlines: httpx's connect and read timeouts bound each *wait* for a byte, so a
server that sends one byte every few seconds never trips them. Every attempt is
therefore also bounded by ``total`` (``http.total_timeout``) as a whole, and a
request -- all its attempts and the waits between them -- by twice that. A
total-deadline expiry is a ``ProviderTimeoutError`` like a read timeout; a
timed-out attempt is retried once, not ``max_attempts - 1`` times, because each
costs up to ``total`` seconds and a provider that hung twice rarely answers the
third time. A 200 whose body is not complete JSON (cut mid-object) is retried
once too, then is a ``MalformedResponseError``. After ``breaker_failures`` failed
requests in a row the provider's circuit opens (see ``thresher.llm.breaker``).
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import httpx
from pydantic import SecretStr

from thresher.llm.breaker import CircuitBreaker
from thresher.llm.errors import (
    MalformedResponseError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
)
from thresher.llm.messages import ModelSettings

Sleep = Callable[[float], Awaitable[None]]
Classifier = Callable[[httpx.Response], ProviderError]
DelayHint = Callable[[httpx.Response], float | None]


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: float = 0.25

    def backoff(self, attempt: int, rng: random.Random) -> float:
        delay: float = min(self.max_delay, self.base_delay * 2.0 ** (attempt - 1))
        return delay * (1 + rng.uniform(-self.jitter, self.jitter))


def retry_after_seconds(response: httpx.Response) -> float | None:
    """``retry-after-ms`` (OpenAI) wins over ``Retry-After`` (seconds or HTTP date)."""
    millis = response.headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


def short_body(response: httpx.Response) -> str:
    try:
        return response.text[:500]
    except (UnicodeDecodeError, httpx.ResponseNotRead):
        return "<unreadable body>"


@dataclass(frozen=True)
class Timeouts:
    """Seconds: ``connect`` and ``read`` per wait (httpx), ``total`` per attempt."""

    connect: float = 10.0
    read: float = 60.0
    total: float = 180.0

    def overridden(self, settings: ModelSettings) -> Timeouts:
        return Timeouts(
            connect=settings.connect_timeout or self.connect,
            read=settings.read_timeout or self.read,
            total=settings.total_timeout or self.total,
        )


# A request (every attempt and every wait) ends within this many total timeouts.
CALL_DEADLINE_FACTOR = 2.0
# Attempts of one request that may time out, and that may answer malformed JSON.
MAX_TIMED_OUT_ATTEMPTS = 2
MAX_MALFORMED_ATTEMPTS = 2

T = TypeVar("T")
Parser = Callable[[dict[str, Any]], T]


@dataclass(frozen=True)
class _Attempt(Generic[T]):
    """One HTTP attempt: an answer or an error, the server's wait hint, and whether
    the request may have reached the server (false only for connection failures)."""

    outcome: T | ProviderError
    hint: float | None = None
    reached: bool = True
    cut_body: bool = False


class HttpProvider:
    """An HTTP endpoint with a key; used by one or more wire adapters.

    One instance per provider per run (``thresher.agents.registry.ProviderPool``), so
    its circuit breaker sees every request the run sends to that provider.
    """

    def __init__(
        self,
        name: str,
        base_url: str,
        api_key: SecretStr | None,
        *,
        auth_headers: Callable[[SecretStr | None], dict[str, str]],
        retry: RetryPolicy | None = None,
        timeouts: Timeouts | None = None,
        breaker_failures: int = 3,
        sleep: Sleep | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        seed: int | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self._auth_headers = auth_headers
        self.retry = retry or RetryPolicy()
        self.timeouts = timeouts or Timeouts()
        self.breaker = CircuitBreaker(name, breaker_failures)
        self._sleep: Sleep = sleep or asyncio.sleep
        self._rng = random.Random(seed)  # noqa: S311 - jitter, not cryptography
        # Redirects are not followed: a key must never be re-sent to another host.
        self._client = httpx.AsyncClient(follow_redirects=False, transport=transport)
        self.attempts = 0

    async def aclose(self) -> None:
        """Idempotent: agents sharing this provider each close their model."""
        await self._client.aclose()

    async def post_json(
        self,
        path: str,
        payload: Mapping[str, Any],
        settings: ModelSettings,
        *,
        classify: Classifier,
        parse: Parser[T],
        delay_hint: DelayHint = retry_after_seconds,
    ) -> T:
        """POST ``payload`` and return ``parse`` of the JSON answer, or raise a
        ``ProviderError`` whose ``sent`` says whether anything reached the server.

        ``parse`` runs inside the attempt, so a 200 that is not the documented
        shape is a ``MalformedResponseError`` and a failed request for the breaker.
        """
        self.breaker.check()
        try:
            result = await self._post(path, payload, settings, classify, parse, delay_hint)
        except ProviderError as error:
            self.breaker.failure(error)
            raise
        self.breaker.success()
        return result

    async def _post(
        self,
        path: str,
        payload: Mapping[str, Any],
        settings: ModelSettings,
        classify: Classifier,
        parse: Parser[T],
        delay_hint: DelayHint,
    ) -> T:
        url = f"{self.base_url}/{path.lstrip('/')}"
        headers = {"content-type": "application/json", **self._auth_headers(self.api_key)}
        limits = self.timeouts.overridden(settings)
        timeout = httpx.Timeout(
            connect=limits.connect, read=limits.read, write=limits.read, pool=limits.connect
        )
        clock = asyncio.get_running_loop().time
        budget = CALL_DEADLINE_FACTOR * limits.total
        deadline = clock() + budget
        attempt = timed_out = cut = 0
        sent = False
        while True:
            attempt += 1
            self.breaker.check(sent=sent)  # another request may have opened it meanwhile
            self.attempts += 1
            window = min(limits.total, deadline - clock())
            result = await self._attempt(
                url, payload, headers, timeout, window, limits.total, classify, delay_hint, parse
            )
            sent = sent or result.reached
            if not isinstance(result.outcome, ProviderError):
                return result.outcome
            error = result.outcome
            error.sent = sent
            timed_out += isinstance(error, ProviderTimeoutError)
            cut += result.cut_body
            again = (error.retryable and timed_out < MAX_TIMED_OUT_ATTEMPTS) or (
                result.cut_body and cut < MAX_MALFORMED_ATTEMPTS
            )
            if not again or attempt >= self.retry.max_attempts:
                raise error
            delay = (
                result.hint if result.hint is not None else self.retry.backoff(attempt, self._rng)
            )
            if delay > self.retry.max_delay:
                raise self._give_up(
                    error,
                    sent,
                    f"asked to wait {delay:.0f}s before retrying, more than the "
                    f"{self.retry.max_delay:.0f}s allowed",
                    "lower the request rate or raise the provider's limits",
                )
            if clock() + delay >= deadline:
                raise self._give_up(
                    error,
                    sent,
                    f"{error.reason}; no time left to retry within the request's "
                    f"{budget:.0f}s deadline",
                    "raise http.total_timeout, or check the provider",
                )
            await self._sleep(delay)

    def _give_up(self, error: ProviderError, sent: bool, message: str, hint: str) -> ProviderError:
        final = type(error)(
            message, provider=self.name, status=error.status, body=error.body, hint=hint
        )
        final.sent = sent
        return final

    async def _attempt(
        self,
        url: str,
        payload: Mapping[str, Any],
        headers: dict[str, str],
        timeout: httpx.Timeout,
        window: float,
        total: float,
        classify: Classifier,
        delay_hint: DelayHint,
        parse: Parser[T],
    ) -> _Attempt[T]:
        if window <= 0:
            return _Attempt(self._deadline_error(total), reached=False)
        try:
            async with asyncio.timeout(window):
                response = await self._client.post(
                    url, json=payload, headers=headers, timeout=timeout
                )
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            failure: ProviderError = (
                ProviderConnectionError(
                    f"cannot reach {self.base_url}: {type(exc).__name__}", provider=self.name
                )
                if isinstance(exc, httpx.ConnectError)
                else ProviderTimeoutError(
                    f"request timed out ({type(exc).__name__})", provider=self.name
                )
            )
            return _Attempt(failure, reached=False)
        except httpx.TimeoutException as exc:
            return _Attempt(
                ProviderTimeoutError(
                    f"request timed out ({type(exc).__name__})", provider=self.name
                )
            )
        except httpx.TransportError as exc:
            return _Attempt(
                ProviderConnectionError(
                    f"connection to {self.base_url} failed: {type(exc).__name__}",
                    provider=self.name,
                )
            )
        except TimeoutError:  # asyncio.timeout: the attempt as a whole took too long
            return _Attempt(self._deadline_error(total))
        if response.is_success:
            return self._answer(response, parse)
        if response.is_redirect:
            return _Attempt(
                ProviderConnectionError(
                    f"refused redirect to {response.headers.get('location', '?')}",
                    provider=self.name,
                    status=response.status_code,
                )
            )
        return _Attempt(classify(response), delay_hint(response))

    def _deadline_error(self, total: float) -> ProviderTimeoutError:
        return ProviderTimeoutError(
            f"no complete answer within the total deadline ({total:g}s per attempt, "
            f"{CALL_DEADLINE_FACTOR * total:g}s per request with its retries)",
            provider=self.name,
            hint="a provider that answers this slowly is not usable; raise http.total_timeout "
            "only if it is expected",
        )

    def _answer(self, response: httpx.Response, parse: Parser[T]) -> _Attempt[T]:
        """A 2xx: complete JSON object, parsed into the adapter's shape."""
        try:
            data = response.json()
        except ValueError:
            return _Attempt(
                MalformedResponseError(
                    "response body is not complete JSON",
                    provider=self.name,
                    status=response.status_code,
                    body=short_body(response),
                ),
                cut_body=True,
            )
        if not isinstance(data, dict):
            return _Attempt(
                MalformedResponseError(
                    "response body is not a JSON object",
                    provider=self.name,
                    status=response.status_code,
                    body=short_body(response),
                )
            )
        try:
            return _Attempt(parse(data))
        except MalformedResponseError as exc:
            return _Attempt(exc)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            # A hostile or buggy server's odd shape must not escape as a foreign error.
            return _Attempt(
                MalformedResponseError(
                    f"unexpected response shape ({type(exc).__name__})",
                    provider=self.name,
                    status=response.status_code,
                    body=short_body(response),
                )
            )


def error_json(response: httpx.Response) -> dict[str, Any]:
    """The error body as a dict, or empty when it is not JSON."""
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
