"""``--apply`` over a listing longer than one page: resolving alerts while the open-alert
listing is paged must not make GitHub's page numbers skip the alerts that moved up a page.
Driven through ``run_triage`` with a client whose writes are not spaced a second apart
(GitHub asks that of real runs; a test of 130 resolutions should not wait two minutes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld, Loc
from tests.tokens import github_token
from thresher.config.settings import Settings
from thresher.github.auth import token_auth
from thresher.github.client import GitHubClient
from thresher.github.retry import RetryPolicy
from thresher.triage.runner import TriageRequest, run_triage

TOKEN = "ghs_" + "A" * 36
COMMIT = "a11a" + "0" * 36
ALERTS = 130  # more than one page of 100, more than two batches of 50


pytestmark = pytest.mark.slow


@pytest.fixture
def world() -> GitHubWorld:
    world = GitHubWorld()
    world.add_token(TOKEN)
    repo = world.add_repo("octo/big")
    value = github_token(seed=404, valid_checksum=False)
    body = f'"""Fixtures."""\n\nFAKE_TOKEN = "{value}"\n'.encode()
    sha = repo.add_file(COMMIT, "tests/fixtures/tokens.py", body)
    for _ in range(ALERTS):  # one value in one context: one decision, many alerts
        repo.add_alert(
            secret=value, locations=[Loc.commit("tests/fixtures/tokens.py", COMMIT, sha, line=3)]
        )
    return world


@pytest.fixture
def server(world: GitHubWorld) -> Iterator[GitHubFake]:
    with GitHubFake(world) as fake:
        yield fake
    assert not fake.errors, fake.errors


def test_apply_resolves_every_open_alert_of_a_multi_page_listing(
    server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    client = GitHubClient(
        api_url=server.base_url,
        auth=token_auth(TOKEN),
        policy=RetryPolicy(write_interval_s=0.0),
    )
    request = TriageRequest(
        org="octo",
        api_url=server.base_url,
        apply=True,
        state_path=tmp_path / "state.db",
        runs_dir=tmp_path / "runs",
    )
    with client:
        outcome = run_triage(request, Settings(), environ={}, client=client)
    assert int(outcome.exit_code) == 0, outcome.report.errors
    assert len(outcome.report.alerts) == ALERTS
    assert sum(1 for a in outcome.report.alerts if a.applied) == ALERTS
    alerts = world.repos["octo/big"].alerts.values()
    assert all(a.state == "resolved" for a in alerts)
