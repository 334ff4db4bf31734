"""--diff and --staged: only what the range (or the index) adds."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import git
from tests.tokens import github_token
from thresher.git.scope import parse_added_lines
from thresher.sources.scan import ScanError, ScanOptions, scan


def token_line(seed: int) -> str:
    return f'TOKEN_{seed} = "{github_token(seed=seed)}"\n'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "app.py").write_text("import os\n" + token_line(1) + "x = 1\n")
    (tmp_path / "old.py").write_text(token_line(2))
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "base")
    git(tmp_path, "tag", "base")
    return tmp_path


def hits(result_root: Path, **options: object) -> set[tuple[str, int]]:
    result = scan(ScanOptions(root=result_root, workers=1, **options))  # type: ignore[arg-type]
    return {(c.path, c.line) for c in result.candidates}


def test_diff_reports_only_added_lines_at_head(repo: Path) -> None:
    (repo / "app.py").write_text("import os\n" + token_line(1) + token_line(3) + "x = 1\n")
    (repo / "new file.py").write_text("y = 2\n" + token_line(4))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "head")
    # Work-tree edits after the commit are not part of the range.
    (repo / "app.py").write_text(token_line(5))
    head = git(repo, "rev-parse", "HEAD").strip()
    result = scan(ScanOptions(root=repo, workers=1, diff="base..HEAD"))
    assert {(c.path, c.line) for c in result.candidates} == {("app.py", 3), ("new file.py", 2)}
    assert all(loc.commit == head for f in result.findings for loc in f.locations)
    assert hits(repo, diff="base...HEAD") == {("app.py", 3), ("new file.py", 2)}


def test_staged_reports_only_lines_added_to_the_index(repo: Path) -> None:
    (repo / "app.py").write_text(token_line(6) + "import os\n" + token_line(1) + "x = 1\n")
    git(repo, "add", "app.py")
    (repo / "app.py").write_text(token_line(7))  # unstaged: not scanned
    (repo / "loose.py").write_text(token_line(8))  # untracked: not scanned
    assert hits(repo, staged=True) == {("app.py", 1)}


def test_diff_respects_paths(repo: Path) -> None:
    (repo / "sub").mkdir()
    (repo / "sub/a.py").write_text(token_line(9))
    (repo / "b.py").write_text(token_line(10))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "more")
    assert hits(repo, diff="base..HEAD", paths=(Path("sub"),)) == {("sub/a.py", 1)}


def test_a_subdirectory_root_sees_its_own_paths(repo: Path) -> None:
    (repo / "pkg").mkdir()
    (repo / "pkg/mod.py").write_text("z = 3\n" + token_line(11))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "pkg")
    assert hits(repo / "pkg", diff="base..HEAD") == {("mod.py", 2)}


def test_invalid_ranges_name_the_flag(repo: Path) -> None:
    for spec, message in [
        ("base", "is not a range"),
        ("base..nope", "'nope' is not a commit"),
        ("--output=x..HEAD", "is not a revision"),
        ("..HEAD", "is not a range"),
    ]:
        with pytest.raises(ScanError, match="--diff") as caught:
            scan(ScanOptions(root=repo, diff=spec))
        assert message in str(caught.value)


def test_diff_and_staged_need_a_git_repository(tmp_path: Path) -> None:
    with pytest.raises(ScanError, match="--diff needs a git work tree"):
        scan(ScanOptions(root=tmp_path, diff="a..b"))
    with pytest.raises(ScanError, match="--staged needs a git work tree"):
        scan(ScanOptions(root=tmp_path, staged=True))
    with pytest.raises(ScanError, match="cannot be combined"):
        scan(ScanOptions(root=tmp_path, staged=True, diff="a..b"))


def test_parser_is_not_fooled_by_added_lines_that_look_like_headers() -> None:
    patch = (
        b"diff --git a/x.py b/x.py\n"
        b"--- a/x.py\n"
        b"+++ b/x.py\n"
        b"@@ -1,0 +2,3 @@\n"
        b"+++ b/evil.py\n"
        b"+@@ -1 +1,99 @@\n"
        b"+ok\n"
        b"@@ -9 +11 @@\n"
        b"-old\n"
        b"+new\n"
        b"\\ No newline at end of file\n"
        b"diff --git a/gone.py b/gone.py\n"
        b"--- a/gone.py\n"
        b"+++ /dev/null\n"
        b"@@ -1,2 +0,0 @@\n"
        b"-a\n"
        b"-b\n"
        b'diff --git "a/t\\tab.py" "b/t\\tab.py"\n'
        b'--- "a/t\\tab.py"\n'
        b'+++ "b/t\\tab.py"\n'
        b"@@ -0,0 +1 @@\n"
        b"+x\n"
    )
    assert parse_added_lines(patch) == {
        "x.py": frozenset({2, 3, 4, 11}),
        "t\tab.py": frozenset({1}),
    }
