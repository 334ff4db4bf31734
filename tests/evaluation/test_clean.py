"""``thresher eval --clean``: whole trees with no live credential, counted per tree."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from tests.tokens import github_token, random_secret

Cli = Callable[..., Result]
ROOT = Path(__file__).resolve().parents[2]


def clean_trees(root: Path) -> Path:
    """Two trees: one deployable config with a provider-format token (a false alarm on
    a clean tree: it is called real), one with only a placeholder."""
    app = root / "files" / "acme__app"
    (app / "src").mkdir(parents=True)
    (app / "tests").mkdir()
    (app / "src/settings.py").write_text(f'TOKEN = "{github_token(seed=3)}"\n')
    (app / "tests/test_api.py").write_text(f'API_KEY = "{random_secret(seed=4)}"\n')
    lib = root / "files" / "acme__lib"
    (lib / "docs").mkdir(parents=True)
    (lib / "docs/index.md").write_text("Set `password: your-password-here` in the config.\n")
    (root / "trees.tsv").write_text(
        "repository\tcommit\tfiles\tmissing\tskipped\n"
        f"acme__app\t{'a' * 40}\t2\t0\t0\nacme__lib\t{'b' * 40}\t1\t0\t0\n"
    )
    return root


def test_clean_eval_counts_false_real_and_escalations_per_tree(cli: Cli, tmp_path: Path) -> None:
    trees = clean_trees(tmp_path / "wild")
    result = cli("eval", str(trees), "--clean", "--json", "clean.json")
    assert result.exit_code == 0, result.stderr
    report = json.loads((tmp_path / "clean.json").read_text())
    rows = {row["repository"]: row for row in report["repositories"]}
    assert set(rows) == {"acme__app", "acme__lib"}
    assert rows["acme__app"]["commit"] == "a" * 40
    assert rows["acme__app"]["findings"] == 2
    # The checksum-valid token in deployable code is called real: on a clean tree, a
    # false alarm, and it is counted as one with the place it sits.
    assert rows["acme__app"]["false_real"] == 1
    assert rows["acme__app"]["false_real_by_file_kind"] == {"source": 1}
    assert rows["acme__lib"]["false_real"] == 0
    assert report["false_real"] == 1 and report["false_real_per_repository"] == 0.5
    assert report["findings"] == sum(r["findings"] for r in rows.values())
    assert 0.0 <= report["escalation_rate"] <= 1.0
    assert "acme__app" in result.stdout and "false `real` 1" in result.stdout
    # Secret values never reach the report.
    text = (tmp_path / "clean.json").read_text() + result.stdout
    assert github_token(seed=3) not in text and random_secret(seed=4) not in text


def test_clean_eval_reads_trees_placed_directly_in_the_directory(cli: Cli, tmp_path: Path) -> None:
    trees = clean_trees(tmp_path / "wild") / "files"
    result = cli("eval", str(trees), "--clean")
    assert result.exit_code == 0, result.stderr
    assert "2 repositories" in result.stdout


def test_clean_eval_errors_name_what_is_wrong(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("eval", str(empty), "--clean")
    assert result.exit_code == 2 and "no repository directory" in result.stderr
    trees = clean_trees(tmp_path / "wild")
    result = cli("eval", str(trees), "--clean", "--folds", "3")
    assert result.exit_code == 2 and "--folds with --clean" in result.stderr


def test_wild_export_writes_the_head_tree_and_its_commit(tmp_path: Path) -> None:
    repo = tmp_path / "mirror" / "acme+tool" / "repo"
    repo.mkdir(parents=True)

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
        ).stdout.strip()

    git("init", "-q")
    (repo / "src").mkdir()
    (repo / "src/app.py").write_text("print('hello')\n")
    (repo / "link").symlink_to("src/app.py")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "one")
    commit = git("rev-parse", "HEAD")
    out = tmp_path / "wild"
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks/wild_export.py"), str(out), str(repo / ".git")],
        check=True,
        capture_output=True,
    )
    assert (out / "files/acme__tool/src/app.py").read_text() == "print('hello')\n"
    assert not (out / "files/acme__tool/link").exists()  # a scanner follows no link
    manifest = (out / "trees.tsv").read_text().splitlines()
    assert manifest[1] == f"acme__tool\t{commit}\t1\t0\t1"
