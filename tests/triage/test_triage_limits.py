"""``thresher triage`` against GitHub's limits and faults, end to end through the CLI and
PyGithub against the loopback fake: a primary rate limit beyond ``--max-rate-wait`` stops
the run cleanly with its state kept (a re-run finishes without deciding anything twice),
and secondary limits and 5xx within the bound are waited out."""

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
from tests.triage.orgworld import (
    OrgPlan,
    RepoGate,
    alert_contexts,
    done_alerts,
    journal_alerts,
    populate,
)

Cli = Callable[..., Result]
PER_REPO = 10


@pytest.fixture
def plan(world: GitHubWorld) -> OrgPlan:
    return populate(world, repos=4, per_repo=PER_REPO)


@pytest.fixture
def triage_args(plan: OrgPlan) -> tuple[str, ...]:
    return ("--org", "acme", "--concurrency", "1")


def _alerts(path: Path) -> list[str]:
    report = json.loads(path.read_text())
    return [f"{a['repo']}#{a['number']}" for a in report["alerts"]]


def _no_value_anywhere(tmp_path: Path, server: GitHubFake, plan: OrgPlan, *outputs: str) -> None:
    files = "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file()
    )
    requests = "\n".join(
        f"{r.method} {r.path} {r.body.decode('utf-8', 'replace')}" for r in server.requests
    )
    for value in plan.values:
        assert value not in files
        assert value not in requests
        assert all(value not in out for out in outputs)


@pytest.mark.slow
def test_a_rate_limit_beyond_the_bound_stops_with_state_kept_and_a_rerun_finishes(
    triage: Cli, server: GitHubFake, plan: OrgPlan, tmp_path: Path
) -> None:
    # The third repository's first locations request: GitHub's quota is spent for an hour.
    gate = RepoGate(server, 3, reply=lambda: primary_limited(3600))
    stopped = triage("--max-rate-wait", "30", "--json", "first.json")

    assert stopped.exit_code == 3, stopped.output
    assert gate.arrived.is_set()
    assert "rate limit" in stopped.output
    assert "run the same command again after" in stopped.output
    first = json.loads((tmp_path / "first.json").read_text())
    assert first["stopped"] and "run the same command again after" in first["stopped"]
    kept = done_alerts(tmp_path / "state.db")
    finished = {f"{repo}#{n}" for repo in gate.finished_before for n in range(1, PER_REPO + 1)}
    assert kept == finished == set(_alerts(tmp_path / "first.json"))
    assert len(kept) == 2 * PER_REPO
    decided_first = journal_alerts(tmp_path / ".thresher" / "runs")

    # The limit has cleared: the same command continues and finishes.
    again = triage("--max-rate-wait", "30", "--json", "second.json")
    assert again.exit_code == 0, again.output
    second = json.loads((tmp_path / "second.json").read_text())
    assert second["stopped"] is None
    assert Counter(_alerts(tmp_path / "second.json")) == Counter(plan.alerts)
    # The first run's alerts were not listed for work again: no locations fetched twice.
    located = Counter(
        server.path(r).removesuffix("/locations") for r in server.requests_to(r"/locations$", "GET")
    )
    assert max(located.values()) == 2  # only the rate-limited request was repeated
    assert sum(1 for n in located.values() if n == 2) == 1
    # Nothing decided twice: each (value, context) is in exactly one journal line.
    journal = journal_alerts(tmp_path / ".thresher" / "runs")
    assert len(journal) > len(decided_first) > 0
    contexts = alert_contexts(tmp_path / "state.db")
    assert set(contexts) == plan.alerts
    keys = [contexts[alert] for alert in journal]
    assert len(keys) == len(set(keys)) == len(set(contexts.values())) == plan.contexts
    _no_value_anywhere(tmp_path, server, plan, stopped.output, again.output)


def test_max_rate_wait_bounds_the_wait(
    triage: Cli, server: GitHubFake, plan: OrgPlan, tmp_path: Path
) -> None:
    # 30 s would be waited out under the default bound (60 s); --max-rate-wait 2 stops.
    RepoGate(server, 1, reply=lambda: primary_limited(30))
    result = triage("--max-rate-wait", "2", "--json", "out.json")
    assert result.exit_code == 3, result.output
    stopped = json.loads((tmp_path / "out.json").read_text())["stopped"]
    assert "more than the 2s allowed" in stopped
    assert "--max-rate-wait" in stopped
    assert "run the same command again after" in stopped
    assert done_alerts(tmp_path / "state.db") == set()


@pytest.mark.slow
def test_a_limit_within_the_bound_is_waited_out(
    triage: Cli, server: GitHubFake, plan: OrgPlan, tmp_path: Path
) -> None:
    gate = RepoGate(server, 2, reply=lambda: primary_limited(1))
    result = triage("--max-rate-wait", "30", "--json", "out.json")
    assert result.exit_code == 0, result.output
    assert gate.arrived.is_set()
    assert Counter(_alerts(tmp_path / "out.json")) == Counter(plan.alerts)


@pytest.mark.slow
def test_secondary_limits_and_server_errors_during_triage_are_retried(
    triage: Cli, server: GitHubFake, plan: OrgPlan, tmp_path: Path
) -> None:
    server.fault(r"/orgs/acme/secret-scanning/alerts$", "secondary", retry_after=1)
    server.fault(r"/secret-scanning/alerts/\d+/locations$", 502, times=2)
    server.fault(r"/contents/", 503)
    server.fault(r"/issues/comments/\d+$", "secondary", retry_after=1)
    result = triage("--json", "out.json")

    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out.json").read_text())
    assert Counter(_alerts(tmp_path / "out.json")) == Counter(plan.alerts)
    assert report["stopped"] is None and report["errors"] == []
    assert all(a["error"] is None and a["decision"] for a in report["alerts"])
    listings = server.requests_to(r"/orgs/acme/secret-scanning/alerts$", "GET")
    assert len(listings) == 2  # the limited page, then the same page again
    assert server.path(listings[0]) == server.path(listings[1])
    _no_value_anywhere(tmp_path, server, plan, result.output)


def test_a_token_github_refuses_exits_2_naming_the_variables(
    cli: Cli, server: GitHubFake, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_" + "X" * 36)  # not one the fake accepts
    monkeypatch.delenv("GH_TOKEN", raising=False)
    result = cli("triage", "--org", "acme", "--api-url", server.base_url, "--json", "out.json")
    assert result.exit_code == 2, result.output
    assert "401" in result.output and "GITHUB_TOKEN" in result.output
    assert json.loads((tmp_path / "out.json").read_text())["stopped"]
