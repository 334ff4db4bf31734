"""Sessions about a vulnerable dependency get dependency prompts, skills and tools only;
sessions about a secret never get the dependency ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tribunal.dependency_world import (
    VULN_ID,
    advisory,
    dependency_finding,
    simple_range_check,
)
from thresher.agents.definition import load_agent
from thresher.agents.deptools import dependency_handlers, ecosystem_of
from thresher.agents.prompts import PromptRenderer
from thresher.agents.render import build_input
from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.toolspecs import ToolName
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, AgentSkills, Settings
from thresher.deps.catalog import InMemoryCatalog
from thresher.findings import Finding
from thresher.skills import SkillLoader

SECRET = Finding.model_validate(
    {
        "id": "f-1",
        "rule_id": "AWS Access Key",
        "fingerprint": "sha256:ab",
        "redacted": "AKIA…MPLE (20 chars)",
        "locations": [{"path": "deploy/prod.env", "line": 4}],
    }
)
SECRET_TOOLS = {ToolName.VALIDATE_SECRET, ToolName.LIST_SECRET_VALIDATORS}
DEPENDENCY_TOOLS = {ToolName.FIND_IMPORTS, ToolName.GET_VULNERABILITY}


def render(agent: AgentName, finding: Finding):  # type: ignore[no-untyped-def]
    return build_input(
        load_agent(agent, Settings()),
        SkillLoader().load(agent, AgentSkills()),
        finding,
        PromptRenderer(),
    )


def skill_names(agent: AgentName, finding: Finding) -> set[str]:
    rendered = render(agent, finding)
    [skill_tool] = [t for t in rendered.tools if t.name is ToolName.SKILL]
    return set(skill_tool.parameters["properties"]["names"]["items"]["enum"])


@pytest.mark.parametrize("agent", list(AgentName))
def test_a_dependency_never_gets_secret_skills_nor_a_secret_dependency_skills(
    agent: AgentName,
) -> None:
    loaded = SkillLoader().load(agent, AgentSkills())
    dependency_only = {s.name for s in loaded.enabled if s.kinds == ("dependency",)}
    secret_only = {
        s.name
        for s in loaded.enabled
        if s.kinds == ("secret",) and s.applies_to(SECRET.effective_secret_type)
    }
    assert dependency_only and secret_only
    for_dependency = skill_names(agent, dependency_finding())
    for_secret = skill_names(agent, SECRET)
    assert for_dependency == dependency_only
    assert for_secret == secret_only
    assert "dependency-intake" not in render(agent, SECRET).catalog
    assert "finding-intake" not in render(agent, dependency_finding()).catalog


@pytest.mark.parametrize("agent", [AgentName.ANALYSIS, AgentName.CHALLENGER])
def test_tools_follow_the_finding_kind(agent: AgentName) -> None:
    dependency = {t.name for t in render(agent, dependency_finding()).tools}
    secret = {t.name for t in render(agent, SECRET).tools}
    assert dependency >= DEPENDENCY_TOOLS and not dependency & SECRET_TOOLS
    assert secret >= SECRET_TOOLS and not secret & DEPENDENCY_TOOLS


@pytest.mark.parametrize(
    ("agent", "heading"),
    [
        (AgentName.ANALYSIS, "# Task: analyse one vulnerable-dependency finding"),
        (AgentName.CHALLENGER, "# Task: challenge one analysis report on a vulnerable dependency"),
        (AgentName.JUDGE, "# Task: judge the analyses of one vulnerable-dependency finding"),
    ],
)
def test_a_dependency_gets_the_dependency_task_prompt(agent: AgentName, heading: str) -> None:
    task = render(agent, dependency_finding()).task_prompt
    assert task.startswith(heading)
    assert "`affected`" in task and "`not_affected`" in task
    assert "rotate" not in task.lower()
    assert render(agent, SECRET).task_prompt != task


def handlers(tmp_path: Path, catalog: InMemoryCatalog | None, **kwargs: object):  # type: ignore[no-untyped-def]
    (tmp_path / "app.py").write_text("import yaml_lib\n")
    return dependency_handlers(
        dependency_finding(**kwargs),  # type: ignore[arg-type]
        catalog,
        simple_range_check,
        Workspace(tmp_path),
    )


def call(handler, arguments: dict[str, object]) -> ToolOutput:  # type: ignore[no-untyped-def]
    output = handler(arguments)
    assert isinstance(output, ToolOutput)
    return output


def test_get_vulnerability_places_the_version_against_the_ranges(tmp_path: Path) -> None:
    catalog = InMemoryCatalog([advisory(symbols=("load",))])
    tools = handlers(tmp_path, catalog)
    data = call(tools[ToolName.GET_VULNERABILITY], {"id": VULN_ID}).data
    assert data["package"]["version_in_range"] is True
    assert data["package"]["fixed_versions"] == ["2.0.0"]
    assert data["package"]["symbols"] == ["load"]
    # found by alias too
    aliased = call(tools[ToolName.GET_VULNERABILITY], {"id": "CVE-2024-0001"}).data
    assert aliased["id"] == VULN_ID
    outside = handlers(tmp_path, catalog, version="2.0.0")
    assert (
        call(outside[ToolName.GET_VULNERABILITY], {"id": VULN_ID}).data["package"][
            "version_in_range"
        ]
        is False
    )


def test_get_vulnerability_errors_are_tool_errors(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="unknown vulnerability id"):
        handlers(tmp_path, InMemoryCatalog())[ToolName.GET_VULNERABILITY]({"id": "GHSA-nope"})
    with pytest.raises(ToolError, match="no vulnerability database"):
        handlers(tmp_path, None)[ToolName.GET_VULNERABILITY]({"id": VULN_ID})
    with pytest.raises(ToolError, match="invalid arguments"):
        handlers(tmp_path, None)[ToolName.GET_VULNERABILITY]({"id": ""})


def test_find_imports_defaults_to_the_findings_ecosystem(tmp_path: Path) -> None:
    tools = handlers(tmp_path, InMemoryCatalog([advisory()]))
    output = call(tools[ToolName.FIND_IMPORTS], {"package": "yaml-lib"})
    assert output.data["ecosystem"] == "PyPI" and output.data["imported"] is True
    assert json.dumps(output.data)  # structured data for the rules, serialisable
    with pytest.raises(ToolError, match="unsupported ecosystem"):
        tools[ToolName.FIND_IMPORTS]({"package": "x", "ecosystem": "Maven"})


def test_ecosystem_names_are_read_as_osv_spells_them() -> None:
    assert ecosystem_of("pypi").value == "PyPI"
    assert ecosystem_of("crates.io").value == "crates.io"
