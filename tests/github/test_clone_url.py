"""What ``--clone`` asks of the client: a repository's ``clone_url``, believed only on the
API's own host (the token goes with the clone), and the token git is to send."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld
from tests.github.conftest import Sleeps
from thresher.github.auth import AppCredentials
from thresher.github.client import GitHubClient, trusted_clone_url
from thresher.github.errors import GitHubError


def test_the_clone_url_comes_from_the_repository_through_the_api(
    world: GitHubWorld, client: GitHubClient, server: GitHubFake
) -> None:
    repo = world.add_repo("octo/app")
    repo.clone_url = f"{server.base_url}/octo/app.git"
    assert client.clone_url("octo/app") == f"{server.base_url}/octo/app.git"
    assert [r.route for r in server.requests] == ["/repos/octo/app"]


def test_a_clone_url_off_the_api_host_is_refused(world: GitHubWorld, client: GitHubClient) -> None:
    world.add_repo("octo/app")  # the fake's default: https://github.com/octo/app.git
    with pytest.raises(GitHubError, match="not the host of --api-url"):
        client.clone_url("octo/app")


@pytest.mark.parametrize(
    ("url", "api", "trusted"),
    [
        ("https://github.com/octo/app.git", "https://api.github.com", True),
        ("https://ghe.example/octo/app.git", "https://ghe.example/api/v3", True),
        ("https://octocorp.ghe.com/o/a.git", "https://api.octocorp.ghe.com", True),
        ("http://127.0.0.1:8080/o/a.git", "http://127.0.0.1:8080", True),
        ("file:///srv/git/a.git", "http://127.0.0.1:8080", True),
        ("http://github.com/octo/app.git", "https://api.github.com", False),  # cleartext
        ("https://evil.example/octo/app.git", "https://api.github.com", False),
        ("https://api.github.com.evil.example/a.git", "https://api.github.com", False),
        ("http://127.0.0.1:9999/o/a.git", "http://127.0.0.1:8080", False),  # another service
        ("file:///srv/git/a.git", "https://api.github.com", False),  # a local path from afar
        ("ssh://git@github.com/octo/app.git", "https://api.github.com", False),
        ("https://github.com:8443/octo/app.git", "https://api.github.com", False),
        ("https://github.com:x/octo/app.git", "https://api.github.com", False),
    ],
)
def test_only_the_apis_own_host_is_trusted_with_the_token(
    url: str, api: str, trusted: bool
) -> None:
    if trusted:
        assert trusted_clone_url(url, api, "GET /repos/o/a") == url
    else:
        with pytest.raises(GitHubError, match="refusing to clone"):
            trusted_clone_url(url, api, "GET /repos/o/a")


def test_git_gets_the_token_the_api_uses(client: GitHubClient, token: str) -> None:
    assert client.git_token() == token


def test_a_github_apps_git_token_is_its_installation_token(
    server: GitHubFake, world: GitHubWorld, sleeps: Sleeps, tmp_path: Path
) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = tmp_path / "app.pem"
    pem.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    world.add_app(4343, public, {"octo": 91})
    client = GitHubClient.from_environ(
        {}, api_url=server.base_url, app=AppCredentials(4343, pem), owner="octo", sleep=sleeps
    )
    issued = [t for t, login in world.tokens.items() if login == "app-4343[bot]"]
    assert client.git_token() == issued[0]
    assert issued[0] not in repr(client)
    client.close()
