"""The OSV API client: batched queries with pagination, concurrent cached details.

Round trips are the cost that matters: ``POST /v1/querybatch`` takes up to 1,000
queries, so 2,000 packages are two requests. A result with a ``next_page_token`` has
more matches; only those queries are asked again, with their tokens, packed into the
next batches. ``/v1/vulns/{id}`` then fetches each advisory once, at most
``concurrency`` at a time, skipped when the cache holds it at the ``modified`` time
querybatch reported.

Retries: 429 and 5xx answers and transport failures are retried with exponential
backoff, honouring ``Retry-After`` (seconds or an HTTP date, capped). Anything else,
or a body that is not the documented shape, is an ``OsvError`` naming the request.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote

import httpx

from thresher.deps.model import Vulnerability
from thresher.deps.osv.cache import OsvCache
from thresher.deps.osv.records import OsvError, PackageVersion, VulnRef, parse_record

DEFAULT_URL = "https://api.osv.dev"
BATCH_SIZE = 1000
_MAX_RETRY_WAIT = 60.0


@dataclass
class OsvStats:
    """What a lookup cost: the numbers a user (and a test) checks."""

    querybatch_requests: int = 0
    vuln_requests: int = 0
    cache_hits: int = 0
    retries: int = 0


class OsvClient:
    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        cache: OsvCache | None = None,
        concurrency: int = 8,
        use_purl: bool = False,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if concurrency < 1:
            raise OsvError(f"OSV concurrency must be at least 1, not {concurrency}")
        self.base_url = base_url.rstrip("/")
        self.cache = cache
        self.concurrency = concurrency
        self.use_purl = use_purl
        self.max_retries = max_retries
        self.backoff = backoff
        self.stats = OsvStats()
        self._sleep = sleep
        self._http = httpx.Client(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers={"user-agent": "thresher-osv"},
        )

    # -- the public questions ----------------------------------------------------------

    def lookup(
        self, packages: Iterable[PackageVersion]
    ) -> dict[PackageVersion, tuple[Vulnerability, ...]]:
        """Every package's vulnerabilities (an empty tuple for none), details included."""
        refs = self.query(packages)
        details = self.vulnerabilities(ref for found in refs.values() for ref in found)
        return {package: tuple(details[ref.id] for ref in found) for package, found in refs.items()}

    def query(
        self, packages: Iterable[PackageVersion]
    ) -> dict[PackageVersion, tuple[VulnRef, ...]]:
        """``querybatch`` for each distinct package, following every page token."""
        unique = list(dict.fromkeys(packages))
        found: dict[PackageVersion, dict[str, VulnRef]] = {p: {} for p in unique}
        pending: deque[tuple[PackageVersion, str | None]] = deque((p, None) for p in unique)
        while pending:
            batch = [pending.popleft() for _ in range(min(BATCH_SIZE, len(pending)))]
            body = {"queries": [self._query(package, token) for package, token in batch]}
            self.stats.querybatch_requests += 1
            data = self._request("POST", "/v1/querybatch", json=body)
            results = data.get("results") if isinstance(data, dict) else None
            if not isinstance(results, list) or len(results) != len(batch):
                raise OsvError(
                    f"OSV {self.base_url}/v1/querybatch answered {len(batch)} queries with "
                    "a body that is not one result per query"
                )
            for (package, _token), result in zip(batch, results, strict=True):
                for ref in _refs(result, self.base_url):
                    found[package][ref.id] = ref
                token = result.get("next_page_token")
                if token:
                    pending.append((package, str(token)))
        return {package: tuple(refs.values()) for package, refs in found.items()}

    def vulnerabilities(self, refs: Iterable[VulnRef]) -> dict[str, Vulnerability]:
        """Details by id: from the cache at the same ``modified``, else fetched."""
        wanted = {ref.id: ref for ref in refs}
        details: dict[str, Vulnerability] = {}
        missing: list[str] = []
        for ref in wanted.values():
            cached = self.cache.get(ref.id, ref.modified) if self.cache is not None else None
            if cached is not None:
                self.stats.cache_hits += 1
                details[ref.id] = cached
            else:
                missing.append(ref.id)
        if missing:
            self.stats.vuln_requests += len(missing)
            with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                fetched = list(pool.map(self._fetch, missing))
            for vulnerability in fetched:
                details[vulnerability.id] = vulnerability
                if self.cache is not None:
                    self.cache.put(vulnerability)
        return {vuln_id: details[vuln_id] for vuln_id in wanted if vuln_id in details}

    # -- plumbing ----------------------------------------------------------------------

    def _query(self, package: PackageVersion, token: str | None) -> dict[str, Any]:
        query: dict[str, Any]
        if self.use_purl and package.purl:
            purl = package.purl if "@" in package.purl else f"{package.purl}@{package.version}"
            query = {"package": {"purl": purl}}
        else:
            query = {
                "package": {"name": package.name, "ecosystem": package.ecosystem.value},
                "version": package.version,
            }
        if token is not None:
            query["page_token"] = token
        return query

    def _fetch(self, vuln_id: str) -> Vulnerability:
        path = f"/v1/vulns/{quote(vuln_id, safe='')}"
        record = parse_record(self._request("GET", path), origin=f"{self.base_url}{path}")
        if record.id != vuln_id:
            raise OsvError(f"OSV {self.base_url}{path} answered with record {record.id!r}")
        return record

    def _request(self, method: str, path: str, *, json: Any = None) -> Any:
        where = f"{method} {self.base_url}{path}"
        for attempt in range(self.max_retries + 1):
            last = attempt == self.max_retries
            try:
                response = self._http.request(method, path, json=json)
            except httpx.HTTPError as exc:
                if last:
                    raise OsvError(
                        f"OSV is unreachable ({where}): {exc}",
                        hint="check the network or --osv-url, or use --osv-offline DIR",
                    ) from exc
                self._wait(attempt, None)
                continue
            if response.status_code == 429 or response.status_code >= 500:
                if last:
                    raise OsvError(
                        f"OSV answered {response.status_code} to {where} "
                        f"{self.max_retries + 1} times",
                        hint="retry later, or use --osv-offline DIR",
                    )
                self._wait(attempt, response.headers.get("retry-after"))
                continue
            if response.status_code != 200:
                raise OsvError(f"OSV refused {where}: {response.status_code} {_message(response)}")
            try:
                return response.json()
            except ValueError as exc:
                raise OsvError(f"OSV answered {where} with a body that is not JSON") from exc
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _wait(self, attempt: int, retry_after: str | None) -> None:
        self.stats.retries += 1
        delay = self.backoff * 2**attempt
        if retry_after:
            delay = _retry_after(retry_after, default=delay)
        self._sleep(min(delay, _MAX_RETRY_WAIT))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _refs(result: Any, base_url: str) -> list[VulnRef]:
    if not isinstance(result, dict):
        raise OsvError(f"OSV {base_url}/v1/querybatch: a result is not an object")
    vulns = result.get("vulns") or []
    if not isinstance(vulns, list):
        raise OsvError(f"OSV {base_url}/v1/querybatch: 'vulns' is not a list")
    refs = []
    for vuln in vulns:
        if not isinstance(vuln, dict) or not isinstance(vuln.get("id"), str):
            raise OsvError(f"OSV {base_url}/v1/querybatch: a match has no id")
        refs.append(VulnRef(vuln["id"], str(vuln.get("modified", ""))))
    return refs


def _retry_after(value: str, *, default: float) -> float:
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])[:200]
    return response.text[:200]
