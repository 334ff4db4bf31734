"""``--apply`` looks at each alert again right before changing it, and settles what an
interrupted run left: a person who resolved or reopened an alert after thresher listed
it keeps it as they left it, and an alert that already has the intended resolution
(GitHub's 422 for a repeated PATCH) is success, not an error.

End to end through the CLI against the loopback fake GitHub; the settling of an
interrupted run's intents through ``Applier`` with a real state store (the kills
themselves are in ``tests/cli/test_triage_overlap.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.fakes.base import CapturedRequest
from tests.fakes.github import GitHubFake
from tests.fakes.github_world import FakeAlert, FakeRepo, GitHubWorld, Loc
from tests.tokens import github_token
from thresher.findings import AlertResolution, AlertState, AlertValidity
from thresher.github.auth import token_auth
from thresher.github.client import GitHubClient
from thresher.github.models import Alert
from thresher.github.retry import RetryPolicy
from thresher.triage.apply import Applier, LookKind, last_look
from thresher.triage.policy import Action, ActionKind, Hold
from thresher.triage.report import AlertOutcome
from thresher.triage.state import StateStore

from .gates import before_answering

COMMIT = "a9b1e" + "0" * 35
FIXTURE = github_token(seed=191, valid_checksum=False)
TOKEN = "ghs_" + "L" * 36
COMMENT = "thresher: test (9.0/10). a vendored fixture [run r-1]"
Cli = Callable[..., Result]


def _fixture(repo: FakeRepo) -> FakeAlert:
    body = f'"""Fixtures."""\n\nFAKE_TOKEN = "{FIXTURE}"\n'.encode()
    sha = repo.add_file(COMMIT, "tests/fixtures/tokens.py", body)
    return repo.add_alert(
        secret=FIXTURE, locations=[Loc.commit("tests/fixtures/tokens.py", COMMIT, sha, line=3)]
    )


@pytest.fixture
def world() -> GitHubWorld:
    """Two repositories, one test-fixture alert each: both resolvable."""
    world = GitHubWorld()
    world.add_token(TOKEN)
    for name in ("octo/api", "octo/web"):
        _fixture(world.add_repo(name))
    return world


@pytest.fixture
def server(world: GitHubWorld) -> Iterator[GitHubFake]:
    with GitHubFake(world) as fake:
        yield fake
    assert not fake.errors, fake.errors


@pytest.fixture
def triage(cli: Cli, server: GitHubFake, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Cli:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)

    def run(*args: str) -> Result:
        return cli(
            "triage", "--api-url", server.base_url, "--state-db", str(tmp_path / "state.db"), *args
        )

    return run


def _alerts(path: Path) -> dict[str, dict[str, Any]]:
    return {f"{a['repo']}#{a['number']}": a for a in json.loads(path.read_text())["alerts"]}


def _patches(server: GitHubFake, repo: str) -> int:
    return len(server.requests_to(rf"/repos/{repo}/secret-scanning/alerts/1$", "PATCH"))


# -- a person acts between thresher's listing and its change ------------------------------


def test_an_alert_a_person_resolved_after_the_listing_is_held_and_not_touched(
    triage: Cli, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    alert = world.repos["octo/api"].alerts[1]
    before_answering(
        server,
        r"/repos/octo/api/secret-scanning/alerts/1/locations$",
        lambda _: alert.resolve("revoked", "rotated it myself", by="octocat"),
    )
    result = triage("--org", "octo", "--apply", "--json", "out.json")
    assert result.exit_code == 0, result.output
    outcome = _alerts(tmp_path / "out.json")["octo/api#1"]
    assert outcome["applied"] is False and outcome["error"] is None
    assert outcome["action"]["hold"] == "already_resolved"
    assert "revoked by octocat" in outcome["action"]["detail"]
    assert _patches(server, "octo/api") == 0
    assert (alert.state, alert.resolution, alert.resolved_by) == ("resolved", "revoked", "octocat")
    assert [p.key for p in server.applied] == ["octo/web#1"]  # the other one goes ahead


def test_an_alert_a_person_reopened_after_the_listing_is_held_and_not_touched(
    triage: Cli, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    alert = world.repos["octo/api"].alerts[1]

    def resolve_and_reopen(_: CapturedRequest) -> None:
        alert.resolve("false_positive", None, by="octocat")
        alert.reopen()

    before_answering(
        server, r"/repos/octo/api/secret-scanning/alerts/1/locations$", resolve_and_reopen
    )
    result = triage("--org", "octo", "--apply", "--json", "out.json")
    assert result.exit_code == 0, result.output
    outcome = _alerts(tmp_path / "out.json")["octo/api#1"]
    assert outcome["applied"] is False and outcome["error"] is None
    assert outcome["action"]["hold"] == "changed_since_listed"
    assert _patches(server, "octo/api") == 0
    assert alert.state == "open"
    assert [p.key for p in server.applied] == ["octo/web#1"]


# -- GitHub answers a PATCH with 422: the alert already has that resolution -----------------


def _already(world: GitHubWorld, by: str, comment: str | None) -> Callable[[CapturedRequest], None]:
    """The alert gets the PATCH's resolution just before GitHub reads the PATCH: from an
    earlier PATCH of thresher's own (its comment), or from a person (another comment)."""

    def act(request: CapturedRequest) -> None:
        body = request.json()
        route = request.route.removeprefix("/repos/")
        repo, _, number = route.partition("/secret-scanning/alerts/")
        alert = world.repos[repo].alerts[int(number)]
        alert.resolve(body["resolution"], comment or body["resolution_comment"], by=by)

    return act


