"""A dry run and an ``--apply`` run of the same targets are two jobs, end to end through
the CLI and PyGithub against the loopback fake.

The user's path this guards: a scheduled dry run is stopped part-way (a rate limit, a
killed runner), the reports read right, and the same command is run with ``--apply``.
That run must resolve every alert the policy allows, not resume the dry run's
checkpoint and pass over the alerts the dry run had finished. The other way round, a
dry run between an interrupted ``--apply`` run and its re-run must neither report the
apply's resolutions as its own nor end the apply's job, which the re-run resumes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.fakes.github import GitHubFake
from tests.fakes.github_replies import primary_limited
from tests.fakes.github_world import GitHubWorld
from tests.triage.orgworld import OrgPlan, RepoGate, populate

Cli = Callable[..., Result]
PER_REPO = 7
PATCHES = r"/secret-scanning/alerts/\d+$"
FIXTURE_DIRS = ("vendor/fixtures/", "tests/fixtures/")  # where populate puts test values


@pytest.fixture
def plan(world: GitHubWorld) -> OrgPlan:
    return populate(world, repos=4, per_repo=PER_REPO)


@pytest.fixture
def triage_args(plan: OrgPlan) -> tuple[str, ...]:
    return ("--org", "acme", "--concurrency", "1", "--max-rate-wait", "5")


def _test_values(world: GitHubWorld) -> set[str]:
    """The alerts whose value sits in a test fixture (a broken checksum): the ones a
    clean ``--apply`` run resolves, and the only ones."""
    return {
        f"{name}#{number}"
        for name, repo in world.repos.items()
        for number, alert in repo.alerts.items()
        if any(loc.path.startswith(FIXTURE_DIRS) for loc in alert.locations)
    }


def _resolved(world: GitHubWorld) -> set[str]:
    return {
        f"{name}#{number}"
        for name, repo in world.repos.items()
        for number, alert in repo.alerts.items()
        if alert.state == "resolved"
    }


def _report(path: Path) -> dict[str, dict[str, object]]:
    data = json.loads(path.read_text())
    return {f"{a['repo']}#{a['number']}": a for a in data["alerts"]}


def _patched(server: GitHubFake) -> Counter[str]:
    return Counter(server.path(r) for r in server.requests_to(PATCHES, "PATCH"))


@pytest.mark.slow
def test_apply_after_an_interrupted_dry_run_resolves_every_alert_the_dry_run_finished(
    triage: Cli, server: GitHubFake, world: GitHubWorld, plan: OrgPlan, tmp_path: Path
) -> None:
    # The dry run is stopped by a rate limit at its third repository: two are finished
    # and checkpointed, and it changed nothing on GitHub.
    gate = RepoGate(server, 3, reply=lambda: primary_limited(3600))
    dry = triage("--json", "dry.json")
    assert dry.exit_code == 3, dry.output
    assert gate.arrived.is_set()
    assert not server.requests_to(PATCHES, "PATCH")
    finished = {a for a in _report(tmp_path / "dry.json") if a.split("#")[0] in gate.repos[:2]}
    assert finished & _test_values(world), "the dry run must have finished resolvable alerts"

    applied = triage("--apply", "--json", "apply.json")
    assert applied.exit_code == 0, applied.output
    # Every test value is resolved, those of the repositories the dry run had finished
    # too, and each by one PATCH; nothing else is touched.
    assert _resolved(world) == _test_values(world)
    assert set(_patched(server).values()) == {1}
    report = _report(tmp_path / "apply.json")
    assert set(report) == plan.alerts
    for key in _test_values(world):
        assert report[key]["applied"] is True, key


@pytest.mark.slow
def test_a_dry_run_between_an_interrupted_apply_and_its_rerun_leaves_the_apply_job_alone(
    triage: Cli, server: GitHubFake, world: GitHubWorld, plan: OrgPlan, tmp_path: Path
) -> None:
    gate = RepoGate(server, 3, reply=lambda: primary_limited(3600))
    first = triage("--apply", "--json", "first.json")
    assert first.exit_code == 3, first.output
    done_first = {a for a in _report(tmp_path / "first.json") if a.split("#")[0] in gate.repos[:2]}
    resolved_first = _resolved(world)
    assert resolved_first and resolved_first <= done_first

    # A dry run now reports only what it would do itself: nothing applied, no PATCH.
    patches = len(server.requests_to(PATCHES, "PATCH"))
    dry = triage("--json", "dry.json")
    assert dry.exit_code == 0, dry.output
    assert len(server.requests_to(PATCHES, "PATCH")) == patches
    dry_report = json.loads((tmp_path / "dry.json").read_text())
    assert dry_report["dry_run"] is True
    assert not [a for a in dry_report["alerts"] if a["applied"]]
    assert not set(_report(tmp_path / "dry.json")) & resolved_first

    # The apply's re-run resumes its own job: the alerts it finished are not gathered
    # again, the rest are, and every test value ends resolved by one PATCH.
    located_before = len(server.requests_to(r"/locations$", "GET"))
    again = triage("--apply", "--json", "again.json")
    assert again.exit_code == 0, again.output
    located = {
        server.path(r).split("/secret-scanning/")[0].removeprefix("/repos/")
        for r in server.requests_to(r"/locations$", "GET")[located_before:]
    }
    assert located == set(world.repos) - set(gate.repos[:2])
    assert _resolved(world) == _test_values(world)
    assert set(_patched(server).values()) == {1}
    assert set(_report(tmp_path / "again.json")) == plan.alerts
