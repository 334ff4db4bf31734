"""OsvClient against the loopback fake OSV API: batching, pages, details, cache, faults."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deps.osv.advisories import JINJA2, LODASH, X_TEXT, advisory
from tests.fakes.base import CapturedRequest, Reply
from tests.fakes.osv import OsvFake, OsvWorld
from thresher.deps.model import Ecosystem
from thresher.deps.osv import OsvCache, OsvClient, OsvError, PackageVersion

JINJA = PackageVersion(Ecosystem.PYPI, "jinja2", "2.11.2", "pkg:pypi/jinja2@2.11.2")
LODASH_OLD = PackageVersion(Ecosystem.NPM, "lodash", "4.17.20", "pkg:npm/lodash@4.17.20")
CLEAN = PackageVersion(Ecosystem.PYPI, "requests", "2.32.3")


def world() -> OsvWorld:
    w = OsvWorld()
    for record in (JINJA2, LODASH, X_TEXT):
        w.advisory(record)
    w.match("PyPI", "jinja2", "2.11.2", JINJA2["id"], purl=JINJA.purl)
    w.match("npm", "lodash", "4.17.20", LODASH["id"], purl=LODASH_OLD.purl)
    return w


@pytest.fixture
def server() -> Iterator[OsvFake]:
    with OsvFake(world()) as fake:
        yield fake


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(server: OsvFake, **kwargs: object) -> OsvClient:
    kwargs.setdefault("sleep", Sleeps())
    return OsvClient(server.base_url, **kwargs)  # type: ignore[arg-type]


def test_lookup_returns_each_packages_vulnerabilities_with_details(server: OsvFake) -> None:
    with client(server) as osv:
        found = osv.lookup([JINJA, LODASH_OLD, CLEAN])
    assert [v.id for v in found[JINJA]] == ["GHSA-g3rq-g295-4j3m"]
    assert found[JINJA][0].aliases == ("CVE-2020-28493", "PYSEC-2021-66")
    assert found[JINJA][0].cvss is not None and found[JINJA][0].cvss.base_score == 5.3
    assert [v.id for v in found[LODASH_OLD]] == ["GHSA-35jh-r3h4-6jhm"]
    assert found[CLEAN] == ()
    sent = server.requests[0].json()["queries"]
    assert sent[0] == {"package": {"name": "jinja2", "ecosystem": "PyPI"}, "version": "2.11.2"}
    assert server.count(r"^/v1/querybatch$") == 1
    assert server.count(r"^/v1/vulns/") == 2


def test_purl_queries(server: OsvFake) -> None:
    with client(server, use_purl=True) as osv:
        found = osv.lookup([JINJA])
    assert server.requests[0].json()["queries"] == [{"package": {"purl": JINJA.purl}}]
    assert [v.id for v in found[JINJA]] == ["GHSA-g3rq-g295-4j3m"]


def test_next_page_token_is_followed_for_that_query_only(server: OsvFake) -> None:
    server.world.page_size = 1
    extra = [advisory(f"PYSEC-2099-{n}", "PyPI", "jinja2", [{"introduced": "0"}]) for n in (1, 2)]
    for record in extra:
        server.world.advisory(record)
    server.world.match("PyPI", "jinja2", "2.11.2", *(r["id"] for r in extra))
    with client(server) as osv:
        refs = osv.query([JINJA, LODASH_OLD])
        assert osv.stats.querybatch_requests == 3
    assert [r.id for r in refs[JINJA]] == ["GHSA-g3rq-g295-4j3m", "PYSEC-2099-1", "PYSEC-2099-2"]
    assert [r.id for r in refs[LODASH_OLD]] == ["GHSA-35jh-r3h4-6jhm"]
    batches = [r.json()["queries"] for r in server.requests if r.route == "/v1/querybatch"]
    assert [len(b) for b in batches] == [2, 1, 1]  # only the query with a token again
    assert batches[1][0]["package"]["name"] == "jinja2" and "page_token" in batches[1][0]


def test_two_thousand_packages_take_two_querybatch_round_trips(server: OsvFake) -> None:
    packages = [PackageVersion(Ecosystem.NPM, f"pkg-{n}", "1.0.0") for n in range(1999)]
    packages.append(LODASH_OLD)
    with client(server) as osv:
        found = osv.lookup(packages)
    batches = [r.json()["queries"] for r in server.requests if r.route == "/v1/querybatch"]
    assert [len(b) for b in batches] == [1000, 1000]
    assert [v.id for v in found[LODASH_OLD]] == ["GHSA-35jh-r3h4-6jhm"]
    assert sum(len(v) for v in found.values()) == 1


def test_details_are_cached_by_modified(server: OsvFake, tmp_path: Path) -> None:
    path = tmp_path / ".thresher" / "osv-cache.db"
    with OsvCache(path) as cache, client(server, cache=cache) as osv:
        osv.lookup([JINJA, LODASH_OLD])
        assert osv.stats.vuln_requests == 2
    with OsvCache(path) as cache, client(server, cache=cache) as osv:
        again = osv.lookup([JINJA, LODASH_OLD])
        assert (osv.stats.vuln_requests, osv.stats.cache_hits) == (0, 2)
    assert again[JINJA][0].aliases == ("CVE-2020-28493", "PYSEC-2021-66")
    revised = {**JINJA2, "modified": "2024-06-01T00:00:00Z", "summary": "revised"}
    server.world.advisory(revised)
    with OsvCache(path) as cache, client(server, cache=cache) as osv:
        fresh = osv.lookup([JINJA])
        assert (osv.stats.vuln_requests, osv.stats.cache_hits) == (1, 0)
    assert fresh[JINJA][0].summary == "revised"


def test_details_are_fetched_concurrently_but_bounded(server: OsvFake) -> None:
    ids = [f"GHSA-test-{n:04d}" for n in range(12)]
    for vuln_id in ids:
        server.world.advisory(advisory(vuln_id, "PyPI", "jinja2", [{"introduced": "0"}]))
    server.world.match("PyPI", "jinja2", "2.11.2", *ids)
    inflight, peak, lock = [0], [0], threading.Lock()
    respond = server.responder
    assert respond is not None

    def slow(request: CapturedRequest, index: int) -> Reply:
        with lock:
            inflight[0] += 1
            peak[0] = max(peak[0], inflight[0])
        time.sleep(0.05)
        with lock:
            inflight[0] -= 1
        return respond(request, index)

    server.responder = slow
    with client(server, concurrency=3) as osv:
        found = osv.lookup([JINJA])
    assert len(found[JINJA]) == 13
    assert 1 < peak[0] <= 3


def test_429_is_retried_after_retry_after(server: OsvFake) -> None:
    busy = server.error_reply(429, "Too many requests").with_headers({"retry-after": "2"})
    server.fault(r"^/v1/querybatch$", busy, times=2)
    sleeps = Sleeps()
    with client(server, sleep=sleeps) as osv:
        found = osv.lookup([JINJA])
    assert sleeps == [2.0, 2.0]
    assert [v.id for v in found[JINJA]] == ["GHSA-g3rq-g295-4j3m"]


def test_5xx_is_retried_with_backoff_then_gives_a_clear_error(server: OsvFake) -> None:
    server.fault(r"^/v1/vulns/", server.error_reply(503, "unavailable"), times=1)
    sleeps = Sleeps()
    with client(server, sleep=sleeps, backoff=0.25) as osv:
        assert [v.id for v in osv.lookup([JINJA])[JINJA]] == ["GHSA-g3rq-g295-4j3m"]
    assert sleeps == [0.25]
    server.fault(r"^/v1/querybatch$", server.error_reply(502, "bad gateway"), times=10)
    with client(server, max_retries=2) as osv, pytest.raises(OsvError, match="502 to POST"):
        osv.lookup([JINJA])


def test_a_refusal_is_not_retried(server: OsvFake) -> None:
    server.fault(r"^/v1/querybatch$", server.error_reply(400, "Invalid query"))
    sleeps = Sleeps()
    with client(server, sleep=sleeps) as osv, pytest.raises(OsvError, match="400 Invalid query"):
        osv.lookup([JINJA])
    assert sleeps == []


@pytest.mark.parametrize(
    ("route", "reply", "message"),
    [
        (r"^/v1/querybatch$", Reply.raw(200, b'{"results": [', "application/json"), "not JSON"),
        (r"^/v1/querybatch$", Reply.json_(200, {"results": []}), "not one result per query"),
        (r"^/v1/querybatch$", Reply.json_(200, {"results": [{"vulns": [{}]}]}), "has no id"),
        (r"^/v1/vulns/", Reply.json_(200, {"id": "GHSA-g3rq-g295-4j3m"}), "'modified'"),
        (r"^/v1/vulns/", Reply.json_(200, {**JINJA2, "id": "OTHER-1"}), "'OTHER-1'"),
    ],
)
def test_a_malformed_response_is_a_clear_error(
    server: OsvFake, route: str, reply: Reply, message: str
) -> None:
    server.fault(route, reply)
    with client(server) as osv, pytest.raises(OsvError, match=message):
        osv.lookup([JINJA])


def test_an_unreachable_server_is_a_clear_error() -> None:
    with OsvFake() as fake:
        url = fake.base_url
    osv = OsvClient(url, sleep=Sleeps(), max_retries=1, timeout=2.0)
    with osv, pytest.raises(OsvError, match="unreachable") as caught:
        osv.lookup([JINJA])
    assert caught.value.hint is not None and "--osv-offline" in caught.value.hint
