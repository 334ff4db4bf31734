"""The triage guide tells the truth about the command line: every flag it shows for
``thresher triage`` and ``thresher report merge`` is one the CLI accepts; the README's exit
code table has every code."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from thresher.cli.app import app
from thresher.errors import ExitCode

README = Path(__file__).resolve().parents[2] / "README.md"
GUIDE = README.parent / "docs/guides/triage.md"


def _options(*path: str) -> set[str]:
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    return {opt for param in command.params for opt in param.opts}


def _section() -> str:
    text = GUIDE.read_text()
    start = text.index("## Triage GitHub secret-scanning alerts")
    return text[start : text.index("\n## ", start + 1)]


def test_every_flag_the_readme_shows_for_triage_exists() -> None:
    section = _section()
    block = section[section.index("```sh") : section.index("```", section.index("```sh") + 5)]
    triage, merge = _options("triage"), _options("report", "merge")
    shown: set[str] = set()
    for line in block.splitlines():
        command = line.split("#", 1)[0]
        flags = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", command))
        if "thresher triage" in command:
            assert flags <= triage, f"{line!r}: {sorted(flags - triage)}"
        elif "thresher report merge" in command:
            assert flags <= merge, f"{line!r}: {sorted(flags - merge)}"
        shown |= flags
    wanted = {
        "--repo", "--org", "--state", "--secret-type", "--validity", "--since", "--api-url",
        "--app-id", "--app-key", "--apply", "--apply-min-confidence", "--max-apply",
        "--state-db", "--shard", "--max-rate-wait", "--wait",
    }  # fmt: skip
    assert wanted <= shown
    assert "examples/workflows/secret-triage.yml" in section
    assert (README.parent / "examples/workflows/secret-triage.yml").is_file()


def test_every_exit_code_is_in_the_readmes_table_and_the_triage_section_says_overlap() -> None:
    text = README.read_text()
    table = text[text.index("## Exit codes") :]
    for code in ExitCode:
        assert f"\n| {int(code)} | " in table, code
    section = _section()
    assert "**Overlap and resume.**" in section
    assert "--wait SECONDS" in section and "exits\n**4**" in section
