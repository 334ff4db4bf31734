"""The set-up every end-to-end ``thresher triage`` test shares: a token the loopback
GitHub fake accepts, the fake serving a ``GitHubWorld``, and the CLI pointed at it with a
state database of the test's own.

A module adds its repositories by overriding ``world`` (or by a ``plan`` fixture that
populates it) and its fixed flags by overriding ``triage_args``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld

Cli = Callable[..., Result]


@pytest.fixture
def token() -> str:
    return "ghs_" + "T" * 36


@pytest.fixture
def world(token: str) -> GitHubWorld:
    world = GitHubWorld()
    world.add_token(token)
    return world


@pytest.fixture
def triage_args() -> tuple[str, ...]:
    """Flags every ``triage`` call of a module passes (targets, concurrency, limits)."""
    return ()


@pytest.fixture
def server(world: GitHubWorld) -> Iterator[GitHubFake]:
    with GitHubFake(world) as fake:
        yield fake
    assert not fake.errors, fake.errors


@pytest.fixture
def triage(
    cli: Cli,
    triage_args: tuple[str, ...],  # first: a module's plan populates the world here
    server: GitHubFake,
    token: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Cli:
    monkeypatch.setenv("GITHUB_TOKEN", token)

    def run(*args: str) -> Result:
        state = str(tmp_path / "state.db")
        return cli("triage", "--api-url", server.base_url, "--state-db", state, *triage_args, *args)

    return run
