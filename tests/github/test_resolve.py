"""Resolving an alert: the PATCH GitHub expects, its 422, and the comment checks made
before anything is sent."""

from __future__ import annotations

import pytest

from tests.fakes.github import GitHubFake, captured_text
from tests.fakes.github_world import GitHubWorld, Loc
from tests.github.conftest import ClientFactory, Sleeps
from tests.tokens import github_token, random_secret
from thresher.findings.model import AlertResolution, AlertState
from thresher.github import client as client_module
from thresher.github.client import GitHubClient
from thresher.github.errors import GitHubPermissionError, GitHubValidationError


@pytest.fixture
def secret() -> str:
    return github_token(seed=61)


@pytest.fixture
def repo_alert(world: GitHubWorld, secret: str) -> int:
    repo = world.add_repo("octo/app")
    sha = repo.add_file("2" * 40, "tests/fixtures/creds.py", f"KEY = '{secret}'\n".encode())
    return repo.add_alert(
        secret=secret, locations=[Loc.commit("tests/fixtures/creds.py", "2" * 40, sha)]
    ).number


def test_resolve_sends_the_patch_and_returns_the_updated_alert(
    world: GitHubWorld, server: GitHubFake, client: GitHubClient, repo_alert: int, secret: str
) -> None:
    alert = client.alert("octo/app", repo_alert)
    comment = "thresher: test fixture under tests/fixtures (confidence 9/10); run 2026-11-23T18:00Z"
    resolved = client.resolve(alert, AlertResolution.USED_IN_TESTS, comment)
    assert resolved.state is AlertState.RESOLVED
    assert resolved.resolution is AlertResolution.USED_IN_TESTS
    assert resolved.resolution_comment == comment
    assert resolved.resolved_by == "thresher-bot" and resolved.resolved_at is not None
    assert resolved.updated_at >= alert.updated_at
    assert world.repos["octo/app"].alerts[repo_alert].state == "resolved"
    (patch,) = server.requests_to(r"/secret-scanning/alerts/\d+$", "PATCH")
    assert patch.json() == {
        "state": "resolved",
        "resolution": "used_in_tests",
        "resolution_comment": comment,
    }
    # the raw value was read (GET) but never sent anywhere
    client.locations(resolved)
    client.file_at("octo/app", "tests/fixtures/creds.py", "2" * 40)
    assert secret not in captured_text(server)


def test_a_comment_over_270_characters_is_refused_before_sending(
    server: GitHubFake, client: GitHubClient, repo_alert: int
) -> None:
    alert = client.alert("octo/app", repo_alert)
    with pytest.raises(GitHubValidationError) as caught:
        client.resolve(alert, AlertResolution.FALSE_POSITIVE, "x" * 271)
    assert caught.value.field == "resolution_comment"
    assert "271" in caught.value.message and "270" in caught.value.message
    assert server.requests_to(r".", "PATCH") == []
    client.resolve(alert, AlertResolution.FALSE_POSITIVE, "x" * 270)  # the limit itself is fine


def test_githubs_own_422_names_resolution_comment(
    server: GitHubFake, client: GitHubClient, repo_alert: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(client_module, "MAX_RESOLUTION_COMMENT", 10_000)  # skip our check
    alert = client.alert("octo/app", repo_alert)
    with pytest.raises(GitHubValidationError) as caught:
        client.resolve(alert, AlertResolution.FALSE_POSITIVE, "y" * 300)
    assert caught.value.field == "resolution_comment"
    assert "422" in caught.value.message and "270" in caught.value.message
    assert len(server.requests_to(r".", "PATCH")) == 1  # a 422 is not retried


def test_a_comment_holding_the_secret_is_refused(
    server: GitHubFake, client: GitHubClient, repo_alert: int, secret: str
) -> None:
    alert = client.alert("octo/app", repo_alert)
    with pytest.raises(GitHubValidationError, match="secret value"):
        client.resolve(alert, AlertResolution.FALSE_POSITIVE, f"value {secret} is a test")
    assert server.requests_to(r".", "PATCH") == []


def test_a_read_only_token_gets_a_permission_error_naming_write_access(
    world: GitHubWorld, server: GitHubFake, repo_alert: int, sleeps: Sleeps
) -> None:
    reader = "ghp_" + random_secret(36, seed=71)
    world.add_token(reader, write=False)
    client = GitHubClient.from_environ({"GH_TOKEN": reader}, api_url=server.base_url, sleep=sleeps)
    alert = client.alert("octo/app", repo_alert)
    with pytest.raises(GitHubPermissionError) as caught:
        client.resolve(alert, AlertResolution.FALSE_POSITIVE, "fp")
    assert "Resource not accessible" in caught.value.message
    assert caught.value.hint is not None and "security-events: write" in caught.value.hint
    assert reader not in f"{caught.value} {caught.value.hint} {caught.value!r}"
    client.close()


def test_writes_are_spaced_by_the_policy(
    server: GitHubFake, make_client: ClientFactory, sleeps: Sleeps, world: GitHubWorld
) -> None:
    repo = world.add_repo("octo/lib")
    numbers = [repo.add_alert(secret=github_token(seed=80 + i)).number for i in range(2)]
    client = make_client()
    for number in numbers:
        client.resolve(client.alert("octo/lib", number), AlertResolution.REVOKED, "rotated")
    assert len(sleeps) == 1 and 0 < sleeps[0] <= 1.0
