"""Find, check and load one agent's skills (DESIGN §4).

Discovery walks ``<root>/<agent>/**/SKILL.md`` (a skill directory is not searched
for nested skills), adds configured directories and mounts, applies config
disables, and checks every rule before any model is called: a missing
SKILL.md, bad frontmatter or name, duplicate names, size caps and symlinks that
leave their skill. All problems are collected so a user can fix them in one pass.
Parsed files are cached by (mtime, size): reloading an unchanged tree reads nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from thresher.config.settings import AgentName, AgentSkills, SkillMount
from thresher.errors import SkillError, SkillProblem
from thresher.findings import FindingKind, SecretType
from thresher.resources import AssetKind, asset_dir
from thresher.skills.model import Skill, SkillLimits, SkillOrigin
from thresher.skills.parser import ParsedSkill, check_name, parse_skill_text

SKILL_FILE = "SKILL.md"
_SKIPPED_DIRS = frozenset({"__pycache__", ".git"})


@dataclass(frozen=True)
class SkillSet:
    """Every skill discovered for one agent, including hidden and disabled ones."""

    agent: AgentName
    skills: tuple[Skill, ...]

    @property
    def enabled(self) -> tuple[Skill, ...]:
        return tuple(skill for skill in self.skills if skill.enabled)

    def for_kind(self, kind: FindingKind) -> SkillSet:
        """The skills that are method for findings of ``kind``: the catalog, the ``skill``
        tool's enum, activation and compliance of a session all see only these."""
        return replace(self, skills=tuple(s for s in self.skills if s.for_kind(kind)))

    def for_finding(self, kind: FindingKind, secret_type: SecretType | None) -> SkillSet:
        """The skills that can apply to one finding: of its kind, and type-specific ones
        only for its secret type. A finding's catalog, ``skill`` tool and compliance see
        only these: every catalog entry and every skill body is paid for in tokens on
        every request of a session, so a Slack token is not offered the AWS method."""
        return replace(
            self,
            skills=tuple(s for s in self.skills if s.for_kind(kind) and s.applies_to(secret_type)),
        )

    def get(self, name: str) -> Skill | None:
        """The enabled skill with this name."""
        return next((s for s in self.skills if s.name == name and s.enabled), None)

    def find(self, name: str) -> Skill | None:
        """Any skill with this name, enabled or not."""
        return next((s for s in self.skills if s.name == name), None)


@dataclass(frozen=True)
class _Candidate:
    """A skill location before parsing: a directory with SKILL.md, or one .md file."""

    path: Path
    root: Path | None
    origin: SkillOrigin
    hidden: bool = False
    phase_dir: str | None = None
    name_override: str | None = None
    enabled: bool = True


