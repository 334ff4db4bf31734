"""The self-test workflow's own scripts, run here as the runner would run them.

The steps that build the fixture repository, point the event payload at its commits and check
the action's outputs are shell and Python inside ``self-test.yml``; a typo there would only
show on GitHub. These tests run them with the runner's environment files, with ``thresher
scan`` standing in for the action (``thresher ci`` runs the same scan), and check that the
expectations the workflow asserts (one SARIF result, at ``deploy/prod.env`` line 2; exit 1
under ``--fail-on real``) are what thresher really produces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.tokens import github_token

from .tools import ROOT, offline_env, run

WORKFLOW = ROOT / ".github" / "workflows" / "self-test.yml"


pytestmark = pytest.mark.slow


def _steps() -> dict[str, dict[str, Any]]:
    steps = yaml.safe_load(WORKFLOW.read_text())["jobs"]["action"]["steps"]
    return {step.get("name", step.get("uses", "")): step for step in steps}


def _step(prefix: str) -> str:
    script = next(s["run"] for name, s in _steps().items() if name.startswith(prefix))
    assert "${{" not in script  # values reach scripts through env:, never spliced in
    return str(script)


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def _workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The checkout as the runner leaves it: the action's files and the checkout's .git."""
    workspace = tmp_path / "workspace"
    (workspace / ".git").mkdir(parents=True)
    (workspace / "action.yml").write_text("name: thresher\n")
    (workspace / "src").mkdir()
    (workspace / "src" / "config.py").write_text(f'TOKEN = "{github_token(seed=41)}"\n')
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = offline_env(
        RUNNER_TEMP=str(temp),
        GITHUB_OUTPUT=str(temp / "output"),
        GITHUB_WORKSPACE=str(workspace),
    )
    (temp / "output").write_text("")
    return workspace, env


def _bash(script: str, cwd: Path, env: dict[str, str]) -> None:
    result = run(["bash", "-e", "-c", script], cwd, env, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("event_name", ["pull_request", "push", "workflow_dispatch"])
def test_the_self_test_passes_on_what_thresher_produces(tmp_path: Path, event_name: str) -> None:
    workspace, env = _workspace(tmp_path)
    temp = Path(env["RUNNER_TEMP"])
    _bash(_step("Build the fixture"), workspace, env)
    commits = _outputs(temp / "output")
    assert (temp / "thresher.git").is_dir()  # the checkout's own history is set aside

    event_path = temp / "event.json"
    event_path.write_text(
        json.dumps(
            {
                "pull_request": {"number": 7, "base": {"sha": "0" * 40}, "head": {"sha": "1" * 40}},
                "before": "2" * 40,
                "after": "3" * 40,
            }
        )
    )
    env.update(
        GITHUB_EVENT_NAME=event_name,
        GITHUB_EVENT_PATH=str(event_path),
        BASE=commits["base"],
        HEAD=commits["head"],
    )
    _bash(_step("Point the event"), workspace, env)
    event = json.loads(event_path.read_text())
    if event_name == "pull_request":
        assert event["pull_request"]["base"]["sha"] == commits["base"]
        assert event["pull_request"]["head"]["sha"] == commits["head"]
    elif event_name == "push":
        assert (event["before"], event["after"]) == (commits["base"], commits["head"])

    # The action's scan: the range for pull_request and push, the whole tree otherwise.
    scope = [] if event_name == "workflow_dispatch" else ["--diff", f"{env['BASE']}..{env['HEAD']}"]
    sarif, report = temp / "thresher.sarif", temp / "thresher.json"
    scanned = run(
        [
            "thresher",
            "scan",
            *scope,
            "--escalate",
            "never",
            "--fail-on",
            "never",
            "--sarif",
            sarif,
            "--json",
            report,
        ],
        workspace,
        env,
    )
    assert scanned.returncode == 0, scanned.stderr
    assert "src/config.py" not in scanned.stderr  # the action's files are not the fixture
    assert "app/settings.py" in scanned.stderr
    gate = run(["thresher", "scan", *scope, "--escalate", "never"], workspace, env)
    assert gate.returncode == 1, gate.stderr

    # The action's counts come from the same report as this JSON summary.
    summary = json.loads(report.read_text())["summary"]
    check = _step("Check the outputs")
    env.update(
        SARIF=str(sarif),
        SARIF_OUTPUT=str(sarif),
        FINDINGS=str(summary["findings"]),
        TRUE_POSITIVE=str(summary["true_positive"]),
        FALSE_POSITIVE=str(summary["false_positive"]),
        INCONCLUSIVE=str(summary["inconclusive"]),
        GATE_OUTCOME="failure",
    )
    passed = run(["bash", "-e", "-c", check], workspace, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_the_self_test_fails_when_the_gate_does_not(tmp_path: Path) -> None:
    """The check step has teeth: a SARIF without the token, or a passing gate, is an error."""
    sarif = tmp_path / "empty.sarif"
    sarif.write_text(json.dumps({"version": "2.1.0", "runs": [{"results": []}]}))
    env = offline_env(
        SARIF=str(sarif),
        SARIF_OUTPUT="",
        FINDINGS="0",
        TRUE_POSITIVE="0",
        FALSE_POSITIVE="0",
        INCONCLUSIVE="0",
        GATE_OUTCOME="success",
    )
    failed = run(["bash", "-e", "-c", _step("Check the outputs")], tmp_path, env)
    assert failed.returncode == 1
    errors = [line for line in failed.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 4, failed.stdout  # the sarif output, the results, the counts, the gate


def test_the_self_test_runs_the_local_action_read_only() -> None:
    document = yaml.safe_load(WORKFLOW.read_text())
    assert document["permissions"] == {"contents": "read"}
    runs = [s for s in _steps().values() if s.get("uses") == "./"]
    assert len(runs) == 2
    for step in runs:
        assert step["with"]["comment"] is False
        assert step["with"]["escalate"] == "never"
    assert {s["with"]["fail-on"] for s in runs} == {"never", "real"}
