"""Finding lockfiles in a project and reading them all: one bad file never stops the rest."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.deps.lockfile_helpers import D
from tests.gitrepo import git
from thresher.deps.discover import DepsPathError, find_lockfiles, read_all
from thresher.deps.lockfiles import MAX_BYTES, LockfileKind, kind_of

PACKAGE_LOCK = """{
  "lockfileVersion": 3,
  "packages": {
    "": {"dependencies": {"left-pad": "^1.3.0"}},
    "node_modules/left-pad": {
      "version": "1.3.0"
    }
  }
}
"""


def _project(root: Path) -> None:
    files = {
        "requirements.txt": "flask==3.0.0\n",
        "requirements/dev.txt": "-r ../requirements.txt\npytest==7.4.3\n",
        "web/package-lock.json": PACKAGE_LOCK,
        "web/node_modules/left-pad/package-lock.json": PACKAGE_LOCK,
        "vendor/acme/composer.lock": '{"packages": []}',
        "ignored/Cargo.lock": "version = 3\n",
        "broken/go.mod": "module m\n\nrequire (\n\tgithub.com/a/b v1.0.0\n",
        ".thresher/run/requirements.txt": "django==1.0\n",
        "README.md": "not a lockfile\n",
        ".gitignore": "ignored/\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_kind_of_recognises_every_supported_name() -> None:
    assert kind_of("a/requirements-dev.txt") is LockfileKind.REQUIREMENTS
    assert kind_of("dev-requirements.txt") is LockfileKind.REQUIREMENTS
    assert kind_of("requirements/base.txt") is LockfileKind.REQUIREMENTS
    assert kind_of("npm-shrinkwrap.json") is LockfileKind.NPM
    assert kind_of("gems.locked") is LockfileKind.GEMFILE
    assert kind_of("notes.txt") is None
    assert kind_of("package.json") is None


def test_in_a_git_tree_ignored_vendored_and_own_output_files_are_left_out(tmp_path: Path) -> None:
    _project(tmp_path)
    git(tmp_path, "init", "-q")
    assert [p.as_posix() for p in find_lockfiles(tmp_path)] == [
        "broken/go.mod",
        "requirements.txt",
        "requirements/dev.txt",
        "web/package-lock.json",
    ]


def test_outside_git_only_the_skipped_directories_are_left_out(tmp_path: Path) -> None:
    _project(tmp_path)
    assert "ignored/Cargo.lock" in [p.as_posix() for p in find_lockfiles(tmp_path)]


def test_read_all_reports_the_broken_file_and_reads_the_others(tmp_path: Path) -> None:
    _project(tmp_path)
    git(tmp_path, "init", "-q")
    deps, errors = read_all(tmp_path)
    assert {(d.path, d.name, d.version, d.line, d.relation) for d in deps} == {
        ("requirements.txt", "flask", "3.0.0", 1, D),
        ("requirements/dev.txt", "pytest", "7.4.3", 2, D),
        ("web/package-lock.json", "left-pad", "1.3.0", 5, D),
    }
    assert len(deps) == 3  # flask, included by dev.txt too, is listed once
    assert [(e.path, e.line) for e in errors] == [("broken/go.mod", 3)]
    assert "never closed" in str(errors[0])


def test_explicit_paths_narrow_the_scan_and_may_name_an_ignored_file(tmp_path: Path) -> None:
    _project(tmp_path)
    git(tmp_path, "init", "-q")
    found = find_lockfiles(tmp_path, [Path("web"), tmp_path / "ignored/Cargo.lock"])
    assert [p.as_posix() for p in found] == ["ignored/Cargo.lock", "web/package-lock.json"]


@pytest.mark.parametrize(
    ("given", "needle"),
    [("nope", "does not exist"), ("README.md", "not a lockfile"), ("..", "outside")],
)
def test_a_bad_path_is_a_usage_error(tmp_path: Path, given: str, needle: str) -> None:
    _project(tmp_path)
    with pytest.raises(DepsPathError, match=needle) as caught:
        find_lockfiles(tmp_path, [Path(given)])
    assert caught.value.exit_code == 2


def test_an_oversized_file_is_an_error_and_never_read(tmp_path: Path) -> None:
    (tmp_path / "yarn.lock").touch()
    os.truncate(tmp_path / "yarn.lock", 50 * 1024 * 1024)  # sparse: costs no disk
    (tmp_path / "go.mod").write_text("module m\n\nrequire github.com/a/b v1.2.3\n")
    deps, errors = read_all(tmp_path)
    assert [(d.name, d.line) for d in deps] == [("github.com/a/b", 3)]
    assert [e.path for e in errors] == ["yarn.lock"]
    assert f"{MAX_BYTES:,}" in str(errors[0])


def test_an_include_through_a_symlink_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("leaked==1.0\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "link").symlink_to(outside)
    (root / "requirements.txt").write_text("flask==3.0.0\n-r link/secret.txt\n")
    deps, errors = read_all(root)
    assert deps == []
    assert [(e.path, e.line) for e in errors] == [("requirements.txt", 2)]
    assert "symbolic link" in str(errors[0])