class SkillLoader:
    """Loads skill sets; owns the parse cache, so keep one per process or test."""

    def __init__(self, limits: SkillLimits | None = None) -> None:
        self.limits = limits or SkillLimits()
        self.reads = 0
        self._cache: dict[Path, tuple[tuple[int, int], ParsedSkill]] = {}

    def parse(self, path: Path, *, frontmatter_required: bool = True) -> ParsedSkill:
        stat = path.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        self.reads += 1
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            parsed = ParsedSkill(
                path, None, None, "", problems=(SkillProblem(path, "not UTF-8 text"),)
            )
        else:
            parsed = parse_skill_text(text, path, frontmatter_required=frontmatter_required)
        self._cache[path] = (key, parsed)
        return parsed

    def load(
        self, agent: AgentName, config: AgentSkills, *, bundled_root: Path | None = None
    ) -> SkillSet:
        """Load the agent's skills or raise ``SkillError`` listing every problem."""
        skills, problems = self.collect(agent, config, bundled_root=bundled_root)
        if problems:
            raise SkillError(
                f"{len(problems)} problem(s) in the {agent.value} skills; first: {problems[0]}",
                problems=tuple(problems),
                hint="run 'thresher skills validate' and fix each path:line listed",
            )
        return SkillSet(agent, tuple(skills))

    def collect(
        self,
        agent: AgentName,
        config: AgentSkills,
        *,
        bundled_root: Path | None = None,
        strict: bool = False,
    ) -> tuple[list[Skill], list[SkillProblem]]:
        """Discover and check without raising: the basis of ``load`` and ``validate``."""
        root = (bundled_root or asset_dir(AssetKind.SKILLS)) / agent.value
        problems: list[SkillProblem] = []
        candidates: list[_Candidate] = []
        if root.is_dir():
            candidates += walk_tree(root, SkillOrigin.BUNDLED, problems)
        for directory in config.directories:
            candidates += _configured_directory(directory, problems)
        for mount in config.mounts:
            candidate = _mount(mount, problems)
            if candidate is not None:
                candidates.append(candidate)

        skills: list[Skill] = []
        total = 0
        for candidate in candidates:
            skill, size = self._load_candidate(candidate, agent, problems, strict=strict)
            total += size
            if skill is not None:
                skills.append(skill)
        if total > self.limits.max_total_bytes:
            problems.append(
                SkillProblem(
                    root,
                    f"the {agent.value} skills total {_mib(total)}; "
                    f"the limit is {_mib(self.limits.max_total_bytes)}",
                )
            )
        problems += _duplicates(skills)
        disabled = set(config.disabled)
        known = {skill.name for skill in skills}
        problems += [
            SkillProblem(root, f"skills.{agent.value}.disabled names unknown skill '{name}'")
            for name in sorted(disabled - known)
        ]
        skills = [replace(s, enabled=False) if s.name in disabled else s for s in skills]
        return skills, problems

    def _load_candidate(
        self,
        candidate: _Candidate,
        agent: AgentName,
        problems: list[SkillProblem],
        *,
        strict: bool,
    ) -> tuple[Skill | None, int]:
        references: tuple[str, ...] = ()
        size = 0
        if candidate.root is not None:
            references, size, dir_problems = inspect_skill_dir(candidate.root, self.limits)
            problems += dir_problems
            if any(p.path == candidate.path for p in dir_problems):
                return None, size
        else:
            size = candidate.path.stat().st_size
            if size > self.limits.max_file_bytes:
                problems.append(SkillProblem(candidate.path, _too_big(size, self.limits)))
                return None, size
        parsed = self.parse(candidate.path, frontmatter_required=candidate.root is not None)
        found = list(parsed.problems) + (list(parsed.strict_problems) if strict else [])
        name = candidate.name_override or parsed.name
        if candidate.name_override is not None:
            found += check_name(candidate.name_override, candidate.path, 1)
        elif name is None and candidate.root is None:
            name = candidate.path.stem.lower()
            found += check_name(name, candidate.path, 1)
        if name is not None and candidate.root is not None and candidate.name_override is None:
            expected = candidate.root.name.lstrip("_") if candidate.hidden else candidate.root.name
            if name != expected:
                found.append(
                    SkillProblem(
                        candidate.path,
                        f"name '{name}' must equal its directory name '{candidate.root.name}'",
                        parsed.line_of("name"),
                    )
                )
        if parsed.agent is not None and parsed.agent != agent.value:
            found.append(
                SkillProblem(
                    candidate.path,
                    f"agent '{parsed.agent}' does not match the {agent.value} "
                    "skills it is loaded into",
                    parsed.line_of("metadata"),
                )
            )
        phase = parsed.phase
        if candidate.phase_dir is not None:
            if phase is None:
                phase = candidate.phase_dir
            elif phase != candidate.phase_dir:
                found.append(
                    SkillProblem(
                        candidate.path,
                        f"phase '{phase}' does not match its phase directory "
                        f"'{candidate.phase_dir}'",
                        parsed.line_of("metadata"),
                    )
                )
        problems += found
        if name is None or parsed.description is None or parsed.problems:
            return None, size
        skill = Skill(
            name=name,
            description=parsed.description,
            agent=agent,
            path=candidate.path,
            root=candidate.root,
            body=parsed.body,
            origin=candidate.origin,
            phase=phase,
            required=parsed.required,
            secret_types=parsed.secret_types,
            kinds=parsed.kinds,
            enabled=candidate.enabled and not candidate.hidden,
            hidden=candidate.hidden,
            license=parsed.license,
            compatibility=parsed.compatibility,
            allowed_tools=parsed.allowed_tools,
            metadata=parsed.metadata,
            references=references,
        )
        return skill, size


