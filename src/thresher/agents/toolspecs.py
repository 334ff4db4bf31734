"""The tools an agent file may allow, with argument schemas generated from pydantic.

This is the closed vocabulary checked when an ``*.agent.md`` file is parsed and
the tool list ``agents render`` shows. The handlers live beside the agent loop;
the ``skill`` tool's schema is specialised per agent (an enum of its skills).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any, assert_never

from pydantic import BaseModel, ConfigDict, Field, field_validator

from thresher.findings import FindingKind
from thresher.findings.results import AnalysisReport, ChallengeResult, JudgeResult
from thresher.skills.discovery import SkillSet
from thresher.skills.tools import READ_SKILL_FILE_SCHEMA, skill_tool_schema


class ToolName(StrEnum):
    READ_FILE = "read_file"
    LIST_DIR = "list_dir"
    GREP = "grep"
    GIT_LOG = "git_log"
    GIT_SHOW = "git_show"
    GET_FINDING = "get_finding"
    LIST_SECRET_VALIDATORS = "list_secret_validators"
    VALIDATE_SECRET = "validate_secret"
    FIND_IMPORTS = "find_imports"
    GET_VULNERABILITY = "get_vulnerability"
    SKILL = "skill"
    READ_SKILL_FILE = "read_skill_file"
    SUBMIT_REPORT = "submit_report"
    SUBMIT_CHALLENGE = "submit_challenge"
    SUBMIT_JUDGEMENT = "submit_judgement"


SUBMIT_TOOLS = frozenset(
    {ToolName.SUBMIT_REPORT, ToolName.SUBMIT_CHALLENGE, ToolName.SUBMIT_JUDGEMENT}
)
# Tools that make sense for one finding kind only: a session about a vulnerable
# dependency is not offered the secret validators, nor a secret session the advisory.
SECRET_TOOLS = frozenset({ToolName.LIST_SECRET_VALIDATORS, ToolName.VALIDATE_SECRET})
DEPENDENCY_TOOLS = frozenset({ToolName.FIND_IMPORTS, ToolName.GET_VULNERABILITY})


def tools_for_kind(tools: Sequence[ToolName], kind: FindingKind) -> tuple[ToolName, ...]:
    """The agent's allowed tools that apply to findings of ``kind``."""
    match kind:
        case FindingKind.SECRET:
            foreign = DEPENDENCY_TOOLS
        case FindingKind.DEPENDENCY:
            foreign = SECRET_TOOLS
        case _:
            assert_never(kind)
    return tuple(t for t in tools if t not in foreign)


class _Args(BaseModel):
    """Arguments of a workspace or finding tool. A string holding a NUL byte or a lone
    surrogate cannot name a file, a revision or a pattern (the OS, git and UTF-8 all
    refuse it), so it is refused here with a message the model can act on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @field_validator("*", mode="after")
    @classmethod
    def _plain_text(cls, value: Any) -> Any:
        problem = text_problem(value) if isinstance(value, str) else None
        if problem is not None:
            raise ValueError(problem)
        return value


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be a path, revision, pattern or name, or None if it can."""
    if "\x00" in value:
        return "contains a NUL byte; remove it"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode text (a lone surrogate)"
    return None


class ReadFileArgs(_Args):
    path: str = Field(description="workspace-relative file path")
    start_line: int | None = Field(default=None, ge=1)
    end_line: int | None = Field(default=None, ge=1)


class ListDirArgs(_Args):
    path: str = Field(default=".", description="workspace-relative directory")


class GrepArgs(_Args):
    pattern: str = Field(description="a Python regular expression")
    path: str = Field(default=".", description="file or directory to search")
    max_matches: int = Field(default=50, ge=1, le=200)


class GitLogArgs(_Args):
    path: str | None = Field(default=None, description="limit to commits touching this path")
    finding_id: str | None = Field(
        default=None,
        description="pickaxe search: commits that added or removed this finding's value",
    )
    max_count: int = Field(default=20, ge=1, le=100)


class GitShowArgs(_Args):
    rev: str = Field(description="a commit id or ref")
    path: str | None = Field(default=None, description="show this file at the revision")


class FindingArgs(_Args):
    finding_id: str


class NoArgs(_Args):
    pass


class FindImportsArgs(_Args):
    package: str = Field(
        min_length=1, max_length=214, description="the package name as the lockfile gives it"
    )
    ecosystem: str | None = Field(
        default=None,
        description="OSV ecosystem (PyPI, npm, Go, crates.io, RubyGems, Packagist); "
        "defaults to the finding's",
    )


class VulnerabilityArgs(_Args):
    id: str = Field(min_length=1, max_length=200, description="an OSV id or an alias (CVE, GHSA)")


@dataclass(frozen=True)
class ToolSpec:
    """What a model is told about a tool."""

    name: ToolName
    description: str
    parameters: dict[str, Any]


_DESCRIPTIONS: dict[ToolName, tuple[str, type[BaseModel] | None]] = {
    ToolName.READ_FILE: ("Read a workspace file, optionally a line range.", ReadFileArgs),
    ToolName.LIST_DIR: ("List a workspace directory.", ListDirArgs),
    ToolName.GREP: ("Search workspace files with a regex; matches are capped.", GrepArgs),
    ToolName.GIT_LOG: (
        "Commits touching a path, or that added/removed a finding's value.",
        GitLogArgs,
    ),
    ToolName.GIT_SHOW: ("A commit's metadata and diff, or a file at a revision.", GitShowArgs),
    ToolName.GET_FINDING: (
        "The candidate: rule, type, locations, redacted value, source.",
        FindingArgs,
    ),
    ToolName.LIST_SECRET_VALIDATORS: (
        "The deterministic validators and which apply to which secret types.",
        NoArgs,
    ),
    ToolName.VALIDATE_SECRET: (
        "Run the deterministic validators on a finding's stored value.",
        FindingArgs,
    ),
    ToolName.FIND_IMPORTS: (
        "Where the project's own code (not vendored or installed packages) imports a "
        "package; matches are capped.",
        FindImportsArgs,
    ),
    ToolName.GET_VULNERABILITY: (
        "The advisory: summary, details, affected ranges, vulnerable imports and symbols "
        "where published, fixed versions, and whether the finding's version is in range.",
        VulnerabilityArgs,
    ),
    ToolName.SKILL: (
        "Load methodology skills from the catalog: pass `names`, a list, to load several "
        "(a whole phase) in one call.",
        None,
    ),
    ToolName.READ_SKILL_FILE: ("Read a reference file inside a loaded skill.", None),
    ToolName.SUBMIT_REPORT: ("Submit the analysis report; ends the session.", AnalysisReport),
    ToolName.SUBMIT_CHALLENGE: (
        "Submit the challenge of the report; ends the session.",
        ChallengeResult,
    ),
    ToolName.SUBMIT_JUDGEMENT: ("Submit the judgement; ends the session.", JudgeResult),
}


@cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()


def tool_spec(name: ToolName, skills: SkillSet) -> ToolSpec:
    description, model = _DESCRIPTIONS[name]
    match name:
        case ToolName.SKILL:
            parameters = skill_tool_schema(skills)
        case ToolName.READ_SKILL_FILE:
            parameters = dict(READ_SKILL_FILE_SCHEMA)
        case _:
            assert model is not None
            parameters = copy.deepcopy(_schema(model))
    return ToolSpec(name=name, description=description, parameters=parameters)
