"""The GitHub REST client ``thresher triage`` uses: secret-scanning alerts, their
locations, file contents at a commit, issue and pull-request text, and resolving alerts.

Built on PyGithub (see :mod:`thresher.github.session` for the HTTP plumbing and why pages
are followed there), with the GitHub App token exchange in :mod:`thresher.github.auth`.
Every failure is a :class:`~thresher.github.errors.GitHubError`; the token never appears
in one, nor in this object's ``repr``.
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Self
from urllib.parse import quote, urlsplit

from thresher.findings.model import AlertResolution
from thresher.github import auth as credentials
from thresher.github import parse
from thresher.github.auth import AppCredentials
from thresher.github.errors import (
    CONTENTS_PERMISSION,
    WRITE_PERMISSION,
    GitHubAuthError,
    GitHubError,
    GitHubValidationError,
)
from thresher.github.models import (
    DISCUSSION_LOCATION_TYPES,
    TITLE_LOCATION_TYPES,
    Alert,
    AlertFilters,
    AlertLocation,
    IssueComment,
    RepoRef,
    TextLocation,
    check_owner,
)
from thresher.github.retry import RetryPolicy
from thresher.github.session import Session, check_api_url

if TYPE_CHECKING:
    from github.Auth import Auth

__all__ = ["AppCredentials", "GitHubClient", "RetryPolicy"]

MAX_RESOLUTION_COMMENT = 270
"""GitHub's limit on ``resolution_comment``; longer comments are refused before sending."""

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
"""Largest file or blob read into memory; repository content is hostile."""

TEXT_PERMISSION = (
    "reading issue and pull-request text needs `issues: read` and `pull-requests: read`"
)
_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
COMMENT_PERMISSION = (
    "commenting on a pull request needs `pull-requests: write` in the workflow's "
    "`permissions:` (a pull request from a fork never gets it)"
)
MAX_COMMENT_CHARS = 65_536
"""GitHub's limit on an issue or pull-request comment body."""
_SHA = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")


def _repo(repo: RepoRef | str) -> RepoRef:
    return repo if isinstance(repo, RepoRef) else RepoRef.parse(repo)


