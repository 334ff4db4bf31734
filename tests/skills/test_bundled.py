"""The bundled methodology: strict-valid, standard-valid, and complete enough to use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from thresher.config.settings import AgentName, AgentSkills
from thresher.findings import FindingKind, SecretType
from thresher.resources import AssetKind, asset_dir
from thresher.skills import SkillLoader
from thresher.skills.compliance import applicable_required
from thresher.skills.validate import validate_paths

BUNDLED = asset_dir(AssetKind.SKILLS)
SKILL_DIRS = sorted(
    path.parent
    for path in BUNDLED.rglob("SKILL.md")
    if not any(part.startswith("_") for part in path.relative_to(BUNDLED).parts)
)


def test_bundled_tree_passes_strict_validation() -> None:
    count, problems = validate_paths(SkillLoader(), [BUNDLED], strict=True)
    assert problems == []
    assert count >= 22


@pytest.mark.parametrize("skill_dir", SKILL_DIRS, ids=lambda p: p.name)
def test_each_bundled_skill_passes_the_agent_skills_reference_validator(skill_dir: Path) -> None:
    agentskills = Path(sys.executable).with_name("agentskills")
    result = subprocess.run(
        [str(agentskills), "validate", str(skill_dir)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("skill_dir", SKILL_DIRS, ids=lambda p: p.name)
def test_each_skill_file_is_under_500_lines(skill_dir: Path) -> None:
    for path in skill_dir.rglob("*.md"):
        assert len(path.read_text(encoding="utf-8").splitlines()) < 500, path


def test_analysis_methodology_is_complete() -> None:
    skills = SkillLoader().load(AgentName.ANALYSIS, AgentSkills())
    enabled = {s.name: s for s in skills.enabled}
    assert len(enabled) >= 16
    assert sum(s.required for s in enabled.values()) >= 6
    for name, phase in [
        ("finding-intake", "1-initialization"),
        ("code-context", "2-context-gathering"),
        ("history-analysis", "2-context-gathering"),
        ("deterministic-validation", "3-verification"),
        ("confidence-and-report", "4-scoring-and-reporting"),
    ]:
        assert enabled[name].required and enabled[name].phase == phase, name
        assert not enabled[name].secret_types
    covered = {t for s in enabled.values() for t in s.secret_types}
    for secret_type in (
        SecretType.GITHUB_TOKEN,
        SecretType.AWS_ACCESS_KEY,
        SecretType.SLACK_TOKEN,
        SecretType.STRIPE_KEY,
        SecretType.PRIVATE_KEY,
        SecretType.JWT,
        SecretType.URL_CREDENTIALS,
        SecretType.DATABASE_CONNECTION_STRING,
        SecretType.HIGH_ENTROPY_STRING,
    ):
        assert secret_type in covered, secret_type
    assert "internal-only-systems" in enabled
    template = skills.find("secret-type-template")
    assert template is not None and template.hidden and not template.enabled


def test_challenger_and_judge_methodology() -> None:
    loader = SkillLoader()
    challenger = {s.name: s for s in loader.load(AgentName.CHALLENGER, AgentSkills()).enabled}
    judge = {s.name: s for s in loader.load(AgentName.JUDGE, AgentSkills()).enabled}
    assert "false-indicator-recognition" in challenger
    assert challenger["rotation-and-revocation-analysis"].required
    assert challenger["evidence-audit"].required
    assert judge["judging-rubric"].required


def test_every_secret_type_has_an_applicable_type_skill() -> None:
    skills = SkillLoader().load(AgentName.ANALYSIS, AgentSkills()).enabled
    for secret_type in SecretType:
        assert any(secret_type in s.secret_types for s in skills), secret_type


# What a secret finding's analysis must load: every request after the load resends it.
MAX_REQUIRED_SKILLS = 6
MAX_REQUIRED_TEXT = 40_000  # bytes of skill text the `skill` tool returns


@pytest.mark.parametrize("secret_type", [None, *SecretType], ids=str)
def test_the_required_methodology_of_a_finding_stays_lean(secret_type: SecretType | None) -> None:
    skills = SkillLoader().load(AgentName.ANALYSIS, AgentSkills())
    offered = skills.for_finding(FindingKind.SECRET, secret_type).enabled
    required = [s for s in offered if s.name in applicable_required(offered, secret_type)]
    assert len(required) <= MAX_REQUIRED_SKILLS, [s.name for s in required]
    text = sum(len(s.body.strip().encode()) for s in required)
    assert text <= MAX_REQUIRED_TEXT, (text, [s.name for s in required])
    if secret_type is not None:  # its own type method, and no other type's
        typed = [s.name for s in required if s.secret_types]
        assert len(typed) == 1, typed
        assert all(secret_type in s.secret_types for s in offered if s.secret_types)
