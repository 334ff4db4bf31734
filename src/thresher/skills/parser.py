"""Parse SKILL.md files: YAML frontmatter + markdown body, with line numbers.

Two readings of one file: *lenient* (what loading accepts, for compatibility with
existing skill trees: thresher keys at the top level, a ``## Description``
section instead of a frontmatter description) and *strict* (what ``skills
validate --strict`` demands: only the Agent Skills standard keys at the top
level). Both report problems as ``path:line: message``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from thresher.errors import SkillProblem
from thresher.findings import FindingKind, SecretType
from thresher.skills.model import (
    COMPATIBILITY_MAX,
    DEFAULT_KINDS,
    DESCRIPTION_MAX,
    NAME_MAX,
    NAME_PATTERN,
    PHASE_PATTERN,
    STANDARD_KEYS,
    THRESHER_KEYS,
)


class FrontmatterLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans: ``name: off`` stays the string ``off``.

    The Agent Skills reference reads every scalar as a string; YAML 1.1's
    ``yes/no/on/off`` booleans would turn a valid skill name into ``False``.
    """


FrontmatterLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
FrontmatterLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)

_FENCE = re.compile(r"^---[ \t]*$")
_DESCRIPTION_HEADING = re.compile(r"^##\s+Description\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedSkill:
    """The fields of one SKILL.md, normalised, plus every problem found.

    ``problems`` are always errors; ``strict_problems`` are errors only under
    ``--strict`` (compatibility forms that loading tolerates).
    """

    path: Path
    name: str | None
    description: str | None
    body: str
    phase: str | None = None
    required: bool = False
    secret_types: tuple[SecretType, ...] = ()
    kinds: tuple[FindingKind, ...] = DEFAULT_KINDS
    agent: str | None = None
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    key_lines: dict[str, int] = field(default_factory=dict)
    problems: tuple[SkillProblem, ...] = ()
    strict_problems: tuple[SkillProblem, ...] = ()
    has_frontmatter: bool = True

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, 1)


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """Return (frontmatter text, body, line number where the body starts)."""
    lines = text.splitlines(keepends=True)
    if not lines or not _FENCE.match(lines[0].rstrip("\r\n")):
        return None, text, 1
    for index in range(1, len(lines)):
        if _FENCE.match(lines[index].rstrip("\r\n")):
            return "".join(lines[1:index]), "".join(lines[index + 1 :]), index + 2
    raise FrontmatterNotClosed


class FrontmatterNotClosed(ValueError):
    pass


