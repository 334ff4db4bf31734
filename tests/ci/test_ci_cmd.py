"""``thresher ci`` through the real CLI boundary: events, options, errors and exit codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.ci.conftest import REPO, PullRequestRepo, pull_request_payload, push_payload
from tests.ci.emulator import parse_output_file
from typer.testing import CliRunner, Result

from thresher.ci.event import ZERO_SHA
from thresher.cli import app

API = "https://api.github.com"
Ci = Callable[..., Result]


@pytest.fixture
def ci(pr_repo: PullRequestRepo, monkeypatch: pytest.MonkeyPatch) -> Ci:
    """Run ``thresher ci`` in the workspace with the runner's variables set."""
    root = pr_repo.root
    monkeypatch.chdir(root)
    files = root.parent / "runner"
    files.mkdir()

    def invoke(event: str, payload: dict[str, Any], sha: str, *args: str) -> Result:
        event_path = files / "event.json"
        event_path.write_text(json.dumps(payload))
        for name in ("output", "summary"):
            (files / name).write_text("")
        for name, value in {
            "GITHUB_EVENT_NAME": event,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_SHA": sha,
            "GITHUB_WORKSPACE": str(root),
            "GITHUB_OUTPUT": str(files / "output"),
            "GITHUB_STEP_SUMMARY": str(files / "summary"),
        }.items():
            monkeypatch.setenv(name, value)
        return CliRunner().invoke(app, list(args) or ["ci"])

    return invoke


def outputs(pr_repo: PullRequestRepo) -> dict[str, str]:
    return parse_output_file((pr_repo.root.parent / "runner/output").read_text())


def summary(pr_repo: PullRequestRepo) -> str:
    return (pr_repo.root.parent / "runner/summary").read_text()


def pr(pr_repo: PullRequestRepo) -> dict[str, Any]:
    return pull_request_payload(number=9, base=pr_repo.base, head=pr_repo.head, api=API)


def test_workflow_dispatch_scans_the_whole_tree_and_writes_every_report(
    ci: Ci, pr_repo: PullRequestRepo
) -> None:
    result = ci(
        "workflow_dispatch",
        {"inputs": {}},
        pr_repo.head,
        "ci", "--json", "out/r.json", "--markdown", "out/r.md", "--sarif", "out/r.sarif",
        "--category", "thresher/nightly",
    )  # fmt: skip
    assert result.exit_code == 1, result.stderr
    out = outputs(pr_repo)
    assert out["sarif"] == "out/r.sarif" and out["json"] == "out/r.json"
    assert out["comment"] == "disabled"  # not a pull request
    sarif = json.loads((pr_repo.root / "out/r.sarif").read_text())
    assert sarif["runs"][0]["automationDetails"]["id"] == "thresher/nightly/"
    report = json.loads((pr_repo.root / "out/r.json").read_text())
    assert [d["finding"]["locations"][0]["path"] for d in report["decisions"]] == ["app/deploy.py"]
    assert (pr_repo.root / "out/r.md").read_text() == summary(pr_repo)
    assert "the whole tree (workflow_dispatch)" in summary(pr_repo)
    for path in ("out/r.sarif", "out/r.json", "out/r.md"):
        assert pr_repo.token not in (pr_repo.root / path).read_text()
    assert pr_repo.token not in result.stdout + result.stderr + json.dumps(out)


def test_a_new_branch_push_scans_what_it_adds_beyond_the_default_branch(
    ci: Ci, pr_repo: PullRequestRepo
) -> None:
    result = ci("push", push_payload(before=ZERO_SHA, after=pr_repo.head), pr_repo.head)
    assert result.exit_code == 1, result.stderr
    assert "a new branch adds beyond main" in summary(pr_repo)
    assert outputs(pr_repo)["true-positive"] == "1"


def test_a_deleted_branch_writes_empty_valid_outputs_and_passes(
    ci: Ci, pr_repo: PullRequestRepo
) -> None:
    result = ci("push", push_payload(before=pr_repo.head, after=ZERO_SHA), pr_repo.head)
    assert result.exit_code == 0, result.stderr
    assert outputs(pr_repo)["findings"] == "0"
    sarif = json.loads((pr_repo.root / "thresher.sarif").read_text())
    assert sarif["runs"][0]["results"] == []
    assert "nothing to scan" in summary(pr_repo)


