"""Discovery, hidden templates, config disables, directories, mounts, limits, symlinks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import write_skill
from thresher.config.settings import AgentName, AgentSkills, SkillMount
from thresher.errors import SkillError
from thresher.skills import SkillLimits, SkillLoader, SkillOrigin

A = AgentName.ANALYSIS


def load(loader: SkillLoader, root: Path, config: AgentSkills | None = None):  # type: ignore[no-untyped-def]
    return loader.load(A, config or AgentSkills(), bundled_root=root)


def problems(loader: SkillLoader, root: Path, config: AgentSkills | None = None) -> list[str]:
    _, found = loader.collect(A, config or AgentSkills(), bundled_root=root)
    return [str(p) for p in found]


def test_phase_directories_and_hidden_templates(loader: SkillLoader, skill_root: Path) -> None:
    write_skill(skill_root / "analysis/1-initialization/intake", metadata={"required": "true"})
    write_skill(skill_root / "analysis/3-verification/_template", name="template")
    write_skill(skill_root / "analysis/flat")
    skills = load(loader, skill_root)
    by_name = {s.name: s for s in skills.skills}
    assert by_name["intake"].phase == "1-initialization"  # inferred from its directory
    assert by_name["intake"].required
    assert by_name["template"].hidden and not by_name["template"].enabled
    assert by_name["flat"].phase is None
    assert [s.name for s in skills.enabled] == ["intake", "flat"]


def test_phase_that_contradicts_its_directory(loader: SkillLoader, skill_root: Path) -> None:
    write_skill(
        skill_root / "analysis/1-initialization/intake", metadata={"phase": "2-context-gathering"}
    )
    assert any("does not match its phase directory" in p for p in problems(loader, skill_root))


def test_missing_skill_md_names_the_directory(loader: SkillLoader, skill_root: Path) -> None:
    (skill_root / "analysis/2-context/empty-skill").mkdir(parents=True)
    (skill_root / "analysis/2-context/empty-skill/notes.md").write_text("x")
    lower = skill_root / "analysis/lower"
    lower.mkdir()
    (lower / "skill.md").write_text("---\nname: lower\ndescription: d\n---\n")
    found = problems(loader, skill_root)
    assert any("empty-skill:1: missing SKILL.md" in p for p in found)
    assert any("rename skill.md to SKILL.md" in p for p in found)


def test_name_must_match_directory(loader: SkillLoader, skill_root: Path) -> None:
    write_skill(skill_root / "analysis/aws-keys", name="aws")
    found = problems(loader, skill_root)
    assert found == [
        f"{skill_root}/analysis/aws-keys/SKILL.md:2: name 'aws' must equal its "
        "directory name 'aws-keys'"
    ]


def test_agent_metadata_must_match(loader: SkillLoader, skill_root: Path) -> None:
    write_skill(skill_root / "analysis/judge-only", metadata={"agent": "judge"})
    assert any("does not match the analysis skills" in p for p in problems(loader, skill_root))


def test_duplicate_names_name_both_paths(
    loader: SkillLoader, skill_root: Path, tmp_path: Path
) -> None:
    first = write_skill(skill_root / "analysis/1-a/dup")
    extra = tmp_path / "extra"
    second = write_skill(extra / "dup")
    with pytest.raises(SkillError) as caught:
        load(loader, skill_root, AgentSkills(directories=(extra,)))
    message = str(caught.value.problems[0])
    assert str(first) in message and str(second) in message
    assert "duplicate skill name 'dup'" in message


def test_configured_directories_add_skills(
    loader: SkillLoader, skill_root: Path, tmp_path: Path
) -> None:
    write_skill(tmp_path / "team/vault-tokens")
    write_skill(tmp_path / "single")
    skills = load(
        loader, skill_root, AgentSkills(directories=(tmp_path / "team", tmp_path / "single"))
    )
    assert {s.name: s.origin for s in skills.skills} == {
        "vault-tokens": SkillOrigin.DIRECTORY,
        "single": SkillOrigin.DIRECTORY,
    }


def test_missing_configured_directory(
    loader: SkillLoader, skill_root: Path, tmp_path: Path
) -> None:
    found = problems(loader, skill_root, AgentSkills(directories=(tmp_path / "nope",)))
    assert found == [f"{tmp_path}/nope:1: configured skills directory does not exist"]


def test_disabled_by_config(loader: SkillLoader, skill_root: Path) -> None:
    write_skill(skill_root / "analysis/noisy")
    write_skill(skill_root / "analysis/kept")
    skills = load(loader, skill_root, AgentSkills(disabled=("noisy",)))
    assert [s.name for s in skills.enabled] == ["kept"]
    assert skills.find("noisy") is not None and not skills.find("noisy").enabled  # type: ignore[union-attr]


def test_disabling_an_unknown_skill_is_an_error(loader: SkillLoader, skill_root: Path) -> None:
    found = problems(loader, skill_root, AgentSkills(disabled=("typo",)))
    assert any("disabled names unknown skill 'typo'" in p for p in found)


def test_mount_directory_with_name_override(
    loader: SkillLoader, skill_root: Path, tmp_path: Path
) -> None:
    write_skill(tmp_path / "upstream-skill")
    mount = SkillMount(source=tmp_path / "upstream-skill", name="renamed")
    skills = load(loader, skill_root, AgentSkills(mounts=(mount,)))
    skill = skills.get("renamed")
    assert skill is not None and skill.origin is SkillOrigin.MOUNT


def test_mount_single_markdown_file(loader: SkillLoader, skill_root: Path, tmp_path: Path) -> None:
    guide = tmp_path / "Vault-Guide.md"
    guide.write_text("# Vault\n\n## Description\n\nHow to triage Vault tokens.\n")
    skills = load(
        loader, skill_root, AgentSkills(mounts=(SkillMount(source=guide, name="vault-guide"),))
    )
    skill = skills.get("vault-guide")
    assert skill is not None
    assert skill.description == "How to triage Vault tokens."
    assert skill.root is None and skill.references == ()


def test_disabled_mount(loader: SkillLoader, skill_root: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "off")
    skills = load(
        loader,
        skill_root,
        AgentSkills(mounts=(SkillMount(source=tmp_path / "off", enabled=False),)),
    )
    assert skills.get("off") is None and skills.find("off") is not None


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: None, "mounted skill source does not exist"),
        (lambda p: p.mkdir(), "missing SKILL.md in mounted skill directory"),
        (lambda p: p.write_text("x"), "a mount must be a skill directory or a .md file"),
    ],
)
def test_bad_mounts(loader: SkillLoader, skill_root: Path, tmp_path: Path, make, message) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "mounted.txt"
    make(source)
    found = problems(loader, skill_root, AgentSkills(mounts=(SkillMount(source=source),)))
    assert found and message in found[0]


def test_bad_mount_name_override(loader: SkillLoader, skill_root: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "ok")
    found = problems(
        loader,
        skill_root,
        AgentSkills(mounts=(SkillMount(source=tmp_path / "ok", name="Bad Name"),)),
    )
    assert any("name 'Bad Name' must be lowercase" in p for p in found)


def test_file_size_limit(skill_root: Path) -> None:
    loader = SkillLoader(SkillLimits(max_file_bytes=1000))
    write_skill(skill_root / "analysis/big", body="x" * 2000)
    found = problems(loader, skill_root)
    assert any("big/SKILL.md:1: file is" in p and "the limit is" in p for p in found)


def test_default_limits_are_the_documented_ones(skill_root: Path) -> None:
    skill = skill_root / "analysis/huge"
    write_skill(skill)
    (skill / "references").mkdir()
    with (skill / "references/blob.md").open("wb") as handle:
        handle.truncate(1024 * 1024 + 1)  # sparse: 1 MiB + 1 byte
    found = problems(SkillLoader(), skill_root)
    assert any("blob.md:1: file is 1.0 MiB; the limit is 1.0 MiB" in p for p in found)


def test_skill_size_limit(skill_root: Path) -> None:
    loader = SkillLoader(SkillLimits(max_file_bytes=10_000, max_skill_bytes=15_000))
    skill = skill_root / "analysis/wide"
    write_skill(skill)
    for index in range(2):
        (skill / f"ref{index}.md").write_text("y" * 9_000)
    assert any("wide:1: skill is" in p for p in problems(loader, skill_root))


def test_total_size_limit(skill_root: Path) -> None:
    loader = SkillLoader(SkillLimits(max_total_bytes=10_000))
    for index in range(3):
        write_skill(skill_root / f"analysis/s{index}", body="z" * 4_000)
    assert any("the analysis skills total" in p for p in problems(loader, skill_root))


def test_symlink_leaving_the_skill_is_refused(
    skill_root: Path, tmp_path: Path, loader: SkillLoader
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("not for models")
    skill = skill_root / "analysis/linky"
    write_skill(skill)
    os.symlink(outside, skill / "escape.md")
    os.symlink(tmp_path, skill / "escape-dir")
    found = problems(loader, skill_root)
    assert any("escape.md:1: symlink leaves the skill directory" in p for p in found)
    assert any("escape-dir:1: symlink leaves the skill directory" in p for p in found)


def test_symlink_inside_the_skill_is_fine(skill_root: Path, loader: SkillLoader) -> None:
    skill = skill_root / "analysis/inner"
    write_skill(skill)
    (skill / "references").mkdir()
    (skill / "references/a.md").write_text("a")
    os.symlink(skill / "references/a.md", skill / "alias.md")
    skills = load(loader, skill_root)
    assert skills.get("inner").references == ("alias.md", "references/a.md")  # type: ignore[union-attr]


def test_symlinked_skill_md_leaving_is_refused(
    skill_root: Path, tmp_path: Path, loader: SkillLoader
) -> None:
    real = write_skill(tmp_path / "elsewhere/x")
    skill = skill_root / "analysis/x"
    skill.mkdir()
    os.symlink(real, skill / "SKILL.md")
    found = problems(loader, skill_root)
    assert found == [f"{skill}/SKILL.md:1: symlink leaves the skill directory"]


def test_all_problems_reported_together(skill_root: Path, loader: SkillLoader) -> None:
    write_skill(skill_root / "analysis/one", name="One")
    write_skill(skill_root / "analysis/two", frontmatter="name: two")
    with pytest.raises(SkillError) as caught:
        load(loader, skill_root)
    assert len(caught.value.problems) >= 2


def test_unchanged_tree_is_not_reread(skill_root: Path) -> None:
    loader = SkillLoader()
    for name in ("a", "b", "c"):
        write_skill(skill_root / f"analysis/{name}")
    load(loader, skill_root)
    assert loader.reads == 3
    load(loader, skill_root)
    assert loader.reads == 3
    path = skill_root / "analysis/b/SKILL.md"
    path.write_text(path.read_text() + "\nMore steps.\n")
    reloaded = load(loader, skill_root)
    assert loader.reads == 4
    assert "More steps." in reloaded.get("b").body  # type: ignore[union-attr]