def parse_skill_text(text: str, path: Path, *, frontmatter_required: bool = True) -> ParsedSkill:
    """Parse one skill file's text; never raises for content problems."""
    problems: list[SkillProblem] = []
    strict: list[SkillProblem] = []
    try:
        front, body, _ = split_frontmatter(text)
    except FrontmatterNotClosed:
        problem = SkillProblem(path, "frontmatter is not closed with a '---' line", 1)
        return ParsedSkill(path, None, None, text, problems=(problem,))
    if front is None:
        if frontmatter_required:
            problems.append(SkillProblem(path, "missing YAML frontmatter (a '---' block)", 1))
        description = _description_section(body)
        if description is not None:
            strict.append(SkillProblem(path, _LENIENT_DESCRIPTION, 1))
        return ParsedSkill(
            path,
            None,
            description,
            body,
            problems=tuple(problems),
            strict_problems=tuple(strict),
            has_frontmatter=False,
        )

    try:
        node = yaml.compose(front, Loader=FrontmatterLoader)
        data = yaml.load(front, Loader=FrontmatterLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        problems.append(SkillProblem(path, f"invalid YAML frontmatter: {reason}", line))
        return ParsedSkill(path, None, None, body, problems=tuple(problems))
    if data is None:
        data, node = {}, None
    if not isinstance(data, dict):
        problems.append(SkillProblem(path, "frontmatter must be a YAML mapping", 2))
        return ParsedSkill(path, None, None, body, problems=tuple(problems))

    key_lines = _key_lines(node)

    def at(key: str) -> int:
        return key_lines.get(key, 1)

    def text_field(key: str, limit: int | None = None) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            problems.append(SkillProblem(path, f"'{key}' must be a non-empty string", at(key)))
            return None
        if limit is not None and len(value) > limit:
            problems.append(
                SkillProblem(
                    path, f"'{key}' is {len(value)} characters; the limit is {limit}", at(key)
                )
            )
        return value.strip()

    for key in data:
        if not isinstance(key, str):
            problems.append(SkillProblem(path, f"frontmatter key {key!r} is not a string", 2))
        elif key in THRESHER_KEYS:
            strict.append(
                SkillProblem(
                    path, f"'{key}' belongs under 'metadata:' (top level is thresher-only)", at(key)
                )
            )
        elif key not in STANDARD_KEYS:
            problems.append(
                SkillProblem(
                    path,
                    f"unknown frontmatter key '{key}'; allowed: "
                    + ", ".join(sorted(STANDARD_KEYS | THRESHER_KEYS)),
                    at(key),
                )
            )

    name = text_field("name")
    if name is not None:
        problems.extend(check_name(name, path, at("name")))
    elif "name" not in data:
        problems.append(SkillProblem(path, "missing required key 'name'", 2))
    description = text_field("description", DESCRIPTION_MAX)
    if description is None and "description" not in data:
        description = _description_section(body)
        if description is None:
            problems.append(
                SkillProblem(path, "missing 'description' (and no '## Description' section)", 2)
            )
        else:
            strict.append(SkillProblem(path, _LENIENT_DESCRIPTION, 2))
            if len(description) > DESCRIPTION_MAX:
                problems.append(
                    SkillProblem(
                        path,
                        f"description is {len(description)} characters; the limit is "
                        f"{DESCRIPTION_MAX}",
                        2,
                    )
                )
    license_ = text_field("license")
    compatibility = text_field("compatibility", COMPATIBILITY_MAX)
    allowed = data.get("allowed-tools")
    allowed_tools: str | None = None
    if isinstance(allowed, list) and all(isinstance(item, str) for item in allowed):
        allowed_tools = " ".join(allowed)
        strict.append(
            SkillProblem(
                path, "'allowed-tools' should be a space-separated string", at("allowed-tools")
            )
        )
    elif allowed is not None:
        allowed_tools = text_field("allowed-tools")

    metadata: dict[str, str] = {}
    raw_meta = data.get("metadata", {})
    if raw_meta is None:
        raw_meta = {}
    if not isinstance(raw_meta, dict):
        problems.append(SkillProblem(path, "'metadata' must be a mapping", at("metadata")))
        raw_meta = {}
    for key, value in raw_meta.items():
        if isinstance(value, (dict, list)):
            problems.append(
                SkillProblem(
                    path,
                    f"metadata '{key}' must be a string, not a {type(value).__name__}",
                    at("metadata"),
                )
            )
            continue
        metadata[str(key)] = _as_text(value)

    def thresher_key(key: str) -> tuple[Any, int] | None:
        if key in raw_meta:
            return raw_meta[key], at("metadata")
        if key in data:
            return data[key], at(key)
        return None

    phase = _phase(thresher_key("phase"), path, problems)
    required = _required(thresher_key("required"), path, problems)
    secret_types = _secret_types(thresher_key("secret-type"), path, problems)
    kinds = _kinds(thresher_key("kind"), path, problems)
    if kinds != (FindingKind.SECRET,) and secret_types:
        problems.append(
            SkillProblem(path, "secret-type applies to secret skills only", at("metadata"))
        )
    agent_value = thresher_key("agent")
    agent = _as_text(agent_value[0]) if agent_value else None

    return ParsedSkill(
        path=path,
        name=name,
        description=description,
        body=body,
        phase=phase,
        required=required,
        secret_types=secret_types,
        kinds=kinds,
        agent=agent,
        license=license_,
        compatibility=compatibility,
        allowed_tools=allowed_tools,
        metadata=metadata,
        key_lines=key_lines,
        problems=tuple(problems),
        strict_problems=tuple(strict),
    )


_LENIENT_DESCRIPTION = (
    "description comes from a '## Description' section; put it in the frontmatter"
)


def check_name(name: str, path: Path, line: int) -> list[SkillProblem]:
    """The Agent Skills name rules (the directory match is checked by the caller)."""
    if len(name) > NAME_MAX:
        return [
            SkillProblem(
                path, f"name '{name}' is {len(name)} characters; the limit is {NAME_MAX}", line
            )
        ]
    if not re.match(NAME_PATTERN, name):
        return [
            SkillProblem(
                path,
                f"name '{name}' must be lowercase letters, digits and "
                "single hyphens, not starting or ending with a hyphen",
                line,
            )
        ]
    return []


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _phase(entry: tuple[Any, int] | None, path: Path, problems: list[SkillProblem]) -> str | None:
    if entry is None:
        return None
    value = _as_text(entry[0]).strip()
    if not re.match(PHASE_PATTERN, value):
        problems.append(
            SkillProblem(path, f"phase '{value}' must look like '2-context-gathering'", entry[1])
        )
        return None
    return value


def _required(entry: tuple[Any, int] | None, path: Path, problems: list[SkillProblem]) -> bool:
    if entry is None:
        return False
    value = entry[0]
    if isinstance(value, bool):
        return value
    text = _as_text(value).strip().lower()
    if text in {"true", "yes"}:
        return True
    if text in {"false", "no"}:
        return False
    problems.append(SkillProblem(path, f"required must be true or false, not {value!r}", entry[1]))
    return False


def _secret_types(
    entry: tuple[Any, int] | None, path: Path, problems: list[SkillProblem]
) -> tuple[SecretType, ...]:
    if entry is None:
        return ()
    value = entry[0]
    items = value if isinstance(value, list) else re.split(r"[,\s]+", _as_text(value))
    found: list[SecretType] = []
    for item in (str(i).strip() for i in items):
        if not item:
            continue
        try:
            found.append(SecretType(item))
        except ValueError:
            problems.append(
                SkillProblem(
                    path,
                    f"unknown secret-type '{item}'; known: "
                    + ", ".join(t.value for t in SecretType),
                    entry[1],
                )
            )
    return tuple(dict.fromkeys(found))


def _kinds(
    entry: tuple[Any, int] | None, path: Path, problems: list[SkillProblem]
) -> tuple[FindingKind, ...]:
    """``kind: dependency``, ``kind: secret``, or both (``secret, dependency``)."""
    if entry is None:
        return DEFAULT_KINDS
    value = entry[0]
    items = value if isinstance(value, list) else re.split(r"[,\s]+", _as_text(value))
    found: list[FindingKind] = []
    for item in (str(i).strip() for i in items):
        if not item:
            continue
        try:
            found.append(FindingKind(item))
        except ValueError:
            problems.append(
                SkillProblem(
                    path,
                    f"unknown kind '{item}'; known: " + ", ".join(k.value for k in FindingKind),
                    entry[1],
                )
            )
    return tuple(dict.fromkeys(found)) or DEFAULT_KINDS


def _key_lines(node: yaml.Node | None) -> dict[str, int]:
    """Line of each top-level key in the file (frontmatter starts on line 2)."""
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                lines[str(key_node.value)] = key_node.start_mark.line + 2
    return lines


def _description_section(body: str) -> str | None:
    """The first paragraph under a ``## Description`` heading, if any."""
    lines = body.splitlines()
    for index, line in enumerate(lines):
        if _DESCRIPTION_HEADING.match(line.strip()):
            paragraph: list[str] = []
            for following in lines[index + 1 :]:
                stripped = following.strip()
                if stripped.startswith("#"):
                    break
                if not stripped:
                    if paragraph:
                        break
                    continue
                paragraph.append(stripped)
            text = " ".join(paragraph).strip()
            return text or None
    return None
