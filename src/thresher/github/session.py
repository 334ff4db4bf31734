"""The HTTP plumbing under :class:`~thresher.github.client.GitHubClient`: a pool of
PyGithub instances, one retried request at a time, ``Link``-header paging, and the rule
that the credential only ever goes to the configured API.

PyGithub's ``Requester`` is the HTTP stack (authentication, user agent, connections,
error objects). Pages are followed here, one request per page, because each request
must go through the retry policy and must not hold a connection between pages: a
PyGithub ``PaginatedList`` fetches inside its iterator, where a rate limit on page 7
could be neither waited out nor retried. A PyGithub connection is not safe to share
between threads, so each request borrows one instance from the pool (whose size bounds
API concurrency) and returns it before any retry wait.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from thresher.errors import UsageError
from thresher.github import parse, retry
from thresher.github.errors import READ_PERMISSION, GitHubError
from thresher.github.retry import RetryPolicy

if TYPE_CHECKING:
    from github.Auth import Auth

    from github import Github

T = TypeVar("T")


class Session:
    """Pooled PyGithub instances behind the retry policy."""

    def __init__(
        self,
        *,
        api_url: str,
        auth: Auth,
        policy: RetryPolicy,
        sleep: Callable[[float], None],
        max_concurrency: int,
        per_page: int,
        timeout_s: int,
    ) -> None:
        from github import Github

        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.api_url = check_api_url(api_url)
        self.policy = policy
        self.per_page = per_page
        self._sleep = sleep
        drop_pygithub_body_logs()
        self._pool: queue.SimpleQueue[Github] = queue.SimpleQueue()
        self._all: list[Github] = []
        for _ in range(max_concurrency):
            gh = Github(
                base_url=self.api_url,
                auth=auth,
                retry=None,
                per_page=per_page,
                timeout=timeout_s,
                seconds_between_requests=None,
                seconds_between_writes=None,
                user_agent="thresher",
            )
            self._all.append(gh)
            self._pool.put(gh)
        self._write_lock = threading.Lock()
        self._last_write = float("-inf")

    def close(self) -> None:
        for gh in self._all:
            gh.close()

    def call(self, fn: Callable[[], T], *, what: str, permission: str = READ_PERMISSION) -> T:
        return retry.call(
            fn,
            what=what,
            permission=permission,
            api_url=self.api_url,
            policy=self.policy,
            sleep=self._sleep,
        )

    def request(
        self,
        verb: str,
        url: str,
        *,
        what: str,
        params: dict[str, Any] | None = None,
        body: Any = None,
        permission: str = READ_PERMISSION,
    ) -> tuple[dict[str, Any], Any]:
        """``(headers, json)`` of one request, retried per the policy."""
        self.check_url(url)

        def attempt() -> tuple[dict[str, Any], Any]:
            gh = self._pool.get()
            try:
                return gh.requester.requestJsonAndCheck(
                    verb, url, parameters=dict(params or {}), input=body
                )
            finally:
                self._pool.put(gh)

        return self.call(attempt, what=what, permission=permission)

    def pages(self, url: str, params: dict[str, Any], *, what: str) -> Iterator[Any]:
        """Items of a paginated listing, following ``Link: rel="next"`` page by page."""
        next_url: str | None = url
        next_params: dict[str, Any] = {**params, "per_page": self.per_page}
        seen: set[str] = set()
        while next_url is not None:
            headers, data = self.request("GET", next_url, params=next_params, what=what)
            if not isinstance(data, list):
                raise GitHubError(f"unexpected response from GitHub for {what}: not a list")
            yield from data
            next_url = parse.link_header(headers.get("link")).get("next")
            next_params = {}
            if next_url is not None:
                if next_url in seen:
                    raise GitHubError(f"GitHub's pagination for {what} loops; stopped")
                seen.add(next_url)

    def space_write(self) -> None:
        """Keep writes ``write_interval_s`` apart, as GitHub asks of mutating calls."""
        with self._write_lock:
            wait = self._last_write + self.policy.write_interval_s - time.monotonic()
            if wait > 0:
                self._sleep(wait)
            self._last_write = time.monotonic()

    def check_url(self, url: str) -> None:
        """Only ever send the credential to the configured API: URLs that come back in
        payloads (next pages, alert and location URLs) must point inside it."""
        if url.startswith("/") and not url.startswith("//"):
            return
        if url == self.api_url or url.startswith(self.api_url + "/"):
            return
        raise GitHubError(
            f"refusing to send credentials to {urlsplit(url).netloc or url!r}: "
            f"it is outside --api-url {self.api_url}",
            hint="GitHub returned a URL on another host; check --api-url",
        )


class _NoBodies(logging.Filter):
    """PyGithub's requester logs every response body at DEBUG, and an alert's body holds
    the raw secret: those records are dropped so no log level can leak a value."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.DEBUG


def drop_pygithub_body_logs() -> None:
    logger = logging.getLogger("github.Requester")
    if not any(isinstance(f, _NoBodies) for f in logger.filters):
        logger.addFilter(_NoBodies())


def check_api_url(api_url: str) -> str:
    """``api_url`` without a trailing slash; anything but an http(s) URL names the flag."""
    parts = urlsplit(api_url.strip())
    if parts.scheme not in {"http", "https"} or not parts.hostname or parts.query:
        raise UsageError(
            f"--api-url: {api_url!r} is not an http(s) URL",
            hint="https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server",
        )
    return api_url.strip().rstrip("/")
