"""The run directory: thresher's output stays out of git and out of later scans."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import chdir
from pathlib import Path

from typer.testing import Result

from tests.gitrepo import git
from tests.tokens import github_token

Cli = Callable[..., Result]


def repository(root: Path) -> None:
    git(root, "init", "-q")
    (root / "app.py").write_text(f'TOKEN = "{github_token(seed=3)}"\n')
    git(root, "add", "app.py")
    git(root, "commit", "-q", "-m", "init")


def findings_in(report: Path) -> list[tuple[str, str]]:
    decisions = json.loads(report.read_text())["decisions"]
    return [(d["finding"]["locations"][0]["path"], d["finding"]["rule_id"]) for d in decisions]


def test_git_ignores_the_run_directory(cli: Cli, tmp_path: Path) -> None:
    repository(tmp_path)
    result = cli("scan", "--root", str(tmp_path), "--json", str(tmp_path / "out/report.json"))
    assert result.exit_code == 1, result.stderr
    assert (tmp_path / ".thresher/.gitignore").read_text() == "*\n"
    assert list((tmp_path / ".thresher/runs").glob("*/report.json"))
    status = git(tmp_path, "status", "--porcelain", "--untracked-files=all")
    assert ".thresher" not in status
    assert "out/report.json" in status  # only thresher's own directory is ignored


def test_a_second_scan_does_not_find_the_first_runs_output(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(f'TOKEN = "{github_token(seed=4)}"\n')  # no git here
    first = cli("scan", "--root", str(tmp_path), "--json", str(tmp_path.parent / "first.json"))
    assert first.exit_code == 1, first.stderr
    runs = list((tmp_path / ".thresher/runs").glob("*/report.json"))
    assert runs and github_token(seed=4)[-3:] in runs[0].read_text()  # it quotes the finding
    second = cli("scan", "--root", str(tmp_path), "--json", str(tmp_path.parent / "second.json"))
    assert second.exit_code == 1, second.stderr
    assert findings_in(tmp_path.parent / "second.json") == [("app.py", "GitHub Token")]


def test_an_existing_gitignore_in_the_run_directory_is_kept(cli: Cli, tmp_path: Path) -> None:
    repository(tmp_path)
    (tmp_path / ".thresher").mkdir()
    (tmp_path / ".thresher/.gitignore").write_text("runs/\n")
    result = cli("scan", "--root", str(tmp_path))
    assert result.exit_code == 1, result.stderr
    assert (tmp_path / ".thresher/.gitignore").read_text() == "runs/\n"


def test_a_committed_link_cannot_send_transcripts_elsewhere(cli: Cli, tmp_path: Path) -> None:
    """A pull request that commits ``.thresher`` as a link to another directory."""
    repo = tmp_path / "repo"
    repo.mkdir()
    repository(repo)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".thresher").symlink_to(elsewhere)
    with chdir(repo):
        result = cli("scan")
    assert result.exit_code == 3
    assert "leads outside" in result.stderr and "symbolic link" in result.stderr
    assert not any(elsewhere.iterdir())
