"""The CLI frame: version, help, global options, the error boundary and exit codes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from thresher import __version__

Cli = Callable[..., Result]


def test_version(cli: Cli) -> None:
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout == f"thresher {__version__}\n"


def test_help_lists_commands_and_global_options(cli: Cli) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    for text in ("skills", "agents", "--config", "--verbose", "--quiet", "--no-color"):
        assert text in result.stdout


def test_unknown_option_is_a_usage_error(cli: Cli) -> None:
    result = cli("--bogus")
    assert result.exit_code == 2
    assert "No such option: --bogus" in result.stderr
    assert "Traceback" not in result.output


def test_user_error_is_one_line_with_hint_and_no_traceback(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "thresher.toml").write_text("colour = false\n")
    result = cli("agents", "list")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == f"thresher: error: unknown key 'colour' in {tmp_path / 'thresher.toml'}"
    assert lines[1].startswith("  hint: known keys:")
    assert "Traceback" not in result.stderr


def test_verbose_adds_the_traceback(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "thresher.toml").write_text("colour = false\n")
    result = cli("-v", "agents", "list")
    assert result.exit_code == 2
    assert "Traceback" in result.stderr


def test_missing_config_flag_file(cli: Cli) -> None:
    result = cli("--config", "nope.toml", "agents", "list")
    assert result.exit_code == 2
    assert "config file not found: nope.toml" in result.stderr


def test_config_flag_applies_settings(cli: Cli, tmp_path: Path) -> None:
    config = tmp_path / "ci.toml"
    config.write_text('[agents.judge]\nmodel = "anthropic:claude-sonnet-4-5"\n')
    result = cli("--config", str(config), "agents", "show", "judge")
    assert result.exit_code == 0
    assert "model: anthropic:claude-sonnet-4-5" in result.stdout


def test_environment_overrides_file_and_flag_overrides_environment(
    cli: Cli, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "thresher.toml").write_text('[agents.judge]\nmodel = "file:m"\n')
    monkeypatch.setenv("THRESHER_AGENTS__JUDGE__MODEL", "env:m")
    assert "model: env:m" in cli("agents", "show", "judge").stdout


def test_quiet_silences_info(cli: Cli) -> None:
    loud = cli("skills", "validate")
    quiet = cli("-q", "skills", "validate")
    assert "problem(s)" in loud.stderr
    assert quiet.stderr == ""
    assert loud.exit_code == quiet.exit_code == 0
