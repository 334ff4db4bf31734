"""Scheduled ``thresher triage --apply`` as cron runs it: killed at any moment of a change
and resumed, or overlapping the next tick on the same state database (issue 19).

The real command runs as child processes against the loopback fake GitHub API served
from this test process, whose own audit (``GitHubFake.applied``) records every PATCH
it applied. The yardstick is one clean run of the same command on a twin of the
organisation: after the kills and the overlaps GitHub must hold exactly its
resolutions, each applied once.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.triage_process import (
    HANG_BOUND_S,
    TOKEN,
    applied_twice,
    artifacts,
    audit,
    pending_intents,
    report,
    resolutions,
    run,
    start,
    wait_for,
)
from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld
from tests.triage.gates import Moment, PatchGate
from tests.triage.orgworld import OrgPlan, populate
from thresher.config.settings import Settings
from thresher.github.auth import token_auth
from thresher.github.client import GitHubClient
from thresher.github.retry import RetryPolicy
from thresher.triage.runner import TriageRequest, run_triage

# Alerts 1-2 of each repository are test fixtures with a broken checksum, 3 a live-format
# token, 4 another fixture: three resolutions per repository. Two repositories for the
# kills, one for the overlaps (writes are spaced a second apart, as GitHub asks).
KILLED_REPOS = 2
PER_REPO = 4
BUSY = 4  # the documented exit code of a run that found the state database in use
ERROR = 3
Resolutions = dict[str, tuple[str, str | None]]


pytestmark = pytest.mark.slow


def _org(world: GitHubWorld, repos: int) -> OrgPlan:
    world.add_token(TOKEN)
    return populate(world, repos=repos, per_repo=PER_REPO)


def _clean_run(repos: int, tmp_path: Path) -> Resolutions:
    """What one uninterrupted ``--apply`` run leaves on a twin of the organisation: the
    same run, in this process, with writes not spaced (it only sets the yardstick)."""
    world = GitHubWorld()
    _org(world, repos)
    with GitHubFake(world) as server:
        client = GitHubClient(
            api_url=server.base_url,
            auth=token_auth(TOKEN),
            policy=RetryPolicy(write_interval_s=0.0),
        )
        request = TriageRequest(
            org="acme",
            api_url=server.base_url,
            apply=True,
            state_path=tmp_path / "clean.db",
            runs_dir=tmp_path / "clean-runs",
        )
        with client:
            outcome = run_triage(request, Settings(), environ={}, client=client)
    assert int(outcome.exit_code) == 0, outcome.report.errors
    assert not applied_twice(server)
    return resolutions(world)


@pytest.fixture
def world() -> GitHubWorld:
    return GitHubWorld()


@pytest.fixture
def repos(request: pytest.FixtureRequest) -> int:
    return int(getattr(request, "param", 1))


@pytest.fixture
def plan(world: GitHubWorld, repos: int) -> OrgPlan:
    return _org(world, repos)


@pytest.fixture
def clean(repos: int, tmp_path_factory: pytest.TempPathFactory) -> Resolutions:
    return _clean_run(repos, tmp_path_factory.mktemp("clean"))


@pytest.fixture
def server(world: GitHubWorld, plan: OrgPlan) -> Iterator[GitHubFake]:
    with GitHubFake(world) as fake:
        yield fake


def _resolved(state: Resolutions) -> set[str]:
    return {key for key, (status, _) in state.items() if status == "resolved"}


def _kill_at(server: GitHubFake, tmp_path: Path, nth: int, moment: Moment) -> None:
    gate = PatchGate(server, nth, moment)
    process = start(server, tmp_path, "--apply", "--json", "report.json")
    try:
        wait_for(gate.arrived.is_set, f"PATCH {nth} ({moment.value})", process)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=HANG_BOUND_S)
    finally:
        gate.close()
        if process.poll() is None:
            process.kill()
    process.communicate()
    assert process.returncode == -signal.SIGKILL


@pytest.mark.parametrize("repos", [KILLED_REPOS], indirect=True)
def test_three_sigkills_then_one_resume_leave_github_as_one_clean_run(
    clean: Resolutions,
    server: GitHubFake,
    world: GitHubWorld,
    plan: OrgPlan,
    tmp_path: Path,
) -> None:
    assert len(_resolved(clean)) == 6
    # (PATCHes GitHub applied, resolutions in the state store's audit, intents pending)
    state_db = tmp_path / "state.db"

    def progress() -> tuple[int, int, int]:
        return len(server.applied), sum(audit(state_db).values()), pending_intents(state_db)

    # 1: its 2nd PATCH never reaches GitHub: an intent is left for an alert still open.
    _kill_at(server, tmp_path, 2, Moment.BEFORE)
    assert progress() == (1, 1, 1)
    # 2: settles that one with a PATCH, then its 2nd PATCH is applied but the run never
    # hears of it: an intent is left for an alert already resolved as intended.
    _kill_at(server, tmp_path, 2, Moment.DURING)
    assert progress() == (3, 2, 1)
    # 3: settles that one without a PATCH, then dies right after its 1st PATCH was
    # answered and recorded (the next alert's intent may be written already).
    _kill_at(server, tmp_path, 1, Moment.AFTER)
    assert progress()[:2] == (4, 4)

    resumed = run(server, tmp_path, "--apply", "--json", "report.json")

    assert resumed.returncode in (0, 1), resumed.stderr.decode()
    out = report(tmp_path / "report.json")
    assert out["stopped"] is None and out["errors"] == []
    assert [a for a in out["alerts"] if a["error"]] == []
    assert out["summary"]["alert_errors"] == 0
    assert resolutions(world) == clean
    assert not applied_twice(server)
    assert {p.key for p in server.applied} == _resolved(clean)
    # The job's report and the state store's audit hold every resolution, once, the
    # ones the killed runs made too; no intent is left pending.
    assert sorted(f"{a['repo']}#{a['number']}" for a in out["alerts"]) == sorted(plan.alerts)
    assert out["summary"]["resolved"] == 6
    assert audit(state_db) == dict.fromkeys(_resolved(clean), 1)
    assert pending_intents(state_db) == 0
    everything = artifacts(tmp_path) + resumed.stdout.decode() + resumed.stderr.decode()
    for value in plan.values:
        assert value not in everything


@pytest.mark.parametrize("wait", ["120", "0"])
def test_two_apply_runs_started_together_resolve_each_alert_once(
    wait: str, clean: Resolutions, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    """With a long ``--wait`` both runs finish (one after the other); with none, the one
    that finds the state in use steps aside (exit 4) unless the other was already done.
    Either way: no error, every resolution of a clean run, each applied once."""
    names = ("first.json", "second.json")
    runs = [start(server, tmp_path, "--apply", "--wait", wait, "--json", n) for n in names]
    codes = []
    for process in runs:
        _, err = process.communicate(timeout=HANG_BOUND_S)
        assert process.returncode in (0, BUSY), err.decode()
        codes.append(process.returncode)
    assert 0 in codes
    if wait != "0":
        assert codes == [0, 0]

    reports = [report(tmp_path / n) for n, code in zip(names, codes, strict=True) if code == 0]
    for out in reports:
        assert out["stopped"] is None
        assert out["summary"]["alert_errors"] == 0 and out["summary"]["run_errors"] == 0
    assert sum(out["summary"]["resolved"] for out in reports) == len(_resolved(clean))
    assert resolutions(world) == clean
    assert not applied_twice(server)


def test_a_run_that_finds_the_state_in_use_stops_with_exit_4_and_names_the_holder(
    clean: Resolutions, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    gate = PatchGate(server, 1, Moment.PAUSE)
    first = start(server, tmp_path, "--apply", "--json", "first.json")
    try:
        wait_for(gate.arrived.is_set, "its first PATCH", first)
        second = run(server, tmp_path, "--apply", "--json", "second.json")
    finally:
        gate.close()
    first.wait(timeout=HANG_BOUND_S)
    _, first_err = first.communicate()
    assert first.returncode == 0, first_err.decode()

    assert second.returncode == BUSY != ERROR
    said = second.stderr.decode()
    assert str(tmp_path / "state.db") in said
    assert f"pid {first.pid} on {socket.gethostname()}, started " in said
    assert "error" not in said.lower()
    # It changed nothing and wrote no report (the other run's would be overwritten).
    assert not (tmp_path / "second.json").exists()
    assert len(list((tmp_path / ".thresher" / "runs").iterdir())) == 1
    assert resolutions(world) == clean
    assert not applied_twice(server)