class GitHubClient:
    """Typed access to the GitHub REST API; every failure is a ``GitHubError``."""

    def __init__(
        self,
        *,
        api_url: str,
        auth: Auth,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_concurrency: int = 4,
        per_page: int = 100,
        timeout_s: int = 30,
    ) -> None:
        self._session = Session(
            api_url=api_url,
            auth=auth,
            policy=policy or RetryPolicy(),
            sleep=sleep,
            max_concurrency=max_concurrency,
            per_page=per_page,
            timeout_s=timeout_s,
        )
        self.api_url = self._session.api_url
        self.policy = self._session.policy
        self._auth = auth

    @classmethod
    def from_environ(
        cls,
        environ: Mapping[str, str],
        *,
        api_url: str,
        app: AppCredentials | None = None,
        owner: str | None = None,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_concurrency: int = 4,
        per_page: int = 100,
    ) -> GitHubClient:
        """A client with the token from ``GITHUB_TOKEN``/``GH_TOKEN``, or, given ``app``,
        an installation token for the app's installation on ``owner`` (an org or user),
        exchanged now so a bad key or missing installation fails before any work."""
        if app is None:
            token = credentials.token_from_environ(environ)
            return cls(
                api_url=api_url,
                auth=credentials.token_auth(token),
                policy=policy,
                sleep=sleep,
                max_concurrency=max_concurrency,
                per_page=per_page,
            )
        api_url = check_api_url(api_url)
        signer = credentials.app_auth(app)
        policy = policy or RetryPolicy()
        installation_id = app.installation_id
        if installation_id is None:
            installation_id = credentials.find_installation(
                app, signer, owner, api_url=api_url, policy=policy, sleep=sleep
            )
        installation = credentials.installation_auth(signer, installation_id)
        client = cls(
            api_url=api_url,
            auth=installation,
            policy=policy,
            sleep=sleep,
            max_concurrency=max_concurrency,
            per_page=per_page,
        )
        try:
            client._session.call(
                lambda: installation.token,
                what=f"POST /app/installations/{installation_id}/access_tokens",
                permission="the app needs `Secret scanning alerts: read` on the installation",
            )
        except GitHubAuthError as exc:
            raise credentials.app_refused(app, exc) from None
        return client

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self.api_url!r})"

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- listings --------------------------------------------------------------------------

    def org_repositories(self, org: str) -> list[str]:
        """Full names of every repository of ``org`` the token can see, sorted."""
        check_owner(org, flag="--org")
        route = f"/orgs/{org}/repos"
        names = [
            str(item["full_name"])
            for item in self._session.pages(route, {"type": "all"}, what=f"GET {route}")
            if isinstance(item, Mapping) and "full_name" in item
        ]
        return sorted(names)

    def repo_alerts(self, repo: RepoRef | str, filters: AlertFilters) -> Iterator[Alert]:
        """Alerts of one repository matching ``filters``, page by page."""
        ref = _repo(repo)
        route = f"/repos/{ref.full_name}/secret-scanning/alerts"
        return self._alerts(route, filters, repo=ref.full_name)

    def org_alerts(self, org: str, filters: AlertFilters) -> Iterator[Alert]:
        """Alerts of every repository of ``org`` (one listing; items name their repo)."""
        check_owner(org, flag="--org")
        return self._alerts(f"/orgs/{org}/secret-scanning/alerts", filters, repo=None)

    def _alerts(self, route: str, filters: AlertFilters, *, repo: str | None) -> Iterator[Alert]:
        params: dict[str, Any] = {}
        if filters.state is not None:
            params["state"] = filters.state.value
        if filters.secret_types:
            params["secret_type"] = ",".join(filters.secret_types)
        if filters.validities:
            params["validity"] = ",".join(v.value for v in filters.validities)
        if filters.resolutions:
            params["resolution"] = ",".join(r.value for r in filters.resolutions)
        if filters.since is not None:
            params["sort"], params["direction"] = "updated", "desc"
        for item in self._session.pages(route, params, what=f"GET {route}"):
            alert = parse.alert(item, repo=repo, what=f"GET {route}")
            if filters.since is not None and alert.updated_at < filters.since:
                return  # newest-updated first: everything after is older still
            if filters.admits(alert):
                yield alert

    def alert(self, repo: RepoRef | str, number: int) -> Alert:
        ref = _repo(repo)
        route = f"/repos/{ref.full_name}/secret-scanning/alerts/{int(number)}"
        _, data = self._session.request("GET", route, what=f"GET {route}")
        return parse.alert(data, repo=ref.full_name, what=f"GET {route}")

    def locations(self, alert: Alert) -> tuple[AlertLocation, ...]:
        """Every place GitHub found the alert's secret (all pages)."""
        what = f"GET locations of {alert.key}"
        return tuple(
            parse.location(item, repo_html_url=alert.repo_html_url, what=what)
            for item in self._session.pages(alert.locations_url, {}, what=what)
        )

    # -- content ---------------------------------------------------------------------------

    def clone_url(self, repo: RepoRef | str) -> str:
        """The repository's ``clone_url``, for ``--clone``. Only a URL on the API's own
        host is believed (github.com for api.github.com; HOST for HOST/api/v3), since
        the token goes with the clone; a ``file:`` URL only from an API on loopback."""
        ref = _repo(repo)
        route = f"/repos/{ref.full_name}"
        _, data = self._session.request("GET", route, what=f"GET {route}")
        url = data.get("clone_url") if isinstance(data, Mapping) else None
        if not isinstance(url, str) or not url:
            raise GitHubError(f"GET {route} gave no clone_url")
        return trusted_clone_url(url, self.api_url, f"GET {route}")

    def git_token(self) -> str:
        """The token git sends when cloning (an App's installation token is refreshed
        here when it has expired, through the retry policy)."""
        return self._session.call(lambda: self._auth.token, what="the token for git")

    def file_at(
        self, repo: RepoRef | str, path: str, ref: str, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES
    ) -> bytes:
        """The bytes of ``path`` at commit ``ref``. The contents API carries files up to
        1 MB inline; for larger ones it gives ``encoding: none`` and the blob is read."""
        repo_ref = _repo(repo)
        clean = path.lstrip("/")
        if not clean or any(part in {"", ".", ".."} for part in clean.split("/")):
            raise GitHubValidationError(f"refusing to read the path {path!r}", field="path")
        route = f"/repos/{repo_ref.full_name}/contents/{quote(clean)}"
        what = f"GET {route} at {ref[:40]}"
        _, data = self._session.request(
            "GET", route, params={"ref": ref}, what=what, permission=CONTENTS_PERMISSION
        )
        if isinstance(data, list) or not isinstance(data, Mapping):
            raise GitHubError(f"{clean} at {ref[:12]} is a directory, not a file")
        kind = data.get("type", "file")
        if kind != "file":
            raise GitHubError(f"{clean} at {ref[:12]} is a {kind}, not a file")
        size = int(data.get("size") or 0)
        _check_size(size, max_bytes, clean)
        content = data.get("content") or ""
        if data.get("encoding") == "base64" and (content or size == 0):
            return _decode(content, what)
        sha = str(data.get("sha", ""))
        return self.blob(repo_ref, sha, max_bytes=max_bytes)

    def blob(
        self, repo: RepoRef | str, sha: str, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES
    ) -> bytes:
        """A git blob's bytes by sha (the Git database API; up to 100 MB)."""
        repo_ref = _repo(repo)
        if not _SHA.fullmatch(sha):
            raise GitHubValidationError(f"{sha!r} is not a git object id", field="sha")
        route = f"/repos/{repo_ref.full_name}/git/blobs/{sha}"
        _, data = self._session.request(
            "GET", route, what=f"GET {route}", permission=CONTENTS_PERMISSION
        )
        if not isinstance(data, Mapping):
            raise GitHubError(f"unexpected response from GitHub for GET {route}")
        _check_size(int(data.get("size") or 0), max_bytes, sha)
        content = str(data.get("content") or "")
        if data.get("encoding") == "utf-8":
            return content.encode("utf-8")
        return _decode(content, f"GET {route}")

    def text_at(self, location: TextLocation) -> str | None:
        """The text at a non-file location: the title for ``*_title`` kinds, else the body
        (an empty body is ``""``). Discussions have no REST API (only GraphQL), so they,
        and any location without an API URL, give None: triage them from the alert."""
        if location.type in DISCUSSION_LOCATION_TYPES or location.api_url is None:
            return None
        _, data = self._session.request(
            "GET", location.api_url, what=f"GET {location.type.value}", permission=TEXT_PERMISSION
        )
        if not isinstance(data, Mapping):
            raise GitHubError(f"unexpected response from GitHub for {location.type.value}")
        key = "title" if location.type in TITLE_LOCATION_TYPES else "body"
        value = data.get(key)
        return "" if value is None else str(value)

    # -- writes ----------------------------------------------------------------------------

    def resolve(self, alert: Alert, resolution: AlertResolution, comment: str) -> Alert:
        """Resolve ``alert`` with ``resolution`` and ``comment``; returns the alert as
        GitHub now has it. The comment is checked before anything is sent."""
        if len(comment) > MAX_RESOLUTION_COMMENT:
            raise GitHubValidationError(
                f"resolution_comment is {len(comment)} characters; GitHub allows "
                f"{MAX_RESOLUTION_COMMENT}",
                field="resolution_comment",
                hint="shorten the rationale; the full one belongs in the report",
            )
        if alert.secret and alert.secret in comment:
            raise GitHubValidationError(
                "resolution_comment would contain the secret value; refused",
                field="resolution_comment",
            )
        body = {"state": "resolved", "resolution": resolution.value, "resolution_comment": comment}
        self._session.space_write()
        _, data = self._session.request(
            "PATCH", alert.url, body=body, what=f"PATCH {alert.key}", permission=WRITE_PERMISSION
        )
        return parse.alert(data, repo=alert.repo, what=f"PATCH {alert.key}")

    def issue_comments(self, repo: RepoRef | str, number: int) -> list[IssueComment]:
        """Every comment on issue or pull request ``number``, oldest first (all pages)."""
        ref = _repo(repo)
        route = f"/repos/{ref.full_name}/issues/{int(number)}/comments"
        what = f"GET {route}"
        return [
            parse.issue_comment(item, what=what)
            for item in self._session.pages(route, {}, what=what)
        ]

    def create_issue_comment(self, repo: RepoRef | str, number: int, body: str) -> IssueComment:
        """Post a new comment on issue or pull request ``number``."""
        ref = _repo(repo)
        route = f"/repos/{ref.full_name}/issues/{int(number)}/comments"
        return self._write_comment("POST", route, body)

    def update_issue_comment(self, repo: RepoRef | str, comment_id: int, body: str) -> IssueComment:
        """Replace the body of comment ``comment_id`` (an absolute state: safe to retry)."""
        ref = _repo(repo)
        route = f"/repos/{ref.full_name}/issues/comments/{int(comment_id)}"
        return self._write_comment("PATCH", route, body)

    def _write_comment(self, verb: str, route: str, body: str) -> IssueComment:
        if len(body) > MAX_COMMENT_CHARS:
            raise GitHubValidationError(
                f"the comment is {len(body)} characters; GitHub allows {MAX_COMMENT_CHARS}",
                field="body",
            )
        self._session.space_write()
        what = f"{verb} {route}"
        _, data = self._session.request(
            verb, route, body={"body": body}, what=what, permission=COMMENT_PERMISSION
        )
        return parse.issue_comment(data, what=what)