def test_a_422_for_a_resolution_thresher_already_applied_is_success(
    triage: Cli, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    before_answering(
        server, r"/repos/octo/api/secret-scanning/alerts/1$", _already(world, "bot", None), "PATCH"
    )
    result = triage("--org", "octo", "--apply", "--json", "out.json")
    assert result.exit_code == 0, result.output
    outcome = _alerts(tmp_path / "out.json")["octo/api#1"]
    assert outcome["applied"] is True and outcome["error"] is None
    assert _patches(server, "octo/api") == 1  # refused with 422, not sent again
    with StateStore.open(tmp_path / "state.db") as store:
        recorded = store.applied_for("octo/api", 1)
    assert recorded is not None
    assert recorded.resolution.value == world.repos["octo/api"].alerts[1].resolution


def test_a_422_because_a_person_resolved_it_the_same_way_is_held_not_an_error(
    triage: Cli, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    before_answering(
        server,
        r"/repos/octo/api/secret-scanning/alerts/1$",
        _already(world, "octocat", "a test value, closing"),
        "PATCH",
    )
    result = triage("--org", "octo", "--apply", "--json", "out.json")
    assert result.exit_code == 0, result.output
    outcome = _alerts(tmp_path / "out.json")["octo/api#1"]
    assert outcome["applied"] is False and outcome["error"] is None
    assert outcome["action"]["hold"] == "already_resolved"
    assert world.repos["octo/api"].alerts[1].resolved_by == "octocat"
    with StateStore.open(tmp_path / "state.db") as store:
        assert store.applied_for("octo/api", 1) is None  # not claimed as thresher's


# -- settling the intents an interrupted run left -----------------------------------------


@pytest.fixture
def client(server: GitHubFake) -> Iterator[GitHubClient]:
    with GitHubClient(
        api_url=server.base_url, auth=token_auth(TOKEN), policy=RetryPolicy(write_interval_s=0)
    ) as made:
        yield made


def _outcome(alert: Alert) -> AlertOutcome:
    return AlertOutcome(
        repo=alert.repo,
        number=alert.number,
        html_url=alert.html_url,
        secret_type=alert.secret_type,
        state_before=alert.state,
        action=Action(
            kind=ActionKind.RESOLVE,
            resolution=AlertResolution.USED_IN_TESTS,
            comment=COMMENT,
            detail="used_in_tests: test, confidence 9.0/10, hard evidence (checksum_invalid)",
        ),
    )


def _interrupted(store: StateStore, alert: Alert) -> None:
    """What a run killed after its intent and before settling it leaves behind."""
    store.begin_run("job-1", "r-1", "org:octo")
    store.intend(
        "job-1",
        (alert.repo, alert.number),
        AlertResolution.USED_IN_TESTS,
        COMMENT,
        run_id="r-1",
        listed_updated_at=alert.updated_at,
        outcome_json=_outcome(alert).model_dump_json(),
    )


def test_an_intent_whose_patch_landed_is_recorded_without_another_patch(
    client: GitHubClient, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    listed = client.alert("octo/api", 1)
    with StateStore.open(tmp_path / "state.db") as store:
        _interrupted(store, listed)
        world.repos["octo/api"].alerts[1].resolve("used_in_tests", COMMENT, by="thresher-bot")
        (settled,) = Applier(client, store, "job-1", "r-2").settle_pending()
        assert settled.applied is True and settled.error is None
        assert store.pending_intents("job-1") == []
        assert [(r.repo, r.number, r.run_id) for r in store.audit()] == [("octo/api", 1, "r-1")]
        assert set(store.done("job-1")) == {("octo/api", 1)}
    assert _patches(server, "octo/api") == 0


def test_an_intent_for_an_alert_still_open_is_applied_once(
    client: GitHubClient, server: GitHubFake, tmp_path: Path
) -> None:
    listed = client.alert("octo/api", 1)
    with StateStore.open(tmp_path / "state.db") as store:
        _interrupted(store, listed)
        (settled,) = Applier(client, store, "job-1", "r-2").settle_pending()
        assert settled.applied is True and settled.error is None
        assert store.pending_intents("job-1") == []
        assert Applier(client, store, "job-1", "r-3").settle_pending() == []
    assert [(p.key, p.resolution, p.comment) for p in server.applied] == [
        ("octo/api#1", "used_in_tests", COMMENT)
    ]


def test_an_intent_for_an_alert_a_person_reopened_meanwhile_is_held(
    client: GitHubClient, server: GitHubFake, world: GitHubWorld, tmp_path: Path
) -> None:
    listed = client.alert("octo/api", 1)
    with StateStore.open(tmp_path / "state.db") as store:
        _interrupted(store, listed)
        alert = world.repos["octo/api"].alerts[1]
        alert.resolve("used_in_tests", COMMENT, by="thresher-bot")  # the killed run's PATCH
        alert.reopen()  # and a person's answer to it
        (settled,) = Applier(client, store, "job-1", "r-2").settle_pending()
        assert settled.applied is False and settled.error is None
        assert settled.action.hold is Hold.CHANGED_SINCE_LISTED
        assert store.pending_intents("job-1") == []
    assert _patches(server, "octo/api") == 0


# -- the rule itself ----------------------------------------------------------------------


def _as(listed: Alert, **changes: Any) -> Alert:
    return listed.model_copy(update=changes)


def test_the_last_look_decides_on_the_alert_as_github_has_it_now(client: GitHubClient) -> None:
    listed = client.alert("octo/api", 1)
    later = listed.updated_at + timedelta(minutes=5)
    resolved = {"state": AlertState.RESOLVED, "updated_at": later, "resolved_by": "octocat"}

    def look(current: Alert) -> tuple[LookKind, Hold | None]:
        seen = last_look(
            current,
            listed_updated_at=listed.updated_at,
            resolution=AlertResolution.USED_IN_TESTS,
            comment=COMMENT,
        )
        return seen.kind, seen.hold

    assert look(listed) == (LookKind.APPLY, None)
    mine = _as(
        listed, **resolved, resolution=AlertResolution.USED_IN_TESTS, resolution_comment=COMMENT
    )
    assert look(mine) == (LookKind.DONE, None)
    same_by_a_person = _as(mine, resolution_comment="closing: test data")
    assert look(same_by_a_person) == (LookKind.HELD, Hold.ALREADY_RESOLVED)
    dismissed = _as(mine, resolution=AlertResolution.WONT_FIX)
    assert look(dismissed) == (LookKind.HELD, Hold.ALREADY_RESOLVED)
    assert look(_as(listed, updated_at=later)) == (LookKind.HELD, Hold.CHANGED_SINCE_LISTED)
    active = _as(listed, validity=AlertValidity.ACTIVE)
    assert look(active) == (LookKind.HELD, Hold.ACTIVE)
