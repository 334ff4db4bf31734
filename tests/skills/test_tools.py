"""The skill and read_skill_file tools: enum of names, wrapping, de-duplication, containment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import write_skill
from thresher.config.settings import AgentName, AgentSkills
from thresher.errors import SkillToolError
from thresher.skills import SkillLoader, SkillSession, skill_tool_schema


@pytest.fixture
def session(skill_root: Path, loader: SkillLoader) -> SkillSession:
    skill = skill_root / "analysis/github-tokens"
    write_skill(skill, body="# GitHub tokens\n\nCheck the checksum.\n")
    (skill / "references").mkdir()
    (skill / "references/prefixes.md").write_text("ghp_ personal\n")
    write_skill(skill_root / "analysis/other")
    write_skill(skill_root / "analysis/_hidden-template", name="hidden-template")
    write_skill(skill_root / "analysis/off")
    skills = loader.load(
        AgentName.ANALYSIS, AgentSkills(disabled=("off",)), bundled_root=skill_root
    )
    return SkillSession(skills)


def test_schema_enumerates_only_enabled_skills(session: SkillSession) -> None:
    schema = skill_tool_schema(session.skills)
    assert schema["properties"]["names"]["items"]["enum"] == ["github-tokens", "other"]
    assert schema["properties"]["name"]["enum"] == ["github-tokens", "other"]
    assert schema["additionalProperties"] is False


def test_a_list_of_skills_loads_in_one_answer(session: SkillSession) -> None:
    text = session.activate_all(["github-tokens", "other", "github-tokens"])
    assert text.index('<skill_content name="github-tokens">') < text.index(
        '<skill_content name="other">'
    )
    assert "Check the checksum." in text and "Steps." in text
    assert session.loaded == ("github-tokens", "other")


def test_a_list_with_an_unknown_name_loads_nothing(session: SkillSession) -> None:
    with pytest.raises(SkillToolError, match="unknown skill 'nope'"):
        session.activate_all(["other", "nope"])
    assert session.loaded == ()


def test_activation_wraps_body_and_lists_references(session: SkillSession) -> None:
    text = session.activate("github-tokens")
    assert text.startswith('<skill_content name="github-tokens">\n# GitHub tokens')
    assert "Check the checksum.\n</skill_content>" in text
    assert "- references/prefixes.md" in text
    assert session.loaded == ("github-tokens",)


def test_activation_is_deduplicated(session: SkillSession) -> None:
    first = session.activate("other")
    second = session.activate("other")
    assert "Steps." in first
    assert "already_loaded" in second and "Steps." not in second
    assert session.loaded == ("other",)


@pytest.mark.parametrize("name", ["off", "hidden-template", "nope"])
def test_disabled_hidden_and_unknown_skills_are_refused(session: SkillSession, name: str) -> None:
    with pytest.raises(
        SkillToolError, match=f"unknown skill '{name}'; available: github-tokens, other"
    ):
        session.activate(name)


def test_read_reference(session: SkillSession) -> None:
    assert session.read_file("github-tokens", "references/prefixes.md") == "ghp_ personal\n"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../other/SKILL.md", "'..' may not leave"),
        ("references/../../other/SKILL.md", "'..' may not leave"),
        ("/etc/passwd", "relative to the skill directory"),
        ("~/x", "relative to the skill directory"),
        ("", "relative to the skill directory"),
        ("references/missing.md", "no file 'references/missing.md'"),
    ],
)
def test_read_reference_refusals(session: SkillSession, path: str, reason: str) -> None:
    with pytest.raises(SkillToolError, match=reason.replace(".", r"\.").replace("(", r"\(")):
        session.read_file("github-tokens", path)


def test_symlink_out_of_the_skill_is_refused_at_read_time(
    session: SkillSession, tmp_path: Path
) -> None:
    # Planted after loading (a tree that changed under a running session).
    outside = tmp_path / "outside.txt"
    outside.write_text("private")
    root = session.skills.get("github-tokens").root  # type: ignore[union-attr]
    os.symlink(outside, root / "references/leak.md")
    with pytest.raises(SkillToolError, match="resolves outside the skill directory"):
        session.read_file("github-tokens", "references/leak.md")