def walk_tree(root: Path, origin: SkillOrigin, problems: list[SkillProblem]) -> list[_Candidate]:
    """Skill directories under ``root``; ``_``-prefixed directories are hidden templates."""
    found: list[_Candidate] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        for name in list(dirnames):
            if (here / name).is_symlink():
                problems.append(
                    SkillProblem(
                        here / name,
                        "symlinked directory in a skill tree is not followed; "
                        "mount its target explicitly",
                    )
                )
                dirnames.remove(name)
            elif name in _SKIPPED_DIRS:
                dirnames.remove(name)
        dirnames.sort()
        relative = here.relative_to(root).parts
        if SKILL_FILE in filenames:
            dirnames.clear()
            phase_dir = relative[0] if len(relative) > 1 else None
            found.append(
                _Candidate(
                    path=here / SKILL_FILE,
                    root=here,
                    origin=origin,
                    hidden=any(part.startswith("_") for part in relative),
                    phase_dir=phase_dir if phase_dir and phase_dir[0].isdigit() else None,
                )
            )
        elif not dirnames and here != root:
            hint = " (rename skill.md to SKILL.md)" if "skill.md" in filenames else ""
            problems.append(SkillProblem(here, f"missing SKILL.md{hint}"))
    return found


def inspect_skill_dir(
    root: Path, limits: SkillLimits
) -> tuple[tuple[str, ...], int, list[SkillProblem]]:
    """Reference files, total bytes and problems (sizes, symlinks leaving the skill)."""
    problems: list[SkillProblem] = []
    references: list[str] = []
    total = 0
    resolved_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        for name in sorted(dirnames + filenames):
            entry = here / name
            if entry.is_symlink():
                target = entry.resolve()
                if not target.is_relative_to(resolved_root):
                    problems.append(SkillProblem(entry, "symlink leaves the skill directory"))
                    if name in dirnames:
                        dirnames.remove(name)
                    continue
            if name in dirnames:
                continue
            if not entry.is_file():
                continue
            size = entry.stat().st_size
            total += size
            if size > limits.max_file_bytes:
                problems.append(SkillProblem(entry, _too_big(size, limits)))
            if entry.name != SKILL_FILE or here != root:
                references.append(entry.relative_to(root).as_posix())
    if total > limits.max_skill_bytes:
        problems.append(
            SkillProblem(
                root, f"skill is {_mib(total)}; the limit is {_mib(limits.max_skill_bytes)}"
            )
        )
    return tuple(sorted(references)), total, problems


def _configured_directory(directory: Path, problems: list[SkillProblem]) -> list[_Candidate]:
    if not directory.is_dir():
        problems.append(SkillProblem(directory, "configured skills directory does not exist"))
        return []
    if (directory / SKILL_FILE).is_file():
        return [
            _Candidate(path=directory / SKILL_FILE, root=directory, origin=SkillOrigin.DIRECTORY)
        ]
    return walk_tree(directory, SkillOrigin.DIRECTORY, problems)


def _mount(mount: SkillMount, problems: list[SkillProblem]) -> _Candidate | None:
    source = mount.source
    if not source.exists():
        problems.append(SkillProblem(source, "mounted skill source does not exist"))
        return None
    source = source.resolve()
    if source.is_dir():
        if not (source / SKILL_FILE).is_file():
            problems.append(SkillProblem(source, "missing SKILL.md in mounted skill directory"))
            return None
        return _Candidate(
            path=source / SKILL_FILE,
            root=source,
            origin=SkillOrigin.MOUNT,
            name_override=mount.name,
            enabled=mount.enabled,
        )
    if source.suffix.lower() != ".md":
        problems.append(SkillProblem(source, "a mount must be a skill directory or a .md file"))
        return None
    return _Candidate(
        path=source,
        root=None,
        origin=SkillOrigin.MOUNT,
        name_override=mount.name,
        enabled=mount.enabled,
    )


def _duplicates(skills: Iterable[Skill]) -> list[SkillProblem]:
    seen: dict[str, Path] = {}
    problems: list[SkillProblem] = []
    for skill in skills:
        first = seen.setdefault(skill.name, skill.path)
        if first != skill.path:
            problems.append(
                SkillProblem(
                    skill.path, f"duplicate skill name '{skill.name}': also defined in {first}"
                )
            )
    return problems


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MiB"


def _too_big(size: int, limits: SkillLimits) -> str:
    return f"file is {_mib(size)}; the limit is {_mib(limits.max_file_bytes)}"
