"""A ``thresher triage`` process killed with SIGKILL mid-run, then run again, finishes the
job and decides nothing twice.

The real command runs as a child process (this checkout's ``src`` first on its path) against
the loopback fake GitHub API served from this test process. The kill lands at a known point:
the fake holds the first locations request of the third repository the run gathers, so two
repositories are finished and stored when the test kills the process. The same command then
runs to completion.
"""

from __future__ import annotations

import json
import signal
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.triage_process import HANG_BOUND_S, TOKEN, command, environ, wait_for
from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld
from tests.triage.orgworld import (
    OrgPlan,
    RepoGate,
    alert_contexts,
    done_alerts,
    journal_alerts,
    populate,
)

PER_REPO = 10


pytestmark = pytest.mark.slow


@pytest.fixture
def world() -> GitHubWorld:
    world = GitHubWorld()
    world.add_token(TOKEN)
    return world


@pytest.fixture
def plan(world: GitHubWorld) -> OrgPlan:
    return populate(world, repos=4, per_repo=PER_REPO)


@pytest.fixture
def server(world: GitHubWorld, plan: OrgPlan) -> Iterator[GitHubFake]:
    with GitHubFake(world) as fake:
        yield fake


def test_sigkill_mid_run_then_a_rerun_finishes_and_decides_nothing_twice(
    server: GitHubFake, plan: OrgPlan, tmp_path: Path
) -> None:
    gate = RepoGate(server, 3)
    state_db = tmp_path / "state.db"
    first = subprocess.Popen(
        command(server, tmp_path, "--json", "report.json"),
        cwd=tmp_path,
        env=environ(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(gate.arrived.is_set, "the third repository", first)
        finished = {f"{repo}#{n}" for repo in gate.finished_before for n in range(1, PER_REPO + 1)}
        assert len(finished) == 2 * PER_REPO
        wait_for(lambda: done_alerts(state_db) == finished, "two repositories done", first)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=HANG_BOUND_S)
    finally:
        gate.release()
        if first.poll() is None:
            first.kill()
    _, killed_err = first.communicate()
    assert first.returncode == -signal.SIGKILL
    assert not (tmp_path / "report.json").exists()  # it died before writing any report
    decided_before_kill = journal_alerts(tmp_path / ".thresher" / "runs")
    assert decided_before_kill

    second = subprocess.run(
        command(server, tmp_path, "--json", "report.json"),
        cwd=tmp_path,
        env=environ(tmp_path),
        capture_output=True,
        timeout=HANG_BOUND_S,
        check=False,
    )
    assert second.returncode == 0, second.stderr.decode()

    report = json.loads((tmp_path / "report.json").read_text())
    assert report["stopped"] is None
    listed = Counter(f"{a['repo']}#{a['number']}" for a in report["alerts"])
    assert listed == Counter(plan.alerts)  # every alert exactly once, the killed run's too
    assert all(a["decision"] is not None for a in report["alerts"])
    # The resumed run did not gather what the killed one had finished.
    gathered = Counter(
        server.path(r).removesuffix("/locations").replace("/secret-scanning/alerts/", "#")
        for r in server.requests_to(r"/locations$", "GET")
    )
    for alert in finished:
        assert gathered[f"/repos/{alert}"] == 1

    # Each (value, context) decided exactly once across both runs' journals.
    runs = sorted((tmp_path / ".thresher" / "runs").iterdir())
    assert len(runs) == 2
    journal = journal_alerts(tmp_path / ".thresher" / "runs")
    contexts = alert_contexts(state_db)
    assert set(contexts) == plan.alerts
    keys = [contexts[alert] for alert in journal]
    assert len(keys) == len(set(keys)) == plan.contexts
    # The vendored fixtures decided before the kill were reused, not decided again, for
    # the repositories after it (the uniqueness above), and the rest were decided.
    assert len(journal) > len(decided_before_kill)

    everything = "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in tmp_path.rglob("*") if p.is_file()
    )
    everything += killed_err.decode() + second.stdout.decode() + second.stderr.decode()
    for value in plan.values:
        assert value not in everything
