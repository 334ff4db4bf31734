"""``agents render``: what each agent would receive, with nothing sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from thresher.agents.definition import load_agent
from thresher.agents.prompts import PromptRenderer
from thresher.agents.render import build_input, load_finding
from thresher.agents.toolspecs import ToolName
from thresher.config.settings import AgentName, AgentSkills, Settings
from thresher.errors import UsageError
from thresher.findings import Finding
from thresher.skills import SkillLoader

FINDING = {
    "id": "f-1",
    "rule_id": "AWS Access Key",
    "fingerprint": "sha256:ab",
    "redacted": "AKIA…MPLE (20 chars)",
    "locations": [{"path": "deploy/prod.env", "line": 4}],
}


def render(agent: AgentName, finding: Finding | None = None):  # type: ignore[no-untyped-def]
    skills = SkillLoader().load(agent, AgentSkills())
    return build_input(
        load_agent(agent, Settings()),
        skills,
        finding or Finding.model_validate(FINDING),
        PromptRenderer(),
    )


def test_analysis_input_has_prompt_task_catalog_and_tools() -> None:
    rendered = render(AgentName.ANALYSIS)
    assert rendered.system_prompt.startswith("You are")
    assert "`f-1`" in rendered.task_prompt
    assert "AKIA…MPLE (20 chars)" in rendered.task_prompt
    assert rendered.catalog in rendered.task_prompt
    assert "- `aws-keys`" in rendered.task_prompt  # required for this type
    assert "- `github-tokens`" not in rendered.task_prompt  # not required for this type
    names = [tool.name for tool in rendered.tools]
    assert names[-1] is ToolName.SUBMIT_REPORT
    skill_tool = next(t for t in rendered.tools if t.name is ToolName.SKILL)
    names = skill_tool.parameters["properties"]["names"]["items"]["enum"]
    assert "finding-intake" in names and "aws-keys" in names
    assert "github-tokens" not in names and 'name="github-tokens"' not in rendered.catalog
    submit = next(t for t in rendered.tools if t.name is ToolName.SUBMIT_REPORT)
    assert "confidence_factors" in submit.parameters["properties"]


@pytest.mark.parametrize("agent", [AgentName.CHALLENGER, AgentName.JUDGE])
def test_challenger_and_judge_render_with_runtime_placeholders(agent: AgentName) -> None:
    rendered = render(agent)
    assert "filled at run time" in rendered.task_prompt
    assert json.loads(json.dumps(rendered.to_dict()))["agent"] == agent.value


def test_finding_file_errors_name_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "finding.json"
    bad.write_text(json.dumps({**FINDING, "locations": [{"path": "x", "line": 0}]}))
    with pytest.raises(UsageError, match=r"finding\.json: field 'locations\.0\.file\.line'"):
        load_finding(bad)
    bad.write_text("{not json")
    with pytest.raises(UsageError, match="not valid JSON"):
        load_finding(bad)
    with pytest.raises(UsageError, match="cannot read --finding file"):
        load_finding(tmp_path / "missing.json")
