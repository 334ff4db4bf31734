"""Agent definitions: ``agents/<name>.agent.md`` parsed strictly.

Frontmatter holds exactly ``name``, ``description``, ``tools`` and ``model``; the
body is the system prompt. An unknown key, an unknown tool or a YAML error is an
``AgentDefinitionError`` naming the file, raised before any model is called.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from thresher.config.settings import AgentName, Settings
from thresher.errors import AgentDefinitionError
from thresher.resources import AssetKind, asset_dir
from thresher.skills.parser import FrontmatterLoader, FrontmatterNotClosed, split_frontmatter

from .toolspecs import SUBMIT_TOOLS, ToolName

_KEYS = ("name", "description", "tools", "model")
_SUBMIT_FOR: dict[AgentName, ToolName] = {
    AgentName.ANALYSIS: ToolName.SUBMIT_REPORT,
    AgentName.CHALLENGER: ToolName.SUBMIT_CHALLENGE,
    AgentName.JUDGE: ToolName.SUBMIT_JUDGEMENT,
}


def submit_tool_for(agent: AgentName) -> ToolName:
    return _SUBMIT_FOR[agent]


@dataclass(frozen=True)
class AgentDefinition:
    name: AgentName
    description: str
    tools: tuple[ToolName, ...]
    model: str
    system_prompt: str
    path: Path


def parse_agent_file(path: Path, expected: AgentName | None = None) -> AgentDefinition:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise AgentDefinitionError(f"cannot read agent file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise AgentDefinitionError(f"{path}: not UTF-8 text") from None

    def fail(message: str) -> AgentDefinitionError:
        return AgentDefinitionError(
            f"{path}: {message}",
            hint="frontmatter needs exactly: name, description, tools (a list), model "
            "(provider:model)",
        )

    try:
        front, body, _ = split_frontmatter(text)
    except FrontmatterNotClosed:
        raise fail("frontmatter is not closed with a '---' line") from None
    if front is None:
        raise fail("missing YAML frontmatter")
    try:
        data = yaml.load(front, Loader=FrontmatterLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise fail(f"invalid YAML{where}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(data, dict):
        raise fail("frontmatter must be a mapping")
    unknown = sorted(str(key) for key in data if key not in _KEYS)
    if unknown:
        raise fail(f"unknown key(s): {', '.join(unknown)}")
    missing = [key for key in _KEYS if key not in data]
    if missing:
        raise fail(f"missing key(s): {', '.join(missing)}")

    try:
        name = AgentName(data["name"])
    except ValueError:
        raise fail(f"name must be one of {', '.join(a.value for a in AgentName)}") from None
    if expected is not None and name is not expected:
        raise fail(f"name '{name.value}' but this file defines the {expected.value} agent")
    description = data["description"]
    if not isinstance(description, str) or not description.strip():
        raise fail("description must be a non-empty string")
    raw_tools = data["tools"]
    if not isinstance(raw_tools, list) or not raw_tools:
        raise fail("tools must be a non-empty list of tool names")
    tools: list[ToolName] = []
    for tool in raw_tools:
        try:
            tools.append(ToolName(str(tool)))
        except ValueError:
            known = ", ".join(t.value for t in ToolName)
            raise fail(f"unknown tool '{tool}'; known tools: {known}") from None
    submit = submit_tool_for(name)
    if submit not in tools:
        raise fail(f"the {name.value} agent must allow its submit tool '{submit.value}'")
    foreign = [t.value for t in tools if t in SUBMIT_TOOLS and t is not submit]
    if foreign:
        raise fail(f"the {name.value} agent may not use {', '.join(foreign)}")
    model = data["model"]
    if not isinstance(model, str) or ":" not in model.strip(":"):
        raise fail(f"model must be 'provider:model', got {model!r}")
    if not body.strip():
        raise fail("the body (the system prompt) is empty")
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        tools=tuple(dict.fromkeys(tools)),
        model=model.strip(),
        system_prompt=body.strip() + "\n",
        path=path,
    )


def load_agent(name: AgentName, settings: Settings) -> AgentDefinition:
    """The bundled definition, or the configured replacement; config may override the model."""
    override = settings.agent(name)
    path = override.definition or asset_dir(AssetKind.AGENTS) / f"{name.value}.agent.md"
    if not path.is_file():
        raise AgentDefinitionError(
            f"agent file not found: {path}",
            hint=f"check agents.{name.value}.definition in your config",
        )
    definition = parse_agent_file(path, expected=name)
    if override.model:
        definition = replace(definition, model=override.model)
    return definition
