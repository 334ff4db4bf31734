"""A started fake GitHub API with a token it accepts, and clients that never really sleep."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld
from tests.tokens import random_secret
from thresher.github.client import GitHubClient
from thresher.github.retry import RetryPolicy


class Sleeps(list[float]):
    """An injected ``sleep`` that records how long the client wanted to wait."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def token() -> str:
    return "ghp_" + random_secret(36, seed=29)


@pytest.fixture
def world(token: str) -> GitHubWorld:
    world = GitHubWorld()
    world.add_token(token)
    return world


@pytest.fixture
def server(world: GitHubWorld) -> Iterator[GitHubFake]:
    with GitHubFake(world) as fake:
        yield fake
    assert not fake.errors, fake.errors


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


ClientFactory = Callable[..., GitHubClient]


@pytest.fixture
def make_client(server: GitHubFake, token: str, sleeps: Sleeps) -> Iterator[ClientFactory]:
    made: list[GitHubClient] = []

    def make(
        *, per_page: int = 100, policy: RetryPolicy | None = None, max_concurrency: int = 4
    ) -> GitHubClient:
        client = GitHubClient.from_environ(
            {"GITHUB_TOKEN": token},
            api_url=server.base_url,
            policy=policy,
            sleep=sleeps,
            max_concurrency=max_concurrency,
            per_page=per_page,
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def client(make_client: ClientFactory) -> GitHubClient:
    return make_client()