def trusted_clone_url(url: str, api_url: str, what: str) -> str:
    """``url`` when the token may go there: on the API's host and port (GitHub Enterprise
    Server: HOST for HOST/api/v3), or its web host (github.com for api.github.com) with
    the same scheme; a ``file:`` URL only from an API on loopback. Else GitHubError."""
    clone, api = urlsplit(url), urlsplit(api_url)
    api_host = api.hostname or ""
    try:
        ports = clone.port, api.port
    except ValueError:
        ports = (-1, None)
    if clone.scheme == "file":
        trusted = api_host in _LOOPBACK
    else:
        same = clone.hostname == api_host and ports[0] == ports[1]
        web = clone.hostname == api_host.removeprefix("api.") != api_host and ports[0] is None
        trusted = clone.scheme in {"http", "https"} and clone.scheme == api.scheme and (same or web)
    if trusted:
        return url
    raise GitHubError(
        f"{what}: refusing to clone from {clone.scheme}://{clone.hostname or ''}: "
        f"it is not the host of --api-url {api_url}",
        hint="--clone sends the token to the clone URL; it must be GitHub's own host",
    )


def _check_size(size: int, max_bytes: int, name: str) -> None:
    if size > max_bytes:
        raise GitHubError(
            f"{name} is {size} bytes, over the {max_bytes}-byte limit for evidence; not read"
        )


def _decode(content: str, what: str) -> bytes:
    try:
        return base64.b64decode("".join(content.split()), validate=True)
    except ValueError:
        raise GitHubError(f"unexpected response from GitHub for {what}: bad base64") from None
