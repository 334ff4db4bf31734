"""Fixture repositories and real-shaped GitHub event payloads for ``thresher ci`` tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld
from tests.gitrepo import git
from tests.tokens import github_token, random_secret

REPO = "octo/app"
PR_NUMBER = 42


@dataclass
class PullRequestRepo:
    """A repository with a base commit on ``main`` and a pull-request head that adds a
    generated, well-formed GitHub token to ``app/deploy.py``."""

    root: Path
    base: str
    head: str
    token: str

    def commit(self, message: str, files: dict[str, str]) -> str:
        for name, text in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", message)
        return git(self.root, "rev-parse", "HEAD").strip()


def make_pr_repo(root: Path, *, seed: int = 61) -> PullRequestRepo:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    repo = PullRequestRepo(root, "", "", github_token(seed=seed))
    repo.base = repo.commit(
        "base",
        {
            "README.md": "# app\n",
            "app/__init__.py": "",
            "thresher.toml": "color = false\n",
            "pyproject.toml": '[project]\nname = "app"\nversion = "1.0"\n',
        },
    )
    git(root, "checkout", "-q", "-b", "feature")
    repo.head = repo.commit(
        "add deploy settings",
        {"app/deploy.py": f'import os\n\nGITHUB_TOKEN = "{repo.token}"\nREGION = "eu-west-1"\n'},
    )
    return repo


@pytest.fixture
def pr_repo(tmp_path: Path) -> PullRequestRepo:
    return make_pr_repo(tmp_path / "workspace")


def _user(login: str, api: str) -> dict[str, Any]:
    return {
        "login": login,
        "id": 1000 + len(login),
        "type": "User",
        "url": f"{api}/users/{login}",
        "html_url": f"https://github.com/{login}",
    }


def _repo_json(full_name: str, api: str, *, fork: bool = False) -> dict[str, Any]:
    owner, _, name = full_name.partition("/")
    return {
        "id": 7000 + len(full_name),
        "name": name,
        "full_name": full_name,
        "private": False,
        "fork": fork,
        "owner": _user(owner, api),
        "html_url": f"https://github.com/{full_name}",
        "url": f"{api}/repos/{full_name}",
        "default_branch": "main",
    }


def pull_request_payload(
    *,
    number: int,
    base: str,
    head: str,
    api: str,
    repository: str = REPO,
    head_repository: str | None = None,
    action: str = "synchronize",
) -> dict[str, Any]:
    """The ``pull_request`` event's payload, in the shape GitHub writes (abridged)."""
    head_repository = head_repository or repository
    author = head_repository.partition("/")[0]
    # What a pull request's author controls, hostile on purpose: none of it may matter.
    title = "Add deploy settings ::error::injected %0A `rm -rf` @octocat"
    return {
        "action": action,
        "number": number,
        "pull_request": {
            "url": f"{api}/repos/{repository}/pulls/{number}",
            "id": 900_000 + number,
            "number": number,
            "state": "open",
            "title": title,
            "body": "Sets GITHUB_TOKEN for deploys.\n<!-- thresher:summary -->",
            "user": _user(author, api),
            "draft": False,
            "head": {
                "label": f"{author}:feature",
                "ref": "feature; echo pwned",
                "sha": head,
                "user": _user(author, api),
                "repo": _repo_json(head_repository, api, fork=head_repository != repository),
            },
            "base": {
                "label": f"{repository.partition('/')[0]}:main",
                "ref": "main",
                "sha": base,
                "user": _user(repository.partition("/")[0], api),
                "repo": _repo_json(repository, api),
            },
            "merged": False,
            "commits": 1,
        },
        "repository": _repo_json(repository, api),
        "sender": _user(author, api),
    }


def push_payload(
    *, before: str, after: str, ref: str = "refs/heads/feature", forced: bool = False
) -> dict[str, Any]:
    api = "https://api.github.com"
    return {
        "ref": ref,
        "before": before,
        "after": after,
        "created": before == "0" * 40,
        "deleted": after == "0" * 40,
        "forced": forced,
        "repository": _repo_json(REPO, api),
        "pusher": {"name": "octo", "email": "octo@example.invalid"},
        "sender": _user("octo", api),
    }


@dataclass
class Tokens:
    write: str
    read_only: str


@pytest.fixture
def tokens() -> Tokens:
    return Tokens("ghs_" + random_secret(36, seed=71), "ghs_" + random_secret(36, seed=72))


@pytest.fixture
def world(tokens: Tokens) -> GitHubWorld:
    world = GitHubWorld()
    world.add_token(tokens.write, login="github-actions[bot]")
    world.add_token(tokens.read_only, login="github-actions[bot]", write=False)
    repo = world.add_repo(REPO)
    repo.add_issue(PR_NUMBER, title="Add deploy settings", body="", pull=True)
    return world


@pytest.fixture
def github(world: GitHubWorld) -> Iterator[GitHubFake]:
    with GitHubFake(world) as fake:
        yield fake
    assert not fake.errors, fake.errors
