"""``metadata.kind``: which finding kind a skill is method for, and what follows from it
(catalog, compliance, the bundled dependency methodology)."""

from __future__ import annotations

from pathlib import Path

import pytest

from thresher.config.settings import AgentName, AgentSkills
from thresher.errors import SkillToolError
from thresher.findings import FindingKind
from thresher.skills import SkillLoader
from thresher.skills.catalog import catalog_entry
from thresher.skills.compliance import applicable_required, compute_compliance
from thresher.skills.parser import parse_skill_text
from thresher.skills.scaffold import export_skills
from thresher.skills.tools import SkillSession

P = Path("skills/x/SKILL.md")


def parse(meta: str) -> object:
    return parse_skill_text(f"---\nname: x\ndescription: d\nmetadata:\n{meta}\n---\n# T\n", P)


def test_a_skill_without_a_kind_is_a_secret_skill() -> None:
    parsed = parse("  required: 'true'")
    assert parsed.kinds == (FindingKind.SECRET,)  # type: ignore[attr-defined]


def test_kind_is_read_from_metadata_alone_or_as_a_list() -> None:
    assert parse("  kind: dependency").kinds == (FindingKind.DEPENDENCY,)  # type: ignore[attr-defined]
    both = parse("  kind: secret, dependency")
    assert both.kinds == (FindingKind.SECRET, FindingKind.DEPENDENCY)  # type: ignore[attr-defined]
    assert both.problems == ()  # type: ignore[attr-defined]


def test_an_unknown_kind_is_a_problem_naming_the_known_ones() -> None:
    parsed = parse("  kind: container")
    [problem] = parsed.problems  # type: ignore[attr-defined]
    assert "unknown kind 'container'" in problem.message
    assert "secret, dependency" in problem.message


def test_a_secret_type_on_a_dependency_skill_is_a_problem() -> None:
    parsed = parse("  kind: dependency\n  secret-type: jwt")
    assert any("secret-type applies to secret skills" in p.message for p in parsed.problems)  # type: ignore[attr-defined]


def test_bundled_dependency_methodology_is_complete() -> None:
    analysis = (
        SkillLoader().load(AgentName.ANALYSIS, AgentSkills()).for_kind(FindingKind.DEPENDENCY)
    )
    names = {s.name for s in analysis.enabled}
    assert {
        "dependency-intake",
        "package-imports",
        "vulnerable-symbols",
        "dev-only-dependency",
        "reachability",
        "affected-range-recheck",
        "fix-availability",
        "vex-reporting",
    } <= names
    required = set(applicable_required(analysis.enabled, None))
    assert {"dependency-intake", "package-imports", "reachability", "vex-reporting"} <= required
    for agent, skill in (
        (AgentName.CHALLENGER, "dependency-evidence-audit"),
        (AgentName.JUDGE, "dependency-judging-rubric"),
    ):
        loaded = SkillLoader().load(agent, AgentSkills()).for_kind(FindingKind.DEPENDENCY)
        assert applicable_required(loaded.enabled, None) == [skill]


def test_compliance_of_a_dependency_counts_dependency_skills_only() -> None:
    loaded = SkillLoader().load(AgentName.ANALYSIS, AgentSkills())
    dependency = loaded.for_kind(FindingKind.DEPENDENCY)
    secret = loaded.for_kind(FindingKind.SECRET)
    required = applicable_required(dependency.enabled, None)
    full = compute_compliance(dependency.enabled, required, None)
    assert full.score == 1.0 and "finding-intake" not in full.applicable
    assert not set(required) & {s.name for s in secret.enabled}


def test_the_catalog_names_the_kind_of_a_dependency_skill() -> None:
    loaded = SkillLoader().load(AgentName.ANALYSIS, AgentSkills())
    intake = loaded.get("dependency-intake")
    assert intake is not None
    assert 'kind="dependency"' in catalog_entry(intake)
    secret = loaded.get("finding-intake")
    assert secret is not None and "kind=" not in catalog_entry(secret)


def test_a_dependency_session_cannot_load_a_secret_skill() -> None:
    loaded = SkillLoader().load(AgentName.ANALYSIS, AgentSkills())
    session = SkillSession(loaded.for_kind(FindingKind.DEPENDENCY))
    with pytest.raises(SkillToolError, match="unknown skill 'finding-intake'"):
        session.activate("finding-intake")
    assert "<skill_content" in session.activate("package-imports")
    secret = SkillSession(loaded.for_kind(FindingKind.SECRET))
    with pytest.raises(SkillToolError, match="unknown skill 'package-imports'"):
        secret.activate("package-imports")


def test_an_exported_dependency_skill_keeps_its_kind(tmp_path: Path) -> None:
    source = tmp_path / "src" / "dep-check"
    source.mkdir(parents=True)
    (source / "SKILL.md").write_text(
        "---\nname: dep-check\ndescription: d\nkind: dependency\nagent: analysis\n---\n# T\n"
    )
    loaded = SkillLoader().load(AgentName.ANALYSIS, AgentSkills(directories=(tmp_path / "src",)))
    skill = loaded.get("dep-check")
    assert skill is not None and skill.kinds == (FindingKind.DEPENDENCY,)
    written = export_skills(loaded.for_kind(FindingKind.DEPENDENCY), tmp_path / "out", force=False)
    assert tmp_path / "out" / "dep-check" in written
    assert tmp_path / "out" / "finding-intake" not in written  # a secret skill
    exported = parse_skill_text((tmp_path / "out" / "dep-check" / "SKILL.md").read_text(), P)
    assert exported.kinds == (FindingKind.DEPENDENCY,)  # type: ignore[attr-defined]
    assert exported.strict_problems == ()  # type: ignore[attr-defined]  # kind moved under metadata
