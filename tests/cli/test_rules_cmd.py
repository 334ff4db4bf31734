"""``thresher rules list|show`` and custom rules in the built-in rules' format."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from thresher.errors import ExitCode
from thresher.findings.rules.book import builtin_rules

CUSTOM = """
[[rules]]
id = "acme-key"
pattern = 'acme_key\\s*=\\s*"(?P<v>[A-Z0-9]{20})"'
value_group = "v"
keywords = ["acme_key"]
provider = "acme"
severity = "critical"
"""


def test_list_shows_every_builtin_rule_and_the_custom_ones(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    (tmp_path / "thresher.toml").write_text(CUSTOM)
    result = cli("--no-color", "rules", "list")
    assert result.exit_code == 0, result.output
    for rule in builtin_rules():
        assert rule.id in result.stdout
    assert "acme-key" in result.stdout
    assert "custom" in result.stdout


def test_list_by_provider(cli: Callable[..., Result]) -> None:
    result = cli("--no-color", "rules", "list", "--provider", "gitlab")
    assert result.exit_code == 0
    assert "gitlab-token" in result.stdout
    assert "github-token" not in result.stdout


def test_show_prints_the_rule_as_data(cli: Callable[..., Result]) -> None:
    result = cli("rules", "show", "npm-token", "--json")
    assert result.exit_code == 0
    shown = json.loads(result.stdout)
    assert shown["origin"] == "built-in"
    assert shown["provider"] == "npm"
    assert shown["checks"] == ["npm-crc32"]
    assert shown["validator"] == "npm-token-format"
    text = cli("rules", "show", "npm-token").stdout
    assert "pattern:" in text
    assert "keywords:" in text


def test_show_of_an_unknown_rule_is_a_usage_error(cli: Callable[..., Result]) -> None:
    result = cli("rules", "show", "no-such-rule")
    assert result.exit_code == ExitCode.USAGE
    assert "no rule 'no-such-rule'" in result.output


def test_a_custom_rule_re2_cannot_compile_names_the_rule_and_exits_2(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    (tmp_path / "thresher.toml").write_text('[[rules]]\nid = "backref"\npattern = "(a)\\\\1"\n')
    result = cli("rules", "list")
    assert result.exit_code == ExitCode.USAGE
    assert "rule 'backref'" in result.output
    assert "RE2" in result.output
    assert "Traceback" not in result.output


def test_a_custom_rule_in_the_rule_format_finds_its_value(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    (tmp_path / "thresher.toml").write_text(CUSTOM)
    (tmp_path / "app.py").write_text('acme_key = "ABCDEFGHIJ0123456789"\n')
    result = cli("scan", "--escalate", "never", "--format", "json", "--fail-on", "never")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    rules = {d["finding"]["rule_id"] for d in report["decisions"]}
    assert "acme-key" in rules
