"""Compliance arithmetic, with secret-type applicability."""

from __future__ import annotations

from pathlib import Path

import pytest

from thresher.config.settings import AgentName
from thresher.findings import SecretType
from thresher.skills import compute_compliance
from thresher.skills.model import Skill, SkillOrigin


def skill(
    name: str, *, required: bool = True, types: tuple[SecretType, ...] = (), enabled: bool = True
) -> Skill:
    return Skill(
        name=name,
        description="d",
        agent=AgentName.ANALYSIS,
        path=Path(name),
        root=None,
        body="",
        origin=SkillOrigin.BUNDLED,
        required=required,
        secret_types=types,
        enabled=enabled,
    )


SKILLS = [
    skill("intake"),
    skill("context"),
    skill("github-tokens", types=(SecretType.GITHUB_TOKEN,)),
    skill("aws-keys", types=(SecretType.AWS_ACCESS_KEY,)),
    skill("optional", required=False),
    skill("switched-off", enabled=False),
]


def test_type_specific_required_skill_applies_only_to_its_type() -> None:
    result = compute_compliance(SKILLS, ["intake", "context"], SecretType.AWS_ACCESS_KEY)
    assert result.applicable == ("aws-keys", "context", "intake")
    assert result.skipped == ("aws-keys",)
    assert result.score == pytest.approx(2 / 3)
    assert result.percent == 67


def test_all_applicable_loaded_is_full_compliance() -> None:
    result = compute_compliance(
        SKILLS, ["intake", "context", "github-tokens", "optional"], SecretType.GITHUB_TOKEN
    )
    assert result.score == 1.0 and result.skipped == ()
    assert result.loaded == ("context", "github-tokens", "intake", "optional")


def test_optional_and_disabled_skills_do_not_count() -> None:
    result = compute_compliance(SKILLS, [], SecretType.JWT)
    assert result.applicable == ("context", "intake")
    assert result.score == 0.0


def test_no_applicable_required_skill_scores_one() -> None:
    result = compute_compliance(
        [skill("only-aws", types=(SecretType.AWS_ACCESS_KEY,))], [], SecretType.SLACK_TOKEN
    )
    assert result.applicable == () and result.score == 1.0


def test_a_finding_without_a_type_needs_only_general_skills() -> None:
    result = compute_compliance(SKILLS, ["intake"], None)
    assert result.applicable == ("context", "intake")
    assert result.score == 0.5
