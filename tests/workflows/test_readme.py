"""The pull-request guide shows the workflow the repository ships, not a drifted copy."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from .tools import HOOKS, ROOT, run, tool

README = ROOT / "docs/guides/pull-requests.md"


def _block(marker: str) -> str:
    """The fenced block right after ``<!-- marker -->``."""
    match = re.search(rf"<!-- {marker} -->\n```\w*\n(.*?)```\n", README.read_text(), re.DOTALL)
    assert match, f"{README.name} has no fenced block after <!-- {marker} -->"
    return match.group(1)


def test_the_workflow_to_copy_is_the_example_file() -> None:
    assert _block("example:pr-scan") == (ROOT / "examples/workflows/pr-scan.yml").read_text()


def test_the_pre_commit_snippet_is_a_valid_config_naming_a_shipped_hook(tmp_path: Path) -> None:
    snippet = _block("example:pre-commit")
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(snippet)
    result = run([tool("pre-commit"), "validate-config", config], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    shipped = {hook["id"] for hook in yaml.safe_load(HOOKS.read_text())}
    used = {hook["id"] for repo in yaml.safe_load(snippet)["repos"] for hook in repo["hooks"]}
    assert used and used <= shipped
