"""Skill value objects and the limits that guard skill trees."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from thresher.config.settings import AgentName
from thresher.findings import FindingKind, SecretType

MIB = 1024 * 1024

NAME_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
PHASE_PATTERN = r"^[0-9]+-[a-z0-9]+(-[a-z0-9]+)*$"

STANDARD_KEYS = frozenset(
    {"name", "description", "license", "compatibility", "allowed-tools", "metadata"}
)
THRESHER_KEYS = frozenset({"phase", "required", "secret-type", "agent", "kind"})
# A skill that does not say which finding kind it is for predates dependency findings.
DEFAULT_KINDS: tuple[FindingKind, ...] = (FindingKind.SECRET,)


class SkillOrigin(StrEnum):
    """Where a skill came from: the bundled tree, a configured directory, or a mount."""

    BUNDLED = "bundled"
    DIRECTORY = "directory"
    MOUNT = "mount"


@dataclass(frozen=True)
class SkillLimits:
    """Size caps checked before any model is called."""

    max_file_bytes: int = 1 * MIB
    max_skill_bytes: int = 10 * MIB
    max_total_bytes: int = 50 * MIB


@dataclass(frozen=True)
class Skill:
    """One loaded skill. ``root`` is None for a single-file mount (no references)."""

    name: str
    description: str
    agent: AgentName
    path: Path
    root: Path | None
    body: str
    origin: SkillOrigin
    phase: str | None = None
    required: bool = False
    secret_types: tuple[SecretType, ...] = ()
    # The finding kinds the skill is method for (``metadata.kind``): a dependency finding
    # never gets a secret skill, nor a secret a dependency skill.
    kinds: tuple[FindingKind, ...] = DEFAULT_KINDS
    enabled: bool = True
    hidden: bool = False
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    references: tuple[str, ...] = ()

    def applies_to(self, secret_type: SecretType | None) -> bool:
        """A skill without a secret type applies to every finding of its kinds."""
        return not self.secret_types or secret_type in self.secret_types

    def for_kind(self, kind: FindingKind) -> bool:
        return kind in self.kinds

    @property
    def kind_label(self) -> str:
        return ", ".join(k.value for k in self.kinds)

    @property
    def secret_type_label(self) -> str | None:
        return ", ".join(t.value for t in self.secret_types) or None
