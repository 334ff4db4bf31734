"""``thresher skills validate``: check skill trees and files, report ``path:line: message``.

Without paths it checks what thresher would load for every agent (the bundled
tree plus configured directories and mounts). With paths it checks each one: a
SKILL.md or ``.md`` file, a skill directory, or a tree of skills.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from thresher.config.settings import AgentName, Settings
from thresher.errors import SkillProblem
from thresher.skills.discovery import SKILL_FILE, SkillLoader, inspect_skill_dir, walk_tree
from thresher.skills.model import SkillOrigin
from thresher.skills.parser import check_name


def validate_configured(
    loader: SkillLoader, settings: Settings, *, strict: bool, bundled_root: Path | None = None
) -> tuple[int, list[SkillProblem]]:
    """Validate every agent's skills as they would load; returns (skills checked, problems)."""
    count = 0
    problems: list[SkillProblem] = []
    for agent in AgentName:
        skills, found = loader.collect(
            agent, settings.agent_skills(agent), bundled_root=bundled_root, strict=strict
        )
        count += len(skills)
        problems += found
    return count, _unique(problems)


def validate_paths(
    loader: SkillLoader, paths: Sequence[Path], *, strict: bool
) -> tuple[int, list[SkillProblem]]:
    """Validate files, skill directories or trees named on the command line."""
    count = 0
    problems: list[SkillProblem] = []
    for path in paths:
        if not path.exists():
            problems.append(SkillProblem(path, "no such file or directory"))
            continue
        if path.is_file():
            count += 1
            problems += _validate_file(loader, path, strict=strict)
            continue
        if (path / SKILL_FILE).is_file():
            dirs = [path]
        else:
            dirs = [c.root for c in walk_tree(path, SkillOrigin.DIRECTORY, problems) if c.root]
        for directory in dirs:
            count += 1
            _, _, dir_problems = inspect_skill_dir(directory, loader.limits)
            problems += dir_problems
            problems += _validate_file(loader, directory / SKILL_FILE, strict=strict)
    return count, _unique(problems)


def _validate_file(loader: SkillLoader, path: Path, *, strict: bool) -> list[SkillProblem]:
    is_skill_md = path.name == SKILL_FILE
    parsed = loader.parse(path, frontmatter_required=is_skill_md)
    problems = list(parsed.problems) + (list(parsed.strict_problems) if strict else [])
    if parsed.agent is not None and parsed.agent not in {a.value for a in AgentName}:
        problems.append(
            SkillProblem(
                path,
                f"agent '{parsed.agent}' is not one of: " + ", ".join(a.value for a in AgentName),
                parsed.line_of("metadata"),
            )
        )
    if is_skill_md and parsed.name is not None:
        directory = path.parent.name
        hidden = directory.startswith("_")
        expected = directory.lstrip("_") if hidden else directory
        if parsed.name != expected:
            problems.append(
                SkillProblem(
                    path,
                    f"name '{parsed.name}' must equal its directory name '{directory}'",
                    parsed.line_of("name"),
                )
            )
    elif not is_skill_md and parsed.name is None:
        problems += check_name(path.stem.lower(), path, 1)
    return problems


def _unique(problems: list[SkillProblem]) -> list[SkillProblem]:
    return list(dict.fromkeys(problems))
