"""Credentials for the GitHub API: a token from the environment, or a GitHub App whose
private key is exchanged for an installation token.

Tokens are read from ``GITHUB_TOKEN`` then ``GH_TOKEN`` only, never from argv (argv is
visible to every process on the runner). A GitHub App installation token lives an hour;
PyGithub's ``AppInstallationAuth`` renews it before it expires, under a lock here because
the client's connections share one credential across threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from thresher.github import retry
from thresher.github.errors import TOKEN_VARIABLES, GitHubAuthError, GitHubNotFound
from thresher.github.models import check_owner
from thresher.github.retry import RetryPolicy

if TYPE_CHECKING:
    from github.Auth import AppAuth, AppInstallationAuth, Auth

TOKEN_ENV_NAMES = ("GITHUB_TOKEN", "GH_TOKEN")


@dataclass(frozen=True)
class AppCredentials:
    """A GitHub App: its id, the path of its PEM private key, and optionally the
    installation to act as (else found from the owner being triaged)."""

    app_id: int
    private_key_path: Path
    installation_id: int | None = None


def token_from_environ(environ: Mapping[str, str]) -> str:
    """The API token from ``GITHUB_TOKEN``, else ``GH_TOKEN``; never echoed back."""
    for name in TOKEN_ENV_NAMES:
        value = environ.get(name, "").strip()
        if not value:
            continue
        if not value.isascii() or not value.isprintable() or " " in value:
            raise GitHubAuthError(
                f"{name} holds characters a token cannot contain",
                hint=f"set {name} to the token alone, with no spaces or line breaks",
            )
        return value
    raise GitHubAuthError(
        "no GitHub token: set GITHUB_TOKEN or GH_TOKEN",
        hint="use a fine-grained token with `Secret scanning alerts: read`, or pass a "
        "GitHub App id and private key",
    )


def read_private_key(path: Path) -> str:
    """The app's PEM key, checked to be an RSA private key so a wrong file fails here,
    naming the file, instead of as an opaque signing error mid-run."""
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not PEM text"
        raise GitHubAuthError(
            f"cannot read the GitHub App private key {path}: {reason}",
            hint="download a private key (.pem) from the app's settings page",
        ) from None
    try:
        key = load_pem_private_key(text.encode("ascii"), password=None)
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, RSAPrivateKey):
        raise GitHubAuthError(
            f"the GitHub App private key {path} is not an unencrypted RSA private key in PEM",
            hint="use the .pem file GitHub generated for the app, unmodified",
        )
    return text


def app_auth(app: AppCredentials) -> AppAuth:
    """PyGithub's JWT signer for the app (RS256, as GitHub requires)."""
    from github.Auth import AppAuth

    if app.app_id <= 0:
        raise GitHubAuthError(
            f"GitHub App id {app.app_id} is not valid",
            hint="use the numeric App ID from the app's settings page",
        )
    return AppAuth(app.app_id, read_private_key(app.private_key_path))


def installation_auth(signer: AppAuth, installation_id: int) -> AppInstallationAuth:
    """An installation credential that renews its token under a lock."""
    from github.Auth import AppInstallationAuth

    class _LockedInstallationAuth(AppInstallationAuth):
        _lock = threading.Lock()

        @property
        def token(self) -> str:
            with self._lock:
                return super().token

    return _LockedInstallationAuth(signer, installation_id)


def token_auth(token: str) -> Auth:
    from github.Auth import Token

    return Token(token)


def no_installation(app: AppCredentials, owner: str | None) -> GitHubAuthError:
    """The app is not installed where we need it (or there is no owner to look up)."""
    where = f"on {owner!r}" if owner else "(no owner to look it up by)"
    return GitHubAuthError(
        f"GitHub App {app.app_id} has no installation {where}",
        hint="install the app on the organisation or user, or pass its installation id; "
        f"or use a token in {TOKEN_VARIABLES}",
    )


def find_installation(
    app: AppCredentials,
    signer: AppAuth,
    owner: str | None,
    *,
    api_url: str,
    policy: RetryPolicy,
    sleep: Callable[[float], None],
) -> int:
    """The app's installation on ``owner``: as an organisation, else as a user."""
    from github import GithubIntegration
    from thresher.github.session import drop_pygithub_body_logs

    drop_pygithub_body_logs()
    if owner is None:
        raise no_installation(app, None)
    check_owner(owner, flag="GitHub App owner")
    integration = GithubIntegration(
        auth=signer,
        base_url=api_url,
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
        user_agent="thresher",
    )
    lookups: list[tuple[str, Callable[[], Any]]] = [
        (f"/orgs/{owner}/installation", lambda: integration.get_org_installation(owner)),
        (f"/users/{owner}/installation", lambda: integration.get_user_installation(owner)),
    ]
    try:
        for route, lookup in lookups:
            try:
                found = retry.call(
                    lookup,
                    what=f"GET {route}",
                    permission="GitHub App endpoints need the app's own key",
                    api_url=api_url,
                    policy=policy,
                    sleep=sleep,
                )
            except GitHubNotFound:
                continue
            return int(found.id)
    except GitHubAuthError as exc:
        raise app_refused(app, exc) from None
    finally:
        integration.close()
    raise no_installation(app, owner)


def app_refused(app: AppCredentials, exc: GitHubAuthError) -> GitHubAuthError:
    """A 401 during the app flow, restated to name the app id and the key file."""
    return GitHubAuthError(
        f"GitHub refused GitHub App {app.app_id} signed with {app.private_key_path}: {exc.message}",
        hint="check the app id matches the private key, and that the key was not revoked",
    )
