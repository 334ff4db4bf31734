"""From the runner environment and event payload to what ``thresher ci`` scans."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.ci.conftest import (
    REPO,
    PullRequestRepo,
    make_pr_repo,
    pull_request_payload,
    push_payload,
)
from tests.gitrepo import git

from thresher.ci.event import ZERO_SHA, EventName, RunnerEnv, read_event
from thresher.ci.scope import MissingHistoryError, ScopeKind, resolve_scope
from thresher.errors import ExitCode, UsageError

API = "https://api.github.com"


def environ(root: Path, name: str, payload: dict[str, Any], sha: str) -> dict[str, str]:
    event = root.parent / f"event-{name}.json"
    event.write_text(json.dumps(payload))
    return {
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_SHA": sha,
        "GITHUB_WORKSPACE": str(root),
    }


def scope_of(root: Path, name: str, payload: dict[str, Any], sha: str) -> Any:
    runner = RunnerEnv.from_environ(environ(root, name, payload, sha))
    return resolve_scope(read_event(runner), runner.workspace)


def test_a_pull_request_is_scanned_from_the_merge_base_of_base_and_head(
    pr_repo: PullRequestRepo,
) -> None:
    # The base branch moves on after the pull request was opened.
    git(pr_repo.root, "checkout", "-q", "main")
    moved = pr_repo.commit("main moves on", {"docs/new.md": "more\n"})
    git(pr_repo.root, "checkout", "-q", "feature")
    payload = pull_request_payload(number=5, base=moved, head=pr_repo.head, api=API)
    scope = scope_of(pr_repo.root, "pull_request_target", payload, moved)
    assert scope.kind is ScopeKind.RANGE
    assert (scope.base, scope.head) == (pr_repo.base, pr_repo.head)
    assert scope.diff == f"{pr_repo.base}..{pr_repo.head}"
    assert "pull request #5" in scope.description


def test_fork_pull_requests_are_recognised(pr_repo: PullRequestRepo) -> None:
    payload = pull_request_payload(
        number=5, base=pr_repo.base, head=pr_repo.head, api=API, head_repository="someone/app"
    )
    runner = RunnerEnv.from_environ(environ(pr_repo.root, "pull_request", payload, pr_repo.head))
    event = read_event(runner)
    assert event.pull_request is not None and event.pull_request.fork
    assert event.pull_request.number == 5 and event.name.is_pull_request


def test_a_push_scans_before_to_after(pr_repo: PullRequestRepo) -> None:
    scope = scope_of(
        pr_repo.root, "push", push_payload(before=pr_repo.base, after=pr_repo.head), pr_repo.head
    )
    assert scope.kind is ScopeKind.RANGE and scope.diff == f"{pr_repo.base}..{pr_repo.head}"


def test_a_new_branch_is_scanned_from_where_it_leaves_the_default_branch(
    pr_repo: PullRequestRepo,
) -> None:
    payload = push_payload(before=ZERO_SHA, after=pr_repo.head)
    scope = scope_of(pr_repo.root, "push", payload, pr_repo.head)
    assert scope.kind is ScopeKind.RANGE
    assert (scope.base, scope.head) == (pr_repo.base, pr_repo.head)
    assert "a new branch" in scope.description and "beyond main" in scope.description


def test_a_new_branch_without_the_default_branch_in_the_clone_scans_the_whole_tree(
    pr_repo: PullRequestRepo, tmp_path: Path
) -> None:
    clone = tmp_path / "single"
    git(tmp_path, "clone", "-q", "--single-branch", "--branch", "feature",
        f"file://{pr_repo.root}", str(clone))  # fmt: skip
    scope = scope_of(clone, "push", push_payload(before=ZERO_SHA, after=pr_repo.head), pr_repo.head)
    assert scope.kind is ScopeKind.TREE and scope.diff is None
    assert "main is not in the clone" in scope.description
    first_push = push_payload(before=ZERO_SHA, after=pr_repo.base, ref="refs/heads/main")
    scope = scope_of(pr_repo.root, "push", first_push, pr_repo.base)
    assert scope.kind is ScopeKind.TREE and "default branch" in scope.description


def test_a_deleted_branch_has_nothing_to_scan(pr_repo: PullRequestRepo) -> None:
    payload = push_payload(before=pr_repo.head, after=ZERO_SHA)
    scope = scope_of(pr_repo.root, "push", payload, pr_repo.head)
    assert scope.kind is ScopeKind.NOTHING and "deleted" in scope.description


@pytest.mark.parametrize("name", ["workflow_dispatch", "schedule"])
def test_dispatch_and_schedule_scan_the_whole_tree(pr_repo: PullRequestRepo, name: str) -> None:
    payload = {"inputs": {}} if name == "workflow_dispatch" else {"schedule": "0 3 * * *"}
    scope = scope_of(pr_repo.root, name, payload, pr_repo.head)
    assert scope.kind is ScopeKind.TREE and name in scope.description


def test_missing_history_is_an_error_whose_hint_names_fetch_depth(
    pr_repo: PullRequestRepo, tmp_path: Path
) -> None:
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "feature",
        f"file://{pr_repo.root}", str(shallow))  # fmt: skip
    pr = pull_request_payload(number=5, base=pr_repo.base, head=pr_repo.head, api=API)
    with pytest.raises(MissingHistoryError) as caught:
        scope_of(shallow, "pull_request", pr, pr_repo.head)
    assert "base commit" in caught.value.message and "shallow clone" in caught.value.message
    assert caught.value.hint is not None and "fetch-depth: 0" in caught.value.hint
    assert caught.value.exit_code is ExitCode.USAGE
    push = push_payload(before=pr_repo.base, after=pr_repo.head)
    with pytest.raises(MissingHistoryError, match=r"previous tip of the branch \(before\)"):
        scope_of(shallow, "push", push, pr_repo.head)
    # A forced push's old tip is gone for good: scan from the default branch instead.
    forced = push_payload(before="f" * 40, after=pr_repo.head, forced=True)
    assert scope_of(pr_repo.root, "push", forced, pr_repo.head).kind is ScopeKind.RANGE


def test_unrelated_histories_have_no_merge_base(tmp_path: Path) -> None:
    repo = make_pr_repo(tmp_path / "ws")
    git(repo.root, "checkout", "-q", "--orphan", "other")
    other = repo.commit("unrelated", {"x.txt": "x\n"})
    payload = pull_request_payload(number=5, base=repo.base, head=other, api=API)
    with pytest.raises(MissingHistoryError, match="no merge base"):
        scope_of(repo.root, "pull_request", payload, other)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"GITHUB_EVENT_NAME": ""}, "GITHUB_EVENT_NAME is not set"),
        ({"GITHUB_EVENT_NAME": "release"}, "does not support this event"),
        ({"GITHUB_REPOSITORY": "not a repo"}, "is not owner/name"),
        ({"GITHUB_SHA": "HEAD"}, "is not a commit id"),
        ({"GITHUB_WORKSPACE": "/nonexistent/ws"}, "is not a directory"),
        ({"GITHUB_EVENT_PATH": "/nonexistent/event.json"}, "cannot read the event payload"),
    ],
)
def test_a_bad_runner_environment_names_the_variable(
    pr_repo: PullRequestRepo, change: dict[str, str], message: str
) -> None:
    payload = pull_request_payload(number=5, base=pr_repo.base, head=pr_repo.head, api=API)
    env = environ(pr_repo.root, "pull_request", payload, pr_repo.head) | change
    with pytest.raises(UsageError, match=message):
        read_event(RunnerEnv.from_environ(env))


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda p: p["pull_request"]["base"].update(sha="main; rm -rf /"), "pull_request.base.sha"),
        (lambda p: p["pull_request"].pop("head"), "pull_request.head"),
        (lambda p: p["pull_request"].update(number="5"), "pull_request.number"),
    ],
)
def test_a_malformed_payload_names_the_field(
    pr_repo: PullRequestRepo, mutate: Any, field: str
) -> None:
    payload = pull_request_payload(number=5, base=pr_repo.base, head=pr_repo.head, api=API)
    mutate(payload)
    runner = RunnerEnv.from_environ(environ(pr_repo.root, "pull_request", payload, pr_repo.head))
    with pytest.raises(UsageError, match=f"'{field}'"):
        read_event(runner)


def test_every_supported_event_knows_whether_it_is_a_pull_request() -> None:
    assert {e for e in EventName if e.is_pull_request} == {
        EventName.PULL_REQUEST,
        EventName.PULL_REQUEST_TARGET,
    }
