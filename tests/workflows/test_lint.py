"""Every workflow and the action validate against GitHub's schemas and pass zizmor's audits.

Run offline: check-jsonschema's GitHub schemas are vendored in the package and zizmor runs
with ``--offline``. ``action.yml`` is checked once it exists at the repository root (the
composite action lands on its own branch); the list of workflows is asserted, so a missing
directory fails here rather than leaving the parametrized checks with nothing to check.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from .tools import ACTIONS, HOOKS, ROOT, WORKFLOWS, run, tool

SEVERITIES = ("Unknown", "Informational", "Low", "Medium", "High")


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


def test_the_workflows_are_all_here() -> None:
    assert set(_ids(WORKFLOWS)) >= {
        ".github/workflows/ci.yml",
        ".github/workflows/self-test.yml",
        "examples/workflows/pr-scan.yml",
        "examples/workflows/secret-triage.yml",
    }


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=_ids(WORKFLOWS))
def test_workflow_validates_against_the_github_workflow_schema(workflow: Path) -> None:
    result = run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", workflow], ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "action",
    ACTIONS or [pytest.param(None, marks=pytest.mark.skip(reason="no action.yml at the root yet"))],
    ids=_ids(ACTIONS) or ["action.yml"],
)
def test_action_validates_against_the_github_action_schema(action: Path) -> None:
    result = run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", action], ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    """The check has teeth: a job without runs-on or steps is refused."""
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  build:\n    name: no runner, no steps\n")
    result = run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", broken], ROOT
    )
    assert result.returncode == 1, result.stdout + result.stderr


def zizmor_findings(path: Path) -> list[dict[str, Any]]:
    """zizmor's findings at medium severity or above, regular persona, no network."""
    result = run(
        [
            tool("zizmor"), "--offline", "--persona", "regular", "--min-severity", "medium",
            "--format", "json", "--no-progress", "--color", "never", path,
        ],
        ROOT,
    )  # fmt: skip
    try:
        findings: list[dict[str, Any]] = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"zizmor exited {result.returncode} without a report: {result.stderr}")
    return [
        f
        for f in findings
        if SEVERITIES.index(f["determinations"]["severity"]) >= SEVERITIES.index("Medium")
    ]


@pytest.mark.parametrize(
    "path", [*WORKFLOWS, *ACTIONS, HOOKS], ids=_ids([*WORKFLOWS, *ACTIONS, HOOKS])
)
def test_zizmor_finds_nothing_at_medium_or_above(path: Path) -> None:
    findings = zizmor_findings(path)
    assert findings == [], [
        (f["ident"], f["determinations"]["severity"], f["desc"], f["locations"][0]["concrete"])
        for f in findings
    ]


def test_zizmor_catches_what_it_should(tmp_path: Path) -> None:
    """The audit has teeth: ``${{ github.event.* }}`` spliced into a script is reported."""
    workflow = tmp_path / ".github" / "workflows" / "bad.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(
        "on: pull_request_target\n"
        "permissions: {}\n"
        "jobs:\n"
        "  greet:\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        '      - run: echo "${{ github.event.pull_request.title }}"\n'
    )
    assert {f["ident"] for f in zizmor_findings(workflow)} >= {"template-injection"}


def _steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in document:
        return list(document["runs"].get("steps", []))
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


_PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


@pytest.mark.parametrize("path", [*WORKFLOWS, *ACTIONS], ids=_ids([*WORKFLOWS, *ACTIONS]))
def test_every_action_is_pinned_to_a_full_sha_with_its_version(path: Path) -> None:
    """A tag can be moved by whoever controls the action; a commit SHA cannot."""
    text = path.read_text()
    for step in _steps(yaml.safe_load(text)):
        uses = step.get("uses")
        if uses is None or uses.startswith("./"):
            continue
        assert _PINNED.match(uses), f"{path.name}: {uses} is not pinned to a commit SHA"
        line = next(line for line in text.splitlines() if f"uses: {uses}" in line)
        assert re.search(r"#\s*v\S+", line), f"{path.name}: {uses} has no version comment"


@pytest.mark.parametrize("path", WORKFLOWS, ids=_ids(WORKFLOWS))
def test_no_workflow_runs_pull_request_code_with_pull_request_target(path: Path) -> None:
    """pull_request_target gives a write token and secrets to a job that checks out the PR."""
    triggers = yaml.safe_load(path.read_text())[True]  # YAML 1.1 reads the key `on` as True
    names = triggers if isinstance(triggers, list | str) else list(triggers)
    assert "pull_request_target" not in names


@pytest.mark.parametrize("path", WORKFLOWS, ids=_ids(WORKFLOWS))
def test_checkouts_do_not_keep_the_token(path: Path) -> None:
    for step in _steps(yaml.safe_load(path.read_text())):
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, path.name


def test_ci_runs_the_readme_test_command_on_every_supported_python() -> None:
    """ci.yml runs .ci/run, which runs the block after <!-- quickstart:test --> in README.md."""
    document = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    assert document["permissions"] == {"contents": "read"}
    (job,) = document["jobs"].values()
    assert job["strategy"]["matrix"]["python-version"] == ["3.11", "3.12", "3.13"]
    setup = next(s for s in job["steps"] if "setup-python" in s.get("uses", ""))
    assert setup["with"]["python-version"] == "${{ matrix.python-version }}"
    assert [s["run"] for s in job["steps"] if "run" in s] == [".ci/run"]
    assert "<!-- quickstart:test -->" in (ROOT / ".ci/run").read_text()
