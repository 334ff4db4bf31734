"""Config files, environment, flags: precedence, unknown keys, bad values, paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from thresher.config.settings import AgentName, load_settings
from thresher.errors import ConfigError, ExitCode

A = AgentName.ANALYSIS


def test_defaults_without_any_config(tmp_path: Path) -> None:
    loaded = load_settings(cwd=tmp_path, environ={})
    assert loaded.config_file is None
    assert loaded.settings.color is True
    assert loaded.settings.agent(A).model is None


def test_pyproject_table_is_found_in_cwd(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.thresher]\ncolor = false\n'
        '[tool.thresher.agents.analysis]\nmodel = "openai:gpt-4o"\n'
    )
    loaded = load_settings(cwd=tmp_path, environ={})
    assert loaded.config_file == tmp_path / "pyproject.toml"
    assert loaded.settings.color is False
    assert loaded.settings.agent(A).model == "openai:gpt-4o"


def test_pyproject_without_thresher_table_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert load_settings(cwd=tmp_path, environ={}).config_file is None


def test_thresher_toml_uses_top_level_keys_and_wins_over_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.thresher]\ncolor = true\n")
    (tmp_path / "thresher.toml").write_text("color = false\n")
    loaded = load_settings(cwd=tmp_path, environ={})
    assert loaded.config_file == tmp_path / "thresher.toml"
    assert loaded.settings.color is False


def test_precedence_flags_over_env_over_file_over_defaults(tmp_path: Path) -> None:
    (tmp_path / "thresher.toml").write_text(
        'color = false\n[agents.analysis]\nmodel = "file:m"\n[agents.judge]\nmodel = "file:j"\n'
    )
    env = {"THRESHER_COLOR": "true", "THRESHER_AGENTS__ANALYSIS__MODEL": "env:m"}
    file_only = load_settings(cwd=tmp_path, environ={}).settings
    with_env = load_settings(cwd=tmp_path, environ=env).settings
    with_flag = load_settings(cwd=tmp_path, environ=env, overrides={"color": False}).settings
    assert file_only.color is False
    assert with_env.color is True
    assert with_flag.color is False
    assert with_env.agent(A).model == "env:m"
    assert with_env.agent(AgentName.JUDGE).model == "file:j"  # deep merge keeps siblings
    assert with_env.agent(AgentName.CHALLENGER).model is None


def test_unknown_key_in_pyproject_names_key_and_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.thresher]\ncolour = false\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(cwd=tmp_path, environ={})
    assert str(caught.value) == (
        f"unknown key 'tool.thresher.colour' in {tmp_path / 'pyproject.toml'}"
    )
    assert caught.value.exit_code is ExitCode.USAGE
    assert caught.value.hint and "known keys" in caught.value.hint


def test_unknown_nested_key_in_thresher_toml(tmp_path: Path) -> None:
    (tmp_path / "thresher.toml").write_text("[skills.analysis]\ndisable = ['x']\n")
    with pytest.raises(ConfigError, match=r"unknown key 'skills\.analysis\.disable' in "):
        load_settings(cwd=tmp_path, environ={})


def test_unknown_agent_is_reported(tmp_path: Path) -> None:
    (tmp_path / "thresher.toml").write_text("[agents.reviewer]\nmodel = 'a:b'\n")
    with pytest.raises(ConfigError, match=r"agents\.reviewer"):
        load_settings(cwd=tmp_path, environ={})


def test_unknown_environment_variable_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown setting THRESHER_COLOUR in the environment"):
        load_settings(cwd=tmp_path, environ={"THRESHER_COLOUR": "0"})


def test_bad_value_names_where_it_came_from(tmp_path: Path) -> None:
    (tmp_path / "thresher.toml").write_text("[agents.analysis]\nmodel = 'gpt-4o'\n")
    with pytest.raises(
        ConfigError,
        match=r"thresher\.toml: 'agents\.analysis\.model': .*"
        r"provider:model",
    ):
        load_settings(cwd=tmp_path, environ={})
    (tmp_path / "thresher.toml").unlink()
    with pytest.raises(ConfigError, match="environment variable THRESHER_COLOR"):
        load_settings(cwd=tmp_path, environ={"THRESHER_COLOR": "sometimes"})


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "thresher.toml").write_text("color = \n")
    with pytest.raises(ConfigError, match=r"thresher\.toml: invalid TOML"):
        load_settings(cwd=tmp_path, environ={})


def test_explicit_config_path_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config file not found: missing\.toml"):
        load_settings(config_path=Path("missing.toml"), cwd=tmp_path, environ={})


def test_config_path_from_environment(tmp_path: Path) -> None:
    other = tmp_path / "ci" / "thresher.toml"
    other.parent.mkdir()
    other.write_text("color = false\n")
    loaded = load_settings(cwd=tmp_path, environ={"THRESHER_CONFIG": str(other)})
    assert loaded.config_file == other and loaded.settings.color is False


def test_skill_paths_resolve_against_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "conf" / "thresher.toml"
    config.parent.mkdir()
    config.write_text(
        '[skills.analysis]\ndirectories = ["team-skills"]\ndisabled = ["passwords"]\n'
        '[[skills.analysis.mounts]]\nsource = "guides/vault.md"\nname = "vault"\n'
        "enabled = false\n"
    )
    skills = load_settings(config_path=config, cwd=tmp_path, environ={}).settings.agent_skills(A)
    assert skills.directories == (tmp_path / "conf" / "team-skills",)
    assert skills.disabled == ("passwords",)
    mount = skills.mounts[0]
    assert (mount.source, mount.name, mount.enabled) == (
        tmp_path / "conf" / "guides/vault.md",
        "vault",
        False,
    )


def test_json_lists_from_the_environment(tmp_path: Path) -> None:
    env = {"THRESHER_SKILLS__ANALYSIS__DISABLED": '["jwts", "passwords"]'}
    skills = load_settings(cwd=tmp_path, environ=env).settings.agent_skills(A)
    assert skills.disabled == ("jwts", "passwords")
    with pytest.raises(ConfigError, match="THRESHER_SKILLS__ANALYSIS__DISABLED: invalid JSON"):
        load_settings(cwd=tmp_path, environ={"THRESHER_SKILLS__ANALYSIS__DISABLED": "[oops"})


def test_a_projects_broken_pyproject_without_thresher_table_does_not_block(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project\nname = 'x'\n", encoding="utf-8")
    loaded = load_settings(cwd=tmp_path, environ={})
    assert loaded.config_file is None


def test_a_broken_pyproject_that_configures_thresher_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.thresher\ncolor = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"pyproject\.toml: invalid TOML") as info:
        load_settings(cwd=tmp_path, environ={})
    assert info.value.exit_code is ExitCode.USAGE


def test_a_config_file_that_is_not_utf8_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "thresher.toml").write_bytes(b"# caf\xe9\ncolor = true\n")
    with pytest.raises(ConfigError, match=r"thresher\.toml: not UTF-8 text") as info:
        load_settings(cwd=tmp_path, environ={})
    assert info.value.exit_code is ExitCode.USAGE
