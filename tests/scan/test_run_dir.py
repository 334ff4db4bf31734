"""The run directory: thresher's output stays out of git and out of later scans:
three scans in a row of one repository find the same candidates."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from contextlib import chdir
from pathlib import Path

import pytest
from typer.testing import Result

from tests.gitrepo import git
from tests.scan.test_scan_e2e import make_demo
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


def decided(report: Path) -> list[tuple[str, int, str, str]]:
    decisions = json.loads(report.read_text())["decisions"]
    return sorted(
        (d["finding"]["locations"][0]["path"], d["finding"]["locations"][0]["line"],
         d["finding"]["rule_id"], d["verdict"])
        for d in decisions
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("in_git", [True, False], ids=["git", "plain-directory"])
def test_three_scans_in_a_row_find_the_same_candidates(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_git: bool
) -> None:
    """Run from the repository root, as CI does: each run writes its run directory
    (reports and transcripts quoting the findings) and its reports inside the
    repository, and the next run must not find any of it."""
    root, secrets = make_demo(tmp_path)
    if not in_git:
        shutil.rmtree(root / ".git")
    monkeypatch.chdir(root)
    seen = []
    for run in range(3):
        result = cli(
            "scan", "--json", f"report-{run}.json", "--sarif", f"report-{run}.sarif",
            "--markdown", f"report-{run}.md",
        )  # fmt: skip
        assert result.exit_code == 1, result.stderr
        seen.append(decided(root / f"report-{run}.json"))
    assert seen[0] == seen[1] == seen[2]
    assert len(seen[0]) >= 6
    assert not any(path.startswith((".thresher", "report-")) for path, *_ in seen[0])
    assert len(list((root / ".thresher/runs").glob("*/report.json"))) == 3
    for artifact in [*root.glob("report-*"), *(root / ".thresher").rglob("*.json*")]:
        for secret in secrets:
            assert secret not in artifact.read_text()
