"""Agent files are parsed strictly; every error names the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from thresher.agents.definition import load_agent, parse_agent_file
from thresher.agents.toolspecs import ToolName
from thresher.config.settings import AgentName, AgentSettings, Settings
from thresher.errors import AgentDefinitionError

GOOD = """---
name: judge
description: Weighs the reports.
tools:
  - get_finding
  - submit_judgement
model: openai:gpt-4o
---

You are the judge.
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "judge.agent.md"
    path.write_text(text)
    return path


def test_bundled_agents_parse() -> None:
    for name in AgentName:
        agent = load_agent(name, Settings())
        assert agent.name is name
        assert agent.model == "heuristic:default"
        assert len(agent.system_prompt.splitlines()) > 20
        assert ToolName.SKILL in agent.tools


def test_good_file(tmp_path: Path) -> None:
    agent = parse_agent_file(write(tmp_path, GOOD), AgentName.JUDGE)
    assert agent.tools == (ToolName.GET_FINDING, ToolName.SUBMIT_JUDGEMENT)
    assert agent.model == "openai:gpt-4o"
    assert agent.system_prompt == "You are the judge.\n"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "model: openai:gpt-4o\n",
            "model: openai:gpt-4o\ntemperature: 0\n",
            "unknown key(s): temperature",
        ),
        ("model: openai:gpt-4o\n", "", "missing key(s): model"),
        ("  - get_finding\n", "  - shell\n", "unknown tool 'shell'"),
        ("  - submit_judgement\n", "  - get_finding\n", "must allow its submit tool"),
        ("  - get_finding\n", "  - submit_report\n", "may not use submit_report"),
        ("model: openai:gpt-4o", "model: gpt-4o", "model must be 'provider:model'"),
        ("name: judge", "name: jury", "name must be one of"),
        ("name: judge", "name: analysis", "this file defines the judge agent"),
        ("description: Weighs the reports.", "description: [unclosed", "invalid YAML"),
        (
            "tools:\n  - get_finding\n  - submit_judgement\n",
            "tools: get_finding\n",
            "tools must be a non-empty list",
        ),
        ("\nYou are the judge.\n", "\n", "the body (the system prompt) is empty"),
    ],
)
def test_strict_errors_name_the_file(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(AgentDefinitionError) as caught:
        parse_agent_file(path, AgentName.JUDGE)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_missing_frontmatter(tmp_path: Path) -> None:
    with pytest.raises(AgentDefinitionError, match="missing YAML frontmatter"):
        parse_agent_file(write(tmp_path, "You are the judge.\n"))


def test_config_replaces_definition_and_overrides_model(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    settings = Settings(
        agents={AgentName.JUDGE: AgentSettings(definition=path, model="anthropic:claude")}
    )
    agent = load_agent(AgentName.JUDGE, settings)
    assert agent.path == path and agent.model == "anthropic:claude"


def test_missing_configured_definition(tmp_path: Path) -> None:
    settings = Settings(agents={AgentName.JUDGE: AgentSettings(definition=tmp_path / "no.md")})
    with pytest.raises(AgentDefinitionError, match="agent file not found"):
        load_agent(AgentName.JUDGE, settings)
