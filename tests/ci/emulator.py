"""Run ``action.yml``'s composite steps the way a GitHub runner does, on this machine.

The runner's side of the contract, emulated: ``${{ … }}`` expressions are substituted
(only in ``env:`` and ``with:``; a ``run:`` script must not hold one), each ``run:`` step
runs as ``bash --noprofile --norc -eo pipefail FILE`` in ``GITHUB_WORKSPACE`` with the
step's ``env:`` over the documented runner variables, and ``GITHUB_OUTPUT`` /
``GITHUB_STEP_SUMMARY`` are fresh files per step, read back with the runner's own
``name<<DELIMITER`` rules. The action's outputs are resolved from the step outputs.

Two steps are not run, and the test asserts they are there: ``actions/setup-python``
(a JavaScript action) and the ``pip install`` of the action's directory; the test venv
already has thresher, and ``PYTHONPATH`` points at this checkout's ``src``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import thresher

REPO_ROOT = Path(__file__).resolve().parents[2]
ACTION = REPO_ROOT / "action.yml"
SRC = Path(thresher.__file__).resolve().parents[1]
_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
STEP_TIMEOUT_S = 300


def load_action() -> dict[str, Any]:
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@dataclass
class StepResult:
    name: str
    exit_code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


@dataclass
class JobResult:
    """What one emulated use of the action produced."""

    steps: list[StepResult] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)  # the action's own outputs
    sarif: Any = None  # the SARIF file as this job left it (later jobs overwrite it)

    @property
    def step(self) -> StepResult:
        return self.steps[-1]

    @property
    def exit_code(self) -> int:
        return self.step.exit_code

    @property
    def summary(self) -> str:
        return "".join(s.summary for s in self.steps)

    @property
    def annotations(self) -> list[str]:
        return [
            line
            for line in self.step.stdout.splitlines()
            if line.startswith(("::error", "::warning", "::notice"))
        ]


@dataclass(frozen=True)
class Runner:
    """The job's context: where the repository is checked out and whom to talk to."""

    workspace: Path
    temp: Path  # RUNNER_TEMP: event file, output files
    repository: str
    api_url: str
    token: str

    def run(
        self, event_name: str, payload: Mapping[str, Any], sha: str, inputs: Mapping[str, str]
    ) -> JobResult:
        action = load_action()
        declared = action["inputs"]
        unknown = set(inputs) - set(declared)
        assert not unknown, f"inputs the action does not declare: {unknown}"
        values = {name: str(spec.get("default", "")) for name, spec in declared.items()}
        values.update(inputs)
        self.temp.mkdir(parents=True, exist_ok=True)
        event_path = self.temp / "event.json"
        event_path.write_text(json.dumps(payload), encoding="utf-8")
        runner_env = {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
            "PYTHONPATH": str(SRC),
            "HOME": str(self.temp / "home"),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_API_URL": self.api_url,
            "GITHUB_SHA": sha,
            "GITHUB_WORKSPACE": str(self.workspace),
            "RUNNER_TEMP": str(self.temp),
        }
        context = {
            "github.action_path": str(REPO_ROOT),
            "github.token": self.token,
            "github.workspace": str(self.workspace),
        }
        result = JobResult()
        for index, step in enumerate(action["runs"]["steps"]):
            if "uses" in step or "pip install" in step.get("run", ""):
                continue
            script = step["run"]
            assert "${{" not in script, f"an expression inside run: of {step.get('name')}"
            env = {k: substitute(str(v), values, context) for k, v in step.get("env", {}).items()}
            result.steps.append(self._run_step(index, step, script, {**runner_env, **env}))
            if result.step.exit_code != 0:
                break
        step_outputs = {s.name: s.outputs for s in result.steps}
        for name, spec in action.get("outputs", {}).items():
            m = re.fullmatch(r"\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}", spec["value"])
            assert m, f"output {name} is not a step output"
            result.outputs[name] = step_outputs.get(m[1], {}).get(m[2], "")
        sarif = self.workspace / result.outputs.get("sarif", "")
        if result.outputs.get("sarif") and sarif.is_file():
            result.sarif = json.loads(sarif.read_text(encoding="utf-8"))
        return result

    def _run_step(
        self, index: int, step: Mapping[str, Any], script: str, env: dict[str, str]
    ) -> StepResult:
        assert step.get("shell") == "bash", "composite run steps must name their shell"
        output = self.temp / f"output-{index}"
        summary = self.temp / f"summary-{index}"
        output.write_text("")
        summary.write_text("")
        file = self.temp / f"step-{index}.sh"
        file.write_text(script, encoding="utf-8")
        env = {**env, "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)}
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(file)],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT_S,
            check=False,
        )
        return StepResult(
            name=str(step.get("id", index)),
            exit_code=proc.returncode,
            stdout=proc.stdout,
            stderr=proc.stderr,
            outputs=parse_output_file(output.read_text(encoding="utf-8")),
            summary=summary.read_text(encoding="utf-8"),
        )


def substitute(text: str, inputs: Mapping[str, str], context: Mapping[str, str]) -> str:
    """``${{ inputs.X }}`` and the few ``github.*`` values the action may use."""

    def value(match: re.Match[str]) -> str:
        expression = match[1]
        if expression.startswith("inputs."):
            return inputs[expression.removeprefix("inputs.")]
        if expression in context:
            return context[expression]
        raise AssertionError(f"the emulator does not know ${{{{ {expression} }}}}")

    return _EXPR.sub(value, text)


def parse_output_file(text: str) -> dict[str, str]:
    """The runner's reading of ``$GITHUB_OUTPUT``: ``name=value`` or ``name<<DELIM`` blocks."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            assert i < len(lines), f"unterminated output {name}"
            i += 1
            out[name] = "\n".join(body)
        else:
            name, _, value = line.partition("=")
            out[name] = value
    return out
