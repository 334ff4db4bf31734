"""The pre-commit hooks, run by the real pre-commit, block a commit that adds a real-format
token and let a placeholder through, without the network.

``thresher-system`` is exercised end to end (``pre-commit try-repo`` and a real ``git
commit`` with the hook installed): it runs the thresher installed beside this interpreter.
``thresher`` (``language: python``) differs only in that pre-commit first pip-installs this
repository and its dependencies from PyPI into its own environment, which a test without
network cannot do; it is checked by pre-commit's own manifest validation and by having the
very same entry and settings as the hook that is run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.gitrepo import git
from tests.tokens import github_token

from .tools import HOOKS, ROOT, offline_env, run, tool

pytestmark = pytest.mark.slow


def _hooks() -> dict[str, dict[str, object]]:
    return {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text())}


def _hook_repo(tmp_path: Path) -> Path:
    """A git repository holding only the manifest, committed (try-repo clones it)."""
    repo = tmp_path / "hooks"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".pre-commit-hooks.yaml").write_bytes(HOOKS.read_bytes())
    git(repo, "add", ".pre-commit-hooks.yaml")
    git(repo, "commit", "-q", "-m", "hooks")
    return repo


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    """A repository with one commit and ``files`` staged, not committed."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README.md").write_text("# project\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "initial")
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
        git(repo, "add", name)
    return repo


def _try_repo(tmp_path: Path, project: Path, hook: str) -> tuple[int, str]:
    env = offline_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    result = run(
        [tool("pre-commit"), "try-repo", _hook_repo(tmp_path), hook, "--verbose"], project, env
    )
    return result.returncode, result.stdout + result.stderr


def test_a_staged_real_format_token_blocks(tmp_path: Path) -> None:
    token = github_token(seed=23)
    project = _project(tmp_path, {"deploy/settings.py": f'GITHUB_TOKEN = "{token}"\n'})
    code, output = _try_repo(tmp_path, project, "thresher-system")
    assert code == 1, output
    assert "deploy/settings.py:1" in output
    assert "TRUE_POSITIVE" in output
    assert token not in output  # the value is redacted in the hook's output too


def test_a_staged_placeholder_passes(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        {
            "app/settings.py": 'password = "your-password-here"\n',
            "docs/aws.md": "Example: `aws_access_key_id = AKIAIOSFODNN7EXAMPLE`\n",
        },
    )
    code, output = _try_repo(tmp_path, project, "thresher-system")
    assert code == 0, output
    assert "Passed" in output
    assert "FALSE_POSITIVE" in output  # it ran and decided; it did not skip


def test_only_what_is_staged_counts(tmp_path: Path) -> None:
    """A token in the working tree but not in the index is not what the commit adds."""
    project = _project(tmp_path, {"app/settings.py": 'password = "your-password-here"\n'})
    (project / "scratch.py").write_text(f'TOKEN = "{github_token(seed=29)}"\n')
    code, output = _try_repo(tmp_path, project, "thresher-system")
    assert code == 0, output


def test_an_installed_hook_refuses_the_commit(tmp_path: Path) -> None:
    """`pre-commit install` and a real `git commit`: the commit is not made."""
    hooks = _hook_repo(tmp_path)
    rev = git(hooks, "rev-parse", "HEAD").strip()
    project = _project(tmp_path, {"deploy/prod.py": f'TOKEN = "{github_token(seed=31)}"\n'})
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {rev}\n    hooks:\n      - id: thresher-system\n"
    )
    git(project, "add", ".pre-commit-config.yaml")
    env = offline_env(PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    installed = run([tool("pre-commit"), "install"], project, env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    head = git(project, "rev-parse", "HEAD")
    commit = run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c",
         "commit.gpgsign=false", "commit", "-m", "add the deploy token"],
        project, env,
    )  # fmt: skip
    assert commit.returncode != 0, commit.stdout + commit.stderr
    assert "deploy/prod.py:1" in commit.stdout + commit.stderr
    assert git(project, "rev-parse", "HEAD") == head


def test_the_manifest_validates_with_pre_commit() -> None:
    result = run([tool("pre-commit"), "validate-manifest", HOOKS], ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_both_hooks_run_the_same_offline_staged_scan() -> None:
    """The python hook cannot be installed offline; it is the system hook in every other way."""
    hooks = _hooks()
    assert hooks["thresher"]["language"] == "python"
    assert hooks["thresher-system"]["language"] == "system"
    same = ("entry", "pass_filenames", "require_serial", "stages", "always_run", "args")
    for key in same:
        assert hooks["thresher"].get(key) == hooks["thresher-system"].get(key), key
    entry = str(hooks["thresher"]["entry"]).split()
    assert entry[:3] == ["thresher", "scan", "--staged"]
    # No model call and no live verification: offline, no key.
    assert "--escalate" in entry and entry[entry.index("--escalate") + 1] == "never"
    assert "live" not in entry
    # thresher reads the index itself: file names from pre-commit would be scanned whole.
    assert hooks["thresher"]["pass_filenames"] is False
    assert hooks["thresher"]["stages"] == ["pre-commit"]
