"""``thresher triage`` end to end against the loopback fake GitHub API (driven by PyGithub).

The organisation ``octo`` has three repositories:

* ``octo/app``: a live token in a deployment script (GitHub says ``active``), a token
  with a broken checksum in a test fixture (hard evidence: not a GitHub token), and a
  token pasted in an issue comment;
* ``octo/api`` and ``octo/web``: the same broken-checksum fixture, vendored at the same
  path, so one value in one context is decided once for three alerts.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.fakes.github import GitHubFake, captured_text
from tests.fakes.github_world import FakeRepo, GitHubWorld, Loc
from tests.tokens import github_token

COMMIT = "c0ffee" + "0" * 34
LIVE = github_token(seed=71)
FIXTURE = github_token(seed=72, valid_checksum=False)
PASTED = github_token(seed=73)
VALUES = (LIVE, FIXTURE, PASTED)

Cli = Callable[..., Result]


def _fixture_file(repo: FakeRepo) -> None:
    body = f'"""Fixtures for the client tests."""\n\nFAKE_TOKEN = "{FIXTURE}"\n'.encode()
    sha = repo.add_file(COMMIT, "tests/fixtures/tokens.py", body)
    repo.add_alert(
        secret=FIXTURE,
        locations=[Loc.commit("tests/fixtures/tokens.py", COMMIT, sha, line=3)],
    )


@pytest.fixture
def world(token: str) -> GitHubWorld:
    world = GitHubWorld()
    world.add_token(token)
    app = world.add_repo("octo/app")
    deploy = f'import os\n\nRELEASE_TOKEN = "{LIVE}"\nrelease(RELEASE_TOKEN)\n'.encode()
    sha = app.add_file(COMMIT, "deploy/release.py", deploy)
    app.add_alert(
        secret=LIVE,
        validity="active",
        locations=[Loc.commit("deploy/release.py", COMMIT, sha, line=3)],
    )
    _fixture_file(app)
    app.add_issue(7, title="Deploy fails", body="see below")
    app.add_issue_comment(901, f"I used this token and it still fails:\n{PASTED}\nany idea?")
    app.add_alert(secret=PASTED, locations=[Loc.text("issue_comment", number=7, item_id=901)])
    for name in ("octo/api", "octo/web"):
        _fixture_file(world.add_repo(name))
    return world


def _report(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def _by_alert(report: dict[str, object]) -> dict[str, dict[str, object]]:
    alerts = report["alerts"]
    assert isinstance(alerts, list)
    return {f"{a['repo']}#{a['number']}": a for a in alerts}


def _artifacts(tmp_path: Path) -> str:
    """Every file the run left: reports, journal, state database (all of it)."""
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file()
    )


def test_a_dry_run_over_an_organisation_decides_every_alert_and_changes_nothing(
    triage: Cli, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    result = triage("--org", "octo", "--json", "out.json")
    assert result.exit_code == 0, result.output
    report = _report(tmp_path / "out.json")
    alerts = _by_alert(report)
    assert set(alerts) == {"octo/app#1", "octo/app#2", "octo/app#3", "octo/api#1", "octo/web#1"}
    live = alerts["octo/app#1"]
    assert live["decision"]["classification"] == "real"  # type: ignore[index]
    assert live["action"]["hold"] == "active"  # type: ignore[index]
    for key in ("octo/app#2", "octo/api#1", "octo/web#1"):
        fixture = alerts[key]
        assert fixture["decision"]["classification"] != "real"  # type: ignore[index]
        assert fixture["action"]["kind"] == "resolve"  # type: ignore[index]
        assert fixture["applied"] is False
    pasted = alerts["octo/app#3"]
    assert pasted["decision"] is not None
    assert pasted["decision"]["finding"]["locations"][0]["kind"] == "text"  # type: ignore[index]
    assert report["dry_run"] is True
    assert not server.requests_to(r"/secret-scanning/alerts/\d+$", "PATCH")
    assert all(a.state == "open" for r in world.repos.values() for a in r.alerts.values())
    # One value in one context: decided once for its three alerts.
    journal = list((tmp_path / ".thresher" / "runs").glob("*/decisions.jsonl"))
    decided = [json.loads(line) for path in journal for line in path.read_text().splitlines()]
    assert len(decided) == 3
    everything = _artifacts(tmp_path) + result.output + captured_text(server)
    for value in VALUES:
        assert value not in everything


@pytest.mark.slow
def test_apply_resolves_only_what_the_policy_allows_once(
    triage: Cli, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    result = triage("--org", "octo", "--apply", "--json", "out.json")
    assert result.exit_code == 0, result.output
    patches = server.requests_to(r"/secret-scanning/alerts/\d+$", "PATCH")
    assert sorted(server.path(r) for r in patches) == sorted(
        f"/repos/{name}/secret-scanning/alerts/{n}"
        for name, n in (("octo/app", 2), ("octo/api", 1), ("octo/web", 1))
    )
    for name in ("octo/app", "octo/api", "octo/web"):
        repo = world.repos[name]
        fixture = repo.alerts[2 if name == "octo/app" else 1]
        assert fixture.state == "resolved"
        assert fixture.resolution in {"false_positive", "used_in_tests"}
        assert fixture.resolution_comment and len(fixture.resolution_comment) <= 270
        assert "thresher" in fixture.resolution_comment
    assert world.repos["octo/app"].alerts[1].state == "open"  # live: never touched
    assert world.repos["octo/app"].alerts[3].state == "open"
    audit = sqlite3.connect(tmp_path / "state.db").execute("SELECT COUNT(*) FROM applied")
    assert audit.fetchone()[0] == 3
    everything = _artifacts(tmp_path) + result.output + captured_text(server)
    for value in VALUES:
        assert value not in everything

    again = triage("--org", "octo", "--apply", "--state", "all", "--json", "again.json")
    assert again.exit_code == 0, again.output
    assert len(server.requests_to(r"/secret-scanning/alerts/\d+$", "PATCH")) == 3
    holds = {k: a["action"]["hold"] for k, a in _by_alert(_report(tmp_path / "again.json")).items()}  # type: ignore[index]
    assert holds["octo/api#1"] == "already_applied"


def test_an_alert_reopened_after_thresher_resolved_it_is_never_touched_again(
    triage: Cli, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    assert triage("--repo", "octo/api", "--apply").exit_code == 0
    alert = world.repos["octo/api"].alerts[1]
    assert alert.state == "resolved"
    alert.state, alert.resolution = "open", None  # a person disagrees
    result = triage("--repo", "octo/api", "--apply", "--json", "out.json")
    assert result.exit_code == 0, result.output
    assert len(server.requests_to(r"/secret-scanning/alerts/\d+$", "PATCH")) == 1
    outcome = _by_alert(_report(tmp_path / "out.json"))["octo/api#1"]
    assert outcome["action"]["hold"] == "reopened_after_resolve"  # type: ignore[index]