def test_fail_on_and_paths_decide_the_exit_code(ci: Ci, pr_repo: PullRequestRepo) -> None:
    never = ci(
        "pull_request", pr(pr_repo), pr_repo.head, "ci", "--no-comment", "--fail-on", "never"
    )
    assert never.exit_code == 0, never.stderr
    assert "::warning file=app/deploy.py,line=3" in never.stdout
    elsewhere = ci(
        "pull_request", pr(pr_repo), pr_repo.head, "ci", "--no-comment", "--paths", "README.md\n"
    )
    assert elsewhere.exit_code == 0, elsewhere.stderr
    assert outputs(pr_repo)["findings"] == "0"
    outside = ci("pull_request", pr(pr_repo), pr_repo.head, "ci", "--paths", "../etc")
    assert outside.exit_code == 2 and "outside the workspace" in outside.stderr


def test_without_a_token_the_comment_is_skipped_with_a_line_in_the_summary(
    ci: Ci, pr_repo: PullRequestRepo
) -> None:
    result = ci("pull_request", pr(pr_repo), pr_repo.head)
    assert result.exit_code == 1, result.stderr
    assert outputs(pr_repo)["comment"] == "skipped"
    assert "GITHUB_TOKEN is not set" in summary(pr_repo)


def test_an_explicit_config_the_pull_request_adds_is_refused(
    ci: Ci, pr_repo: PullRequestRepo
) -> None:
    head = pr_repo.commit("own config", {".github/thresher.toml": "color = true\n"})
    payload = pull_request_payload(number=9, base=pr_repo.base, head=head, api=API)
    result = ci("pull_request", payload, head, "--config", ".github/thresher.toml", "ci")
    assert result.exit_code == 2
    assert "does not exist at the base commit" in result.stderr
    assert "hint:" in result.stderr


def test_an_explicit_config_is_read_from_the_base_commit_and_may_not_name_paths(
    ci: Ci, pr_repo: PullRequestRepo
) -> None:
    """The base branch gained the config after the pull request branched off: the base
    commit (not the merge base) has it, and in a pull request it may not name paths."""
    from tests.gitrepo import git

    git(pr_repo.root, "checkout", "-q", "main")
    good = pr_repo.commit("ops config", {".github/thresher.toml": "color = false\n"})
    bad = pr_repo.commit("ops paths", {".github/paths.toml": 'prompts_dir = "prompts"\n'})
    git(pr_repo.root, "checkout", "-q", "feature")
    for base, config, code in ((good, "thresher.toml", 1), (bad, "paths.toml", 2)):
        payload = pull_request_payload(number=9, base=base, head=pr_repo.head, api=API)
        args = ("--config", f".github/{config}", "ci", "--no-comment")
        result = ci("pull_request", payload, pr_repo.head, *args)
        assert result.exit_code == code, result.stderr
    assert f".github/paths.toml at {bad[:12]}: 'prompts_dir' names a path" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("ci", "--category", "bad category"), "--category"),
        (("ci", "--sarif", "."), "--sarif . is a directory"),
    ],
)
def test_bad_options_are_usage_errors(
    ci: Ci, pr_repo: PullRequestRepo, args: tuple[str, ...], message: str
) -> None:
    result = ci("pull_request", pr(pr_repo), pr_repo.head, *args)
    assert result.exit_code == 2 and message in result.stderr


def test_outside_actions_the_error_says_what_is_missing(
    cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    result = cli("ci")
    assert result.exit_code == 2
    assert "GITHUB_EVENT_NAME is not set" in result.stderr
    assert "thresher scan" in result.stderr  # the hint


def test_help_lists_the_ci_command(cli: Callable[..., Result], tmp_path: Path) -> None:
    result = cli("ci", "--help")
    assert result.exit_code == 0
    for option in ("--fail-on", "--escalate", "--comment", "--sarif", "--category", "--paths"):
        assert option in result.stdout
