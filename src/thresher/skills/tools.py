"""The ``skill`` and ``read_skill_file`` tool handlers for one agent session.

Both take names and paths chosen by a model, so both are closed: the skill name
must be one of the agent's enabled skills, and a reference path must stay inside
that skill's directory (no absolute paths, no ``..``, no symlink out).
Failures raise ``SkillToolError``; the agent loop hands them back to the model.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from thresher.errors import SkillToolError
from thresher.findings import SecretType
from thresher.skills.compliance import Compliance, compute_compliance
from thresher.skills.discovery import SkillSet
from thresher.skills.model import Skill

MAX_REFERENCE_BYTES = 256 * 1024


MAX_NAMES = 32  # skills one ``skill`` call may load


def skill_tool_schema(skills: SkillSet) -> dict[str, Any]:
    """JSON schema of the ``skill`` tool: ``names``, a list of enabled skills, so a phase
    loads in one call (each request resends the whole conversation: one call per skill
    costs a request and a resend each); ``name`` still loads one."""
    enum = sorted(skill.name for skill in skills.enabled)
    return {
        "type": "object",
        "properties": {
            "names": {
                "type": "array",
                "items": {"type": "string", "enum": enum},
                "minItems": 1,
                "maxItems": MAX_NAMES,
                "description": "the skills to load, from the catalog (a whole phase at once)",
            },
            "name": {
                "type": "string",
                "enum": enum,
                "description": "one skill to load, when not using names",
            },
        },
        "additionalProperties": False,
    }


READ_SKILL_FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "skill": {"type": "string", "description": "a skill name from the catalog"},
        "path": {"type": "string", "description": "a reference file path listed by the skill"},
    },
    "required": ["skill", "path"],
    "additionalProperties": False,
}


class SkillSession:
    """Skill activations of one agent session, de-duplicated, feeding compliance."""

    def __init__(self, skills: SkillSet) -> None:
        self.skills = skills
        self._loaded: list[str] = []

    @property
    def loaded(self) -> tuple[str, ...]:
        return tuple(self._loaded)

    def _enabled(self, name: str) -> Skill:
        skill = self.skills.get(name)
        if skill is None:
            known = ", ".join(sorted(s.name for s in self.skills.enabled))
            raise SkillToolError(f"unknown skill '{name}'; available: {known}")
        return skill

    def activate(self, name: str) -> str:
        """The skill body in ``<skill_content>`` plus its reference files; once per session."""
        skill = self._enabled(name)
        if name in self._loaded:
            return (
                f'<skill_content name="{skill.name}" already_loaded="true">'
                "This skill was already loaded earlier in this session; its content is "
                "above.</skill_content>"
            )
        self._loaded.append(name)
        lines = [f'<skill_content name="{skill.name}">', skill.body.strip(), "</skill_content>"]
        if skill.references:
            lines.append(f'<skill_references skill="{skill.name}">')
            lines += [f"- {ref}" for ref in skill.references]
            lines.append("</skill_references>")
            lines.append("Read a reference with read_skill_file(skill, path).")
        return "\n".join(lines)

    def activate_all(self, names: list[str]) -> str:
        """Several skills in one answer, in the order asked; every name is checked before
        any is loaded, so a typo loads nothing and the model can retry the whole list."""
        unique = list(dict.fromkeys(names))
        for name in unique:
            self._enabled(name)
        return "\n\n".join(self.activate(name) for name in unique)

    def read_file(self, name: str, path: str) -> str:
        skill = self._enabled(name)
        target = resolve_reference(skill, path)
        size = target.stat().st_size
        if size > MAX_REFERENCE_BYTES:
            raise SkillToolError(
                f"'{path}' in skill '{name}' is {size} bytes; the limit is {MAX_REFERENCE_BYTES}"
            )
        try:
            return target.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise SkillToolError(f"'{path}' in skill '{name}' is not UTF-8 text") from None

    def compliance(self, secret_type: SecretType | None) -> Compliance:
        return compute_compliance(self.skills.enabled, self._loaded, secret_type)


def resolve_reference(skill: Skill, path: str) -> Path:
    """Resolve a model-supplied path inside the skill directory or refuse it."""
    if skill.root is None:
        raise SkillToolError(f"skill '{skill.name}' is a single file and has no references")
    pure = PurePosixPath(path.replace("\\", "/"))
    if not path or pure.is_absolute() or Path(path).is_absolute() or path.startswith("~"):
        raise SkillToolError(f"refused '{path}': use a path relative to the skill directory")
    if ".." in pure.parts:
        raise SkillToolError(f"refused '{path}': '..' may not leave the skill directory")
    root = skill.root.resolve()
    candidate = skill.root.joinpath(*pure.parts)
    target = candidate.resolve()
    if not target.is_relative_to(root):
        raise SkillToolError(f"refused '{path}': it resolves outside the skill directory")
    if not target.is_file():
        listed = ", ".join(skill.references) or "none"
        raise SkillToolError(f"no file '{path}' in skill '{skill.name}'; reference files: {listed}")
    return target
