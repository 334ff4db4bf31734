"""When to wait and retry a GitHub call, and how a failure becomes a typed error.

GitHub signals a *primary* rate limit with 403/429 and ``x-ratelimit-remaining: 0``
(wait until ``x-ratelimit-reset``), a *secondary* one with ``retry-after`` or a message
(wait that long, at least a minute when no time is given), and transient trouble with
5xx. We wait only while the wait stays within the policy's bound: a nightly job that
would otherwise sleep for most of an hour stops instead with :class:`GitHubRateLimited`,
keeps its state, and resumes on the next run. ``sleep`` is injected so tests never wait.

PyGithub's own retry (urllib3) is switched off: it sleeps with ``time.sleep`` and cannot
stop cleanly, so every request goes through :func:`call` instead.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from thresher.github.errors import (
    TOKEN_VARIABLES,
    GitHubAuthError,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
    GitHubRateLimited,
    GitHubValidationError,
)

T = TypeVar("T")

SECONDARY_DEFAULT_WAIT_S = 60.0
"""GitHub's advice when a secondary limit names no time: wait at least a minute."""

_RATE_HINT = "re-run later: state is saved and the run continues where it stopped"


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try. ``max_attempts`` counts the first try; ``backoff_s`` doubles per
    retry of a 5xx or lost connection; a rate-limit wait longer than ``max_wait_s`` stops
    the run; ``write_interval_s`` spaces writes (GitHub asks for a second between them)."""

    max_attempts: int = 4
    backoff_s: float = 1.0
    max_wait_s: float = 60.0
    write_interval_s: float = 1.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("RetryPolicy.max_attempts must be at least 1")
        if self.backoff_s < 0 or self.max_wait_s < 0 or self.write_interval_s < 0:
            raise ValueError("RetryPolicy waits must not be negative")


@dataclass(frozen=True)
class Failure:
    """One failed attempt: ``status`` None means the connection failed."""

    status: int | None
    headers: Mapping[str, str]
    data: Any

    @property
    def message(self) -> str:
        message = self.data.get("message") if isinstance(self.data, Mapping) else None
        text = str(message) if message else ""
        return "".join(ch for ch in text if ch.isprintable())[:300]

    def header(self, name: str) -> str | None:
        for key, value in self.headers.items():
            if key.lower() == name:
                return str(value)
        return None


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def plan(failure: Failure, attempt: int, policy: RetryPolicy, *, now: float) -> float | None:
    """Seconds to wait before the next attempt, or None if this failure is final.

    Raises :class:`GitHubRateLimited` when GitHub asks for a wait beyond the bound or
    the attempts are used up while rate limited.
    """
    status = failure.status
    retry_after = _number(failure.header("retry-after"))
    remaining = failure.header("x-ratelimit-remaining")
    reset = _number(failure.header("x-ratelimit-reset"))
    lowered = failure.message.lower()
    secondary = "secondary rate limit" in lowered
    primary = (remaining is not None and remaining.strip() == "0") or lowered.startswith(
        "api rate limit exceeded"
    )
    limited = status in (403, 429) and (retry_after is not None or primary or secondary)
    if status == 429:
        limited = True
    if limited:
        if retry_after is not None:
            wait = max(0.0, retry_after)
        elif primary and reset is not None:
            wait = max(0.0, reset - now) + 1.0  # the reset second is not exact
        else:
            wait = max(SECONDARY_DEFAULT_WAIT_S, policy.backoff_s * 2.0 ** (attempt - 1))
        reset_at = datetime.fromtimestamp(
            reset if (primary and reset is not None and retry_after is None) else now + wait,
            tz=UTC,
        )
        kind = "primary" if primary else "secondary"
        if wait > policy.max_wait_s:
            raise GitHubRateLimited(
                f"GitHub {kind} rate limit: it asks to wait {wait:.0f}s, more than the "
                f"{policy.max_wait_s:.0f}s allowed; stopping until "
                f"{reset_at:%Y-%m-%d %H:%M:%S} UTC",
                reset_at=reset_at,
                hint=_RATE_HINT,
            )
        if attempt >= policy.max_attempts:
            raise GitHubRateLimited(
                f"GitHub {kind} rate limit still in force after {attempt} attempts",
                reset_at=reset_at,
                hint=_RATE_HINT,
            )
        return wait
    transient = status is None or status >= 500
    if transient and attempt < policy.max_attempts:
        return policy.backoff_s * 2.0 ** (attempt - 1)
    return None


def to_error(failure: Failure, *, what: str, permission: str, api_url: str) -> GitHubError:
    """The typed error for a final failure. Built from the status, GitHub's ``message``
    and the route only, so it can never carry a credential."""
    status = failure.status
    said = f": {failure.message}" if failure.message else ""
    if status is None:
        return GitHubError(
            f"cannot reach the GitHub API at {api_url} ({what}): the connection failed "
            "or the answer was cut short",
            hint="check --api-url and the network; the call was retried",
        )
    if status == 401:
        return GitHubAuthError(
            f"GitHub refused the credentials (401{said}) for {what}",
            hint=f"set {TOKEN_VARIABLES} to a valid token, or check the GitHub App id and key",
        )
    if status == 403:
        return GitHubPermissionError(f"GitHub denied {what} (403{said})", hint=permission)
    if status == 404:
        return GitHubNotFound(
            f"GitHub found nothing at {what} (404{said})",
            hint="check the name, that the token can see it, and that secret scanning "
            "is enabled there",
        )
    if status == 422:
        errors = failure.data.get("errors") if isinstance(failure.data, Mapping) else None
        first = errors[0] if isinstance(errors, list) and errors else None
        field = str(first.get("field", "")) if isinstance(first, Mapping) else ""
        detail = str(first.get("message") or first.get("code") or "") if first else ""
        return GitHubValidationError(
            f"GitHub rejected {what} (422{said}){': ' + field if field else ''}"
            f"{' ' + detail if detail else ''}",
            field=field or "body",
        )
    return GitHubError(f"GitHub API error {status} for {what}{said}")


def call(
    fn: Callable[[], T],
    *,
    what: str,
    permission: str,
    api_url: str,
    policy: RetryPolicy,
    sleep: Callable[[float], None],
    clock: Callable[[], float] = time.time,
) -> T:
    """Run one PyGithub request with the policy's retries; translate what is final.

    ``fn`` must be safe to repeat (GETs, and PATCHes that set an absolute state).
    """
    from github.GithubException import GithubException
    from requests.exceptions import RequestException

    attempt = 0
    while True:
        attempt += 1
        try:
            return fn()
        except GithubException as exc:
            failure = Failure(exc.status, dict(exc.headers or {}), exc.data)
        except (RequestException, json.JSONDecodeError):
            # refused, reset, timed out, or a body cut short: all worth another try
            failure = Failure(None, {}, None)
        wait = plan(failure, attempt, policy, now=clock())
        if wait is None:
            raise to_error(failure, what=what, permission=permission, api_url=api_url)
        sleep(wait)
