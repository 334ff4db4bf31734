"""Which files a whole-tree scan reads: git's view inside a work tree, the
tree without ``.git`` elsewhere; binaries and oversized files are skipped, and
every skip is counted by its reason."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from tests.gitrepo import git
from tests.tokens import github_token
from thresher.sources import running
from thresher.sources.scan import ScanError, ScanOptions, SkipReason, scan


def secret_line(seed: int) -> str:
    return f'TOKEN = "{github_token(seed=seed)}"\n'


def paths_of(root: Path, **options: object) -> set[str]:
    result = scan(ScanOptions(root=root, workers=1, **options))  # type: ignore[arg-type]
    return {c.path for c in result.candidates}


def test_gitignore_is_respected_and_untracked_files_are_scanned(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("ignored/\n*.log\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored/a.py").write_text(secret_line(1))
    (tmp_path / "debug.log").write_text(secret_line(2))
    (tmp_path / "tracked.py").write_text(secret_line(3))
    git(tmp_path, "add", "tracked.py", ".gitignore")
    git(tmp_path, "commit", "-q", "-m", "init")
    (tmp_path / "untracked.py").write_text(secret_line(4))
    assert paths_of(tmp_path) == {"tracked.py", "untracked.py"}


def test_a_named_file_is_scanned_even_when_ignored(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("*.log\n")
    (tmp_path / "debug.log").write_text(secret_line(2))
    (tmp_path / "other.py").write_text(secret_line(3))
    assert paths_of(tmp_path, paths=(Path("debug.log"),)) == {"debug.log"}


def test_outside_git_the_tree_is_walked_without_dot_git(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # not a repository, just a directory named so
    (tmp_path / ".git/config").write_text(secret_line(1))
    (tmp_path / "src/deep").mkdir(parents=True)
    (tmp_path / "src/deep/app.py").write_text(secret_line(2))
    (tmp_path / "link.py").symlink_to(tmp_path / "src/deep/app.py")
    assert paths_of(tmp_path) == {"src/deep/app.py"}


def test_paths_limit_the_scan(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a/x.py").write_text(secret_line(1))
    (tmp_path / "b/y.py").write_text(secret_line(2))
    (tmp_path / "ab.py").write_text(secret_line(3))
    assert paths_of(tmp_path, paths=(Path("a"),)) == {"a/x.py"}
    assert paths_of(tmp_path, paths=(tmp_path / "b/y.py", Path("ab.py"))) == {"b/y.py", "ab.py"}


def test_binary_and_oversized_files_are_skipped_and_counted_by_reason(tmp_path: Path) -> None:
    (tmp_path / "blob.bin.py").write_bytes(b"\x00\x01" + secret_line(1).encode())
    (tmp_path / "big.py").write_text(secret_line(2) + "#" * 5000 + "\n")
    (tmp_path / "small.py").write_text(secret_line(4))
    result = scan(ScanOptions(root=tmp_path, workers=1, max_file_bytes=1000))
    assert {c.path for c in result.candidates} == {"small.py"}
    assert result.stats.files_scanned == 1
    assert result.stats.files_skipped == 2
    assert result.stats.skipped_by_reason == {SkipReason.TOO_LARGE: 1, SkipReason.BINARY: 1}
    assert {(s.path, s.reason) for s in result.skipped} == {
        ("big.py", SkipReason.TOO_LARGE),
        ("blob.bin.py", SkipReason.BINARY),
    }
    assert result.describe().startswith("scanned 1 file; skipped 2 (1 too large, 1 binary)")


def test_parallel_scan_equals_serial_scan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(12):
        body = "".join(f"x{i} = {i}\n" for i in range(50)) + secret_line(index % 5)
        (tmp_path / f"m{index}.py").write_text(body + f'password = "pw-{index}-Zq9"\n')
    serial = scan(ScanOptions(root=tmp_path, workers=1))
    monkeypatch.setattr(running, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(running, "_MIN_BATCH_BYTES", 1)
    parallel = scan(ScanOptions(root=tmp_path, workers=2))
    assert parallel.candidates == serial.candidates
    assert parallel.findings == serial.findings
    assert sorted(parallel.vault.values()) == sorted(serial.vault.values())


def test_a_worker_not_forked_builds_its_own_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A forked worker takes the engine this process built; a spawned one cannot.
    for index in range(4):
        (tmp_path / f"m{index}.py").write_text(f'password = "pw-{index}-Zq9"\n' * 20)
    serial = scan(ScanOptions(root=tmp_path, workers=1))
    monkeypatch.setattr(running, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(running, "_MIN_BATCH_BYTES", 1)
    monkeypatch.setattr(running, "_context", lambda: multiprocessing.get_context("spawn"))
    spawned = scan(ScanOptions(root=tmp_path, workers=2))
    assert spawned.candidates == serial.candidates
    assert spawned.findings == serial.findings


def test_bad_roots_and_paths_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(ScanError, match="not a directory"):
        scan(ScanOptions(root=tmp_path / "missing"))
    with pytest.raises(ScanError, match="outside the scan root"):
        scan(ScanOptions(root=tmp_path, paths=(tmp_path.parent,)))
    with pytest.raises(ScanError, match="does not exist"):
        scan(ScanOptions(root=tmp_path, paths=(Path("nope.py"),)))
    with pytest.raises(ScanError, match="workers"):
        scan(ScanOptions(root=tmp_path, workers=0))


def own_output(root: Path, seed: int) -> list[str]:
    """What earlier runs leave in a tree: reports and transcripts quoting findings."""
    files = [
        ".thresher/runs/x/report.json",
        ".thresher/runs/x/transcripts/analysis-1.jsonl",
        "pkg/.thresher/runs/y/decisions.jsonl",
    ]
    for offset, name in enumerate(files):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(
            f'{{"rule_id": "GitHub Token", "token": "{github_token(seed=seed + offset)}"}}\n'
        )
    return files


def test_thresher_run_directories_are_never_scanned(tmp_path: Path) -> None:
    skipped = own_output(tmp_path, seed=10)
    (tmp_path / "src/thresher").mkdir(parents=True)  # a package named thresher is code
    (tmp_path / "src/thresher/app.py").write_text(secret_line(1))
    result = scan(ScanOptions(root=tmp_path, workers=1))
    assert {c.path for c in result.candidates} == {"src/thresher/app.py"}
    assert result.stats.files_scanned == 1
    # Outside git each run directory is counted once, and never walked.
    assert {item.path for item in result.skipped} == {".thresher/", "pkg/.thresher/"}
    assert result.stats.skipped_by_reason == {SkipReason.OWN_OUTPUT: 2}
    assert len(skipped) == 3
    # Named explicitly, it is still thresher's own output.
    assert paths_of(tmp_path, paths=(Path(".thresher"),)) == set()


def test_thresher_run_directories_are_never_scanned_in_git(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "app.py").write_text(secret_line(1))
    git(tmp_path, "add", "app.py")
    git(tmp_path, "commit", "-q", "-m", "base")
    git(tmp_path, "tag", "base")
    # Untracked and not ignored, as an older version left it, then committed by mistake.
    own_output(tmp_path, seed=20)
    assert paths_of(tmp_path) == {"app.py"}
    git(tmp_path, "add", "-A")
    assert paths_of(tmp_path, staged=True) == set()
    git(tmp_path, "commit", "-q", "-m", "runs")
    assert paths_of(tmp_path) == {"app.py"}
    assert paths_of(tmp_path, diff="base..HEAD") == set()
