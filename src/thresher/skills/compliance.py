"""Compliance: how much of the required methodology an agent actually loaded.

A required skill with a ``secret-type`` is required only for findings of that
type, so a Slack-token finding is not marked down for skipping the AWS skill.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from thresher.findings import SecretType
from thresher.skills.model import Skill


class Compliance(BaseModel):
    """Applicable required skills, which were loaded and skipped, and the score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    applicable: tuple[str, ...]
    loaded: tuple[str, ...]
    skipped: tuple[str, ...]
    score: float = Field(ge=0, le=1)

    @property
    def percent(self) -> int:
        return round(self.score * 100)


def applicable_required(skills: Iterable[Skill], secret_type: SecretType | None) -> list[str]:
    return sorted(
        skill.name
        for skill in skills
        if skill.enabled and skill.required and skill.applies_to(secret_type)
    )


def compute_compliance(
    skills: Iterable[Skill], loaded: Iterable[str], secret_type: SecretType | None
) -> Compliance:
    """Score = loaded applicable required / applicable required (1.0 when none apply)."""
    applicable = applicable_required(skills, secret_type)
    loaded_set = set(loaded)
    hit = [name for name in applicable if name in loaded_set]
    skipped = [name for name in applicable if name not in loaded_set]
    score = len(hit) / len(applicable) if applicable else 1.0
    return Compliance(
        applicable=tuple(applicable),
        loaded=tuple(sorted(loaded_set)),
        skipped=tuple(skipped),
        score=score,
    )
