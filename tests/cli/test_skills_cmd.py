"""``thresher skills`` through typer's test runner."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from tests.conftest import write_skill
from thresher.skills.parser import parse_skill_text

Cli = Callable[..., Result]


def test_list_json_for_analysis(cli: Cli) -> None:
    result = cli("skills", "list", "--agent", "analysis", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    enabled = [r for r in rows if r["enabled"]]
    assert len(enabled) >= 16
    assert sum(r["required"] for r in enabled) >= 6
    assert {r["agent"] for r in rows} == {"analysis"}
    github = next(r for r in rows if r["name"] == "github-tokens")
    assert github == {
        **github,
        "phase": "3-verification",
        "required": True,
        "secret_type": ["github-token"],
        "source": "bundled",
    }
    template = next(r for r in rows if r["name"] == "secret-type-template")
    assert template["hidden"] and not template["enabled"]


def test_list_table_for_every_agent(cli: Cli) -> None:
    result = cli("--no-color", "skills", "list")
    assert result.exit_code == 0
    for name in ("finding-intake", "evidence-audit", "judging-rubric", "hidden"):
        assert name in result.stdout


def test_list_shows_disabled_and_mounted(cli: Cli, tmp_path: Path) -> None:
    write_skill(tmp_path / "mine" / "vault-tokens")
    (tmp_path / "thresher.toml").write_text(
        '[skills.analysis]\ndisabled = ["passwords"]\n'
        '[[skills.analysis.mounts]]\nsource = "mine/vault-tokens"\n'
    )
    rows = json.loads(cli("skills", "list", "-a", "analysis", "--json").stdout)
    by_name = {r["name"]: r for r in rows}
    assert by_name["passwords"]["enabled"] is False
    assert by_name["vault-tokens"]["source"] == "mount"


def test_show(cli: Cli) -> None:
    result = cli("skills", "show", "github-tokens")
    assert result.exit_code == 0
    assert "secret-type: github-token" in result.stdout
    assert "checksum" in result.stdout.lower()


def test_show_unknown(cli: Cli) -> None:
    result = cli("skills", "show", "nope")
    assert result.exit_code == 2
    assert "no skill named 'nope'" in result.stderr


def test_validate_bundled_strict_passes(cli: Cli) -> None:
    result = cli("skills", "validate", "--strict")
    assert result.exit_code == 0, result.stdout
    assert result.stdout == ""
    assert ": 0 problem(s)" in result.stderr


def test_validate_paths_reports_path_line_message(cli: Cli, tmp_path: Path) -> None:
    bad = write_skill(tmp_path / "tree" / "bad-skill", name="Bad_Skill")
    compat = write_skill(tmp_path / "tree" / "compat", extra="required: true")
    result = cli("skills", "validate", str(tmp_path / "tree"))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        f"{bad}:2: name 'Bad_Skill' must be lowercase letters, digits and single hyphens, "
        "not starting or ending with a hyphen",
        f"{bad}:2: name 'Bad_Skill' must equal its directory name 'bad-skill'",
    ]
    strict = cli("skills", "validate", "--strict", str(compat))
    assert strict.exit_code == 1
    assert strict.stdout == (
        f"{compat}:4: 'required' belongs under 'metadata:' (top level is thresher-only)\n"
    )


def test_validate_missing_path(cli: Cli) -> None:
    result = cli("skills", "validate", "nowhere")
    assert result.exit_code == 1
    assert result.stdout == "nowhere:1: no such file or directory\n"


def test_broken_configured_skill_stops_before_anything_runs(cli: Cli, tmp_path: Path) -> None:
    write_skill(tmp_path / "extra" / "dup", name="finding-intake")
    (tmp_path / "thresher.toml").write_text('[skills.analysis]\ndirectories = ["extra"]\n')
    result = cli("agents", "render", "analysis", "--finding", "f.json")
    assert result.exit_code == 2
    assert "duplicate skill name 'finding-intake'" in result.stderr
    validate = cli("skills", "validate")
    assert validate.exit_code == 1 and "duplicate skill name" in validate.stdout


def test_new_scaffolds_a_strictly_valid_skill(cli: Cli, tmp_path: Path) -> None:
    result = cli(
        "skills",
        "new",
        "vault-tokens",
        "--agent",
        "analysis",
        "--phase",
        "3-verification",
        "--required",
    )
    assert result.exit_code == 0, result.stderr
    path = tmp_path / "skills/analysis/3-verification/vault-tokens/SKILL.md"
    assert result.stdout.strip() == "skills/analysis/3-verification/vault-tokens/SKILL.md"
    assert cli("skills", "validate", "--strict", str(path.parent)).exit_code == 0
    parsed = parse_skill_text(path.read_text(), path)
    assert (parsed.name, parsed.required, parsed.phase) == ("vault-tokens", True, "3-verification")
    (tmp_path / "thresher.toml").write_text(
        '[skills.analysis]\ndirectories = ["skills/analysis"]\n'
    )
    rows = json.loads(cli("skills", "list", "-a", "analysis", "--json").stdout)
    assert any(r["name"] == "vault-tokens" and r["source"] == "directory" for r in rows)


def test_new_refuses_bad_name_and_overwrite(cli: Cli) -> None:
    bad = cli("skills", "new", "Vault Tokens", "--agent", "judge")
    assert bad.exit_code == 2 and "invalid skill name" in bad.stderr
    assert cli("skills", "new", "x", "--agent", "judge").exit_code == 0
    again = cli("skills", "new", "x", "--agent", "judge")
    assert again.exit_code == 2 and "already exists" in again.stderr


def test_export_copies_enabled_skills_and_refuses_overwrite(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / ".claude" / "skills"
    result = cli("skills", "export", "--agent", "challenger", "--to", str(target))
    assert result.exit_code == 0, result.stderr
    exported = sorted(p.name for p in target.iterdir())
    assert exported == [
        "dependency-evidence-audit",
        "evidence-audit",
        "false-indicator-recognition",
        "rotation-and-revocation-analysis",
    ]
    strict = cli("skills", "validate", "--strict", str(target))
    assert strict.exit_code == 0, strict.stdout
    again = cli("skills", "export", "--agent", "challenger", "--to", str(target))
    assert again.exit_code == 2 and "--force" in again.stderr
    forced = cli("skills", "export", "--agent", "challenger", "--to", str(target), "--force")
    assert forced.exit_code == 0


def test_export_normalises_mounted_single_file(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text("# Guide\n\n## Description\n\nJudge tie-breaks.\n")
    (tmp_path / "thresher.toml").write_text(
        '[[skills.judge.mounts]]\nsource = "guide.md"\nname = "tie-breaks"\n'
    )
    target = tmp_path / "out"
    assert cli("skills", "export", "-a", "judge", "--to", str(target)).exit_code == 0
    text = (target / "tie-breaks" / "SKILL.md").read_text()
    parsed = parse_skill_text(text, target / "tie-breaks" / "SKILL.md")
    assert parsed.problems == () and parsed.strict_problems == ()
    assert parsed.description == "Judge tie-breaks."
    assert parsed.metadata["agent"] == "judge"
