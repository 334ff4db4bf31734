"""GitHub App credentials: a key generated at test time signs an RS256 JWT, the fake
verifies it with the app's public key, and the installation token it issues is used."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld
from tests.github.conftest import Sleeps
from tests.tokens import github_token
from thresher.github.auth import AppCredentials
from thresher.github.client import GitHubClient
from thresher.github.errors import GitHubAuthError
from thresher.github.models import AlertFilters

APP_ID = 4242


def _key_pair(tmp_path: Path, name: str) -> tuple[Path, bytes]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = tmp_path / f"{name}.pem"
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return path, public


@pytest.fixture
def app_key(tmp_path: Path, world: GitHubWorld) -> Path:
    path, public = _key_pair(tmp_path, "app")
    world.add_app(APP_ID, public, {"octo": 77, "solo-dev": 78})
    world.add_repo("octo/app").add_alert(secret=github_token(seed=3))
    world.add_repo("solo-dev/tool", user_owned=True).add_alert(secret=github_token(seed=4))
    return path


def test_app_key_is_exchanged_for_an_installation_token_found_by_org(
    server: GitHubFake, app_key: Path, sleeps: Sleeps, world: GitHubWorld
) -> None:
    client = GitHubClient.from_environ(
        {}, api_url=server.base_url, app=AppCredentials(APP_ID, app_key), owner="octo", sleep=sleeps
    )
    alerts = list(client.org_alerts("octo", AlertFilters()))
    assert [a.key for a in alerts] == ["octo/app#1"]
    routes = [(r.method, r.route) for r in server.requests]
    assert routes == [
        ("GET", "/orgs/octo/installation"),
        ("POST", "/app/installations/77/access_tokens"),
        ("GET", "/orgs/octo/secret-scanning/alerts"),
    ]
    assert (server.requests[0].header("authorization") or "").startswith("Bearer ey")
    issued = [t for t, login in world.tokens.items() if login == f"app-{APP_ID}[bot]"]
    assert len(issued) == 1
    assert server.requests[2].header("authorization") == f"token {issued[0]}"
    assert issued[0] not in repr(client)
    client.close()


def test_a_user_owned_installation_and_a_given_installation_id(
    server: GitHubFake, app_key: Path, sleeps: Sleeps
) -> None:
    client = GitHubClient.from_environ(
        {},
        api_url=server.base_url,
        app=AppCredentials(APP_ID, app_key),
        owner="solo-dev",
        sleep=sleeps,
    )
    assert [a.key for a in client.repo_alerts("solo-dev/tool", AlertFilters())] == [
        "solo-dev/tool#1"
    ]
    assert [r.route for r in server.requests][:2] == [
        "/orgs/solo-dev/installation",
        "/users/solo-dev/installation",
    ]
    client.close()
    server.reset()
    direct = GitHubClient.from_environ(
        {},
        api_url=server.base_url,
        app=AppCredentials(APP_ID, app_key, installation_id=77),
        sleep=sleeps,
    )
    assert server.requests[0].route == "/app/installations/77/access_tokens"
    direct.close()


def test_a_key_github_does_not_know_is_refused_naming_the_file(
    server: GitHubFake, app_key: Path, tmp_path: Path, sleeps: Sleeps
) -> None:
    stranger, _ = _key_pair(tmp_path, "stranger")
    with pytest.raises(GitHubAuthError) as caught:
        GitHubClient.from_environ(
            {},
            api_url=server.base_url,
            app=AppCredentials(APP_ID, stranger),
            owner="octo",
            sleep=sleeps,
        )
    assert str(stranger) in caught.value.message and "401" in caught.value.message
    assert "BEGIN" not in caught.value.message


def test_unusable_key_files_and_missing_installations_are_clear(
    server: GitHubFake, app_key: Path, tmp_path: Path, sleeps: Sleeps
) -> None:
    missing = tmp_path / "nope.pem"
    with pytest.raises(GitHubAuthError, match=r"cannot read the GitHub App private key .*nope"):
        GitHubClient.from_environ(
            {}, api_url=server.base_url, app=AppCredentials(APP_ID, missing), owner="octo"
        )
    garbage = tmp_path / "garbage.pem"
    garbage.write_text(
        "-----BEGIN RSA PRIVATE KEY-----\nnot a key\n-----END RSA PRIVATE KEY-----\n"
    )
    with pytest.raises(GitHubAuthError, match=r"garbage\.pem is not an unencrypted RSA"):
        GitHubClient.from_environ(
            {}, api_url=server.base_url, app=AppCredentials(APP_ID, garbage), owner="octo"
        )
    with pytest.raises(GitHubAuthError, match="has no installation on 'elsewhere'"):
        GitHubClient.from_environ(
            {},
            api_url=server.base_url,
            app=AppCredentials(APP_ID, app_key),
            owner="elsewhere",
            sleep=sleeps,
        )
    with pytest.raises(GitHubAuthError, match="no owner"):
        GitHubClient.from_environ({}, api_url=server.base_url, app=AppCredentials(APP_ID, app_key))
