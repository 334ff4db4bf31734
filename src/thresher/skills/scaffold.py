"""``skills new`` (scaffold a skill that validates) and ``skills export``.

Export writes each enabled skill as ``<dir>/<name>/SKILL.md`` with standard
frontmatter (thresher's keys moved under ``metadata:``), so tools that read the
Agent Skills layout, such as ``.claude/skills``, load them unchanged.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path

import yaml

from thresher.config.settings import AgentName
from thresher.errors import UsageError
from thresher.skills.discovery import SKILL_FILE, SkillSet
from thresher.skills.model import DEFAULT_KINDS, NAME_MAX, NAME_PATTERN, PHASE_PATTERN, Skill
from thresher.skills.parser import split_frontmatter


def scaffold_skill(
    directory: Path, name: str, agent: AgentName, *, phase: str | None, required: bool
) -> Path:
    """Create ``directory/<agent>/[<phase>/]<name>/SKILL.md``; refuse to overwrite."""
    if len(name) > NAME_MAX or not re.match(NAME_PATTERN, name):
        raise UsageError(
            f"invalid skill name '{name}'",
            hint="use 1-64 lowercase letters, digits and single hyphens, e.g. 'vault-tokens'",
        )
    if phase is not None and not re.match(PHASE_PATTERN, phase):
        raise UsageError(f"invalid --phase '{phase}'", hint="use a form like '3-verification'")
    target = directory / agent.value
    if phase:
        target /= phase
    target /= name
    if target.exists():
        raise UsageError(f"{target} already exists", hint="choose another name or directory")
    metadata: dict[str, str] = {"agent": agent.value, "required": "true" if required else "false"}
    if phase:
        metadata["phase"] = phase
    front = {
        "name": name,
        "description": f"Describe what the {name} skill teaches and when the {agent.value} "
        "agent should load it.",
        "metadata": metadata,
    }
    title = name.replace("-", " ").capitalize()
    body = (
        f"# {title}\n\n## When to use\n\nDescribe the findings this skill applies to.\n\n"
        "## Steps\n\n1. Name the tool calls to make and what to look for in their results.\n\n"
        "## Decision\n\n| Evidence | Classification |\n|---|---|\n"
        "| Describe the evidence | real / test / not_secret |\n"
    )
    target.mkdir(parents=True)
    (target / SKILL_FILE).write_text(_document(front, body), encoding="utf-8")
    return target / SKILL_FILE


def export_skills(skills: SkillSet, destination: Path, *, force: bool) -> list[Path]:
    """Copy the agent's enabled skills to ``destination/<name>/``; all-or-nothing on conflict."""
    enabled = skills.enabled
    conflicts = [destination / s.name for s in enabled if (destination / s.name).exists()]
    if conflicts and not force:
        raise UsageError(
            f"{len(conflicts)} skill(s) already exist in {destination}, e.g. {conflicts[0]}",
            hint="pass --force to overwrite them",
        )
    written: list[Path] = []
    destination.mkdir(parents=True, exist_ok=True)
    for skill in enabled:
        target = destination / skill.name
        if target.exists():
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        if skill.root is not None:
            shutil.copytree(skill.root, target, symlinks=False)
        else:
            target.mkdir()
        (target / SKILL_FILE).write_text(_standard_document(skill), encoding="utf-8")
        written.append(target)
    return written


def _standard_document(skill: Skill) -> str:
    metadata = dict(skill.metadata)
    metadata["agent"] = skill.agent.value
    metadata["required"] = "true" if skill.required else "false"
    if skill.phase:
        metadata["phase"] = skill.phase
    if skill.secret_type_label:
        metadata["secret-type"] = skill.secret_type_label
    if skill.kinds != DEFAULT_KINDS:
        metadata["kind"] = skill.kind_label  # a dependency skill exported stays one
    front: dict[str, object] = {"name": skill.name, "description": skill.description}
    for key, value in (
        ("license", skill.license),
        ("compatibility", skill.compatibility),
        ("allowed-tools", skill.allowed_tools),
    ):
        if value:
            front[key] = value
    front["metadata"] = metadata
    # The skill parsed when it was loaded, so its frontmatter is well-formed.
    _, body, _ = split_frontmatter(skill.path.read_text(encoding="utf-8"))
    return _document(front, body.lstrip("\n"))


def _document(front: Mapping[str, object], body: str) -> str:
    header = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{header}---\n\n{body}"
