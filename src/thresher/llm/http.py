"""The HTTP side of a provider: client, auth headers, timeouts, retries.

A provider object owns the httpx client, base URL and key; wire adapters own
translation. Retries use jittered exponential backoff for rate limits, 5xx and
529, honour ``Retry-After``, ``retry-after-ms`` and Gemini's ``RetryInfo``, and
give up at once on quota exhaustion and other 4xx. A server asking for a wait
longer than ``max_delay`` is not waited for: the typed error says how long.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import SecretStr

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


class HttpProvider:
    """An HTTP endpoint with a key; used by one or more wire adapters."""

    def __init__(
        self,
        name: str,
        base_url: str,
        api_key: SecretStr | None,
        *,
        auth_headers: Callable[[SecretStr | None], dict[str, str]],
        retry: RetryPolicy | None = None,
        sleep: Sleep | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        seed: int | None = None,
    ) -> None:
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self._auth_headers = auth_headers
        self.retry = retry or RetryPolicy()
        self._sleep: Sleep = sleep or asyncio.sleep
        self._rng = random.Random(seed)  # noqa: S311 - jitter, not cryptography
        # Redirects are not followed: a key must never be re-sent to another host.
        self._client = httpx.AsyncClient(follow_redirects=False, transport=transport)
        self.attempts = 0

    async def aclose(self) -> None:
        await self._client.aclose()

    async def post_json(
        self,
        path: str,
        payload: Mapping[str, Any],
        settings: ModelSettings,
        *,
        classify: Classifier,
        delay_hint: DelayHint = retry_after_seconds,
    ) -> dict[str, Any]:
        url = f"{self.base_url}/{path.lstrip('/')}"
        headers = {"content-type": "application/json", **self._auth_headers(self.api_key)}
        timeout = httpx.Timeout(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.read_timeout,
            pool=settings.connect_timeout,
        )
        attempt = 0
        while True:
            attempt += 1
            self.attempts += 1
            outcome, hint = await self._attempt(
                url, payload, headers, timeout, classify, delay_hint
            )
            if isinstance(outcome, dict):
                return outcome
            error = outcome
            if not error.retryable or attempt >= self.retry.max_attempts:
                raise error
            delay = hint if hint is not None else self.retry.backoff(attempt, self._rng)
            if delay > self.retry.max_delay:
                raise type(error)(
                    f"asked to wait {delay:.0f}s before retrying, more than the "
                    f"{self.retry.max_delay:.0f}s allowed",
                    provider=self.name,
                    status=error.status,
                    body=error.body,
                    hint="lower the request rate or raise the provider's limits",
                )
            await self._sleep(delay)

    async def _attempt(
        self,
        url: str,
        payload: Mapping[str, Any],
        headers: dict[str, str],
        timeout: httpx.Timeout,
        classify: Classifier,
        delay_hint: DelayHint,
    ) -> tuple[dict[str, Any] | ProviderError, float | None]:
        try:
            response = await self._client.post(url, json=payload, headers=headers, timeout=timeout)
        except httpx.TimeoutException as exc:
            return ProviderTimeoutError(
                f"request timed out ({type(exc).__name__})", provider=self.name
            ), None
        except httpx.TransportError as exc:
            return ProviderConnectionError(
                f"cannot reach {self.base_url}: {type(exc).__name__}", provider=self.name
            ), None
        if response.is_success:
            try:
                data = response.json()
            except ValueError:
                return MalformedResponseError(
                    "response body is not JSON",
                    provider=self.name,
                    status=response.status_code,
                    body=short_body(response),
                ), None
            if not isinstance(data, dict):
                return MalformedResponseError(
                    "response body is not a JSON object",
                    provider=self.name,
                    status=response.status_code,
                    body=short_body(response),
                ), None
            return data, None
        if response.is_redirect:
            return ProviderConnectionError(
                f"refused redirect to {response.headers.get('location', '?')}",
                provider=self.name,
                status=response.status_code,
            ), None
        return classify(response), delay_hint(response)


def error_json(response: httpx.Response) -> dict[str, Any]:
    """The error body as a dict, or empty when it is not JSON."""
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
