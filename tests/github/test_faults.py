"""Rate limits, server errors and refused credentials: waited out within the policy's
bound, retried, or turned into a typed error that never holds the token."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from tests.fakes.base import CapturedRequest, Reply
from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld
from tests.github.conftest import ClientFactory, Sleeps
from tests.tokens import github_token, random_secret
from thresher.errors import ExitCode
from thresher.github.client import GitHubClient
from thresher.github.errors import GitHubAuthError, GitHubError, GitHubRateLimited
from thresher.github.models import AlertFilters
from thresher.github.retry import RetryPolicy

ALERTS = r"^/repos/octo/app/secret-scanning/alerts$"


@pytest.fixture(autouse=True)
def _repo(world: GitHubWorld) -> None:
    repo = world.add_repo("octo/app")
    for i in range(5):
        repo.add_alert(secret=github_token(seed=100 + i))


def _numbers(client: GitHubClient) -> list[int]:
    return sorted(a.number for a in client.repo_alerts("octo/app", AlertFilters()))


def test_primary_limit_within_the_bound_is_waited_out(
    server: GitHubFake, client: GitHubClient, sleeps: Sleeps
) -> None:
    server.fault(ALERTS, "primary", reset_in=5)
    assert _numbers(client) == [1, 2, 3, 4, 5]
    assert len(sleeps) == 1 and 3.0 <= sleeps[0] <= 7.0  # until the reset, plus a second
    assert len(server.requests_to(ALERTS)) == 2


def test_primary_limit_beyond_the_bound_stops_with_the_reset_time(
    server: GitHubFake, make_client: ClientFactory, sleeps: Sleeps
) -> None:
    server.fault(ALERTS, "primary", reset_in=1800)
    client = make_client(policy=RetryPolicy(max_wait_s=60))
    with pytest.raises(GitHubRateLimited) as caught:
        _numbers(client)
    assert sleeps == []
    reset_at = caught.value.reset_at
    assert reset_at is not None
    assert 1700 < (reset_at - datetime.now(UTC)).total_seconds() <= 1800
    assert "primary rate limit" in caught.value.message
    assert caught.value.hint is not None and "state is saved" in caught.value.hint
    assert len(server.requests_to(ALERTS)) == 1


def test_secondary_limit_waits_retry_after(
    server: GitHubFake, client: GitHubClient, sleeps: Sleeps
) -> None:
    server.fault(ALERTS, "secondary", retry_after=7, times=2)
    assert _numbers(client) == [1, 2, 3, 4, 5]
    assert sleeps == [7.0, 7.0]


def test_secondary_limit_without_a_time_waits_a_minute(
    server: GitHubFake, client: GitHubClient, sleeps: Sleeps
) -> None:
    server.fault(ALERTS, "secondary-no-wait")
    assert _numbers(client) == [1, 2, 3, 4, 5]
    assert sleeps == [60.0]


def test_secondary_limit_beyond_the_bound_stops(
    server: GitHubFake, make_client: ClientFactory, sleeps: Sleeps
) -> None:
    server.fault(ALERTS, "secondary", retry_after=120)
    with pytest.raises(GitHubRateLimited) as caught:
        _numbers(make_client(policy=RetryPolicy(max_wait_s=30)))
    assert caught.value.reset_at is not None and sleeps == []
    assert "secondary" in caught.value.message


def test_a_rate_limit_on_a_later_page_resumes_that_page(
    server: GitHubFake, make_client: ClientFactory, sleeps: Sleeps
) -> None:
    client = make_client(per_page=2)
    listing = client.repo_alerts("octo/app", AlertFilters())
    first = [next(listing).number, next(listing).number]
    server.fault(ALERTS, "secondary", retry_after=3)
    rest = [a.number for a in listing]
    assert sorted(first + rest) == [1, 2, 3, 4, 5]  # nothing twice, nothing lost
    assert sleeps == [3.0]
    pages = [r.query.get("page", ["1"])[0] for r in server.requests_to(ALERTS)]
    assert pages == ["1", "2", "2", "3"]


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_retried_with_backoff(
    server: GitHubFake, client: GitHubClient, sleeps: Sleeps, status: int
) -> None:
    server.fault(ALERTS, status, times=2)  # type: ignore[arg-type]
    assert _numbers(client) == [1, 2, 3, 4, 5]
    assert sleeps == [1.0, 2.0]


def test_server_errors_beyond_max_attempts_raise(
    server: GitHubFake, make_client: ClientFactory, sleeps: Sleeps
) -> None:
    server.fault(ALERTS, 502, times=10)
    with pytest.raises(GitHubError) as caught:
        _numbers(make_client(policy=RetryPolicy(max_attempts=3, backoff_s=0.5)))
    assert "502" in caught.value.message
    assert sleeps == [0.5, 1.0]
    assert len(server.requests_to(ALERTS)) == 3


def test_a_refused_token_is_an_auth_error_that_never_shows_it(
    server: GitHubFake, sleeps: Sleeps
) -> None:
    stranger = "ghp_" + random_secret(36, seed=97)
    client = GitHubClient.from_environ(
        {"GITHUB_TOKEN": stranger}, api_url=server.base_url, sleep=sleeps
    )
    with pytest.raises(GitHubAuthError) as caught:
        _numbers(client)
    error = caught.value
    assert "401" in error.message and "Bad credentials" in error.message
    assert error.exit_code is ExitCode.USAGE
    shown = f"{error} {error.hint} {error!r} {error.__cause__!r} {error.__context__!r} {client!r}"
    assert stranger not in shown
    assert server.requests[0].header("authorization") == f"token {stranger}"
    assert sleeps == []
    client.close()


def test_no_token_names_the_variables() -> None:
    with pytest.raises(GitHubAuthError, match="GITHUB_TOKEN or GH_TOKEN"):
        GitHubClient.from_environ({"GITHUB_TOKEN": "  "}, api_url="https://api.github.com")


def test_gh_token_is_the_fallback(server: GitHubFake, token: str, sleeps: Sleeps) -> None:
    client = GitHubClient.from_environ({"GH_TOKEN": token}, api_url=server.base_url, sleep=sleeps)
    assert _numbers(client) == [1, 2, 3, 4, 5]
    client.close()


def test_unreachable_api_is_retried_then_reported(sleeps: Sleeps, token: str) -> None:
    with GitHubFake() as gone:
        url = gone.base_url
    client = GitHubClient.from_environ({"GITHUB_TOKEN": token}, api_url=url, sleep=sleeps)
    with pytest.raises(GitHubError, match="cannot reach the GitHub API"):
        client.alert("octo/app", 1)
    assert sleeps == [1.0, 2.0, 4.0]
    client.close()


def test_threads_share_a_bounded_client(server: GitHubFake, make_client: ClientFactory) -> None:
    client = make_client(max_concurrency=2)
    inner = server.responder
    assert inner is not None
    lock, in_flight, peak = threading.Lock(), [0], [0]

    def counting(request: CapturedRequest, index: int) -> Reply:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        try:
            threading.Event().wait(0.02)  # hold the request open so overlaps can happen
            return inner(request, index)
        finally:
            with lock:
                in_flight[0] -= 1

    server.responder = counting
    results: dict[int, str] = {}
    failures: list[BaseException] = []

    def fetch(number: int) -> None:
        try:
            for _ in range(5):
                results[number] = client.alert("octo/app", number).repo
        except BaseException as exc:  # reported below
            failures.append(exc)

    threads = [threading.Thread(target=fetch, args=(n,)) for n in (1, 2, 3, 4, 5) * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures and not any(t.is_alive() for t in threads)
    assert results == dict.fromkeys((1, 2, 3, 4, 5), "octo/app")
    assert len(server.requests) == 50
    assert 1 <= peak[0] <= 2
