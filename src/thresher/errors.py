"""The thresher error hierarchy.

Every failure a user can cause or meet is a ``ThresherError`` carrying a one-line
message, an actionable hint and the exit code the CLI's single error boundary
returns. Foreign exceptions (YAML, OS, pydantic) are translated into these at the
boundary where they occur so the CLI never prints a traceback for a user error.
"""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path


class ExitCode(IntEnum):
    """Documented process exit codes (README, "Exit codes")."""

    OK = 0
    FINDINGS = 1
    USAGE = 2
    RUNTIME = 3
    # Another run holds the resource (``triage``: the state database) and this one did
    # nothing: not a failure of either run, so not RUNTIME, and a scheduler can tell
    # "skipped, the other run is on it" from "broken".
    BUSY = 4


class ThresherError(Exception):
    """Base class: a message for the user, a hint on what to do, an exit code."""

    exit_code: ExitCode = ExitCode.RUNTIME

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class UsageError(ThresherError):
    """A bad flag, argument or combination of them."""

    exit_code = ExitCode.USAGE


class ConfigError(ThresherError):
    """Invalid configuration: a file, a key or an environment variable."""

    exit_code = ExitCode.USAGE


class AssetError(ThresherError):
    """A bundled or user-supplied asset (agent, skill, prompt) is invalid."""

    exit_code = ExitCode.USAGE


class AgentDefinitionError(AssetError):
    """An ``*.agent.md`` file is missing or does not parse strictly."""


class TemplateError(AssetError):
    """A prompt template is missing, does not parse, or references an unknown variable."""


class SkillError(AssetError):
    """A skill tree is invalid; raised before any model is called.

    ``problems`` holds every problem found, so the user can fix them in one pass.
    """

    def __init__(
        self,
        message: str,
        *,
        problems: tuple[SkillProblem, ...] = (),
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.problems = problems


class SkillToolError(ThresherError):
    """A skill tool call the model made cannot be served (unknown skill, path refused).

    The agent loop turns it into an error result the model sees; it never ends a run.
    """

    exit_code = ExitCode.RUNTIME


class SkillProblem:
    """One validation problem, printed as ``path:line: message``."""

    __slots__ = ("line", "message", "path")

    def __init__(self, path: Path, message: str, line: int = 1) -> None:
        self.path = path
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"

    def __repr__(self) -> str:
        return f"SkillProblem({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SkillProblem):
            return NotImplemented
        return (self.path, self.line, self.message) == (other.path, other.line, other.message)

    def __hash__(self) -> int:
        return hash((self.path, self.line, self.message))
