"""Turn GitHub REST JSON into the models, and read ``Link`` headers.

GitHub's payloads are data from the network: anything missing or of the wrong type
becomes a :class:`GitHubError` naming the route and the field, never a KeyError.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from thresher.findings.model import GitHubLocationType
from thresher.github.errors import GitHubError
from thresher.github.models import (
    DISCUSSION_LOCATION_TYPES,
    Alert,
    AlertLocation,
    CommitLocation,
    IssueComment,
    TextLocation,
    WikiCommitLocation,
)

_LINK = re.compile(r'<([^>]*)>\s*;\s*rel="?([A-Za-z]+)"?')
# The tail of a REST URL after /repos/{owner}/{name}/ and the web path it implies.
_ISSUE = re.compile(r"/repos/[^/]+/[^/]+/issues/(\d+)$")
_PULL = re.compile(r"/repos/[^/]+/[^/]+/pulls/(\d+)$")
_REVIEW = re.compile(r"/repos/[^/]+/[^/]+/pulls/(\d+)/reviews/(\d+)$")


def link_header(value: str | None) -> dict[str, str]:
    """``{rel: url}`` from an RFC 8288 ``Link`` header (GitHub's pagination)."""
    if not value:
        return {}
    return {rel: url for url, rel in _LINK.findall(value)}


def _fail(what: str, exc: Exception) -> GitHubError:
    detail = exc.errors()[0] if isinstance(exc, ValidationError) else None
    field = ".".join(str(p) for p in detail["loc"]) if detail else str(exc)
    reason = detail["msg"] if detail else "missing"
    return GitHubError(
        f"unexpected response from GitHub for {what}: field {field!r}: {reason}",
        hint="check --api-url points at a GitHub REST API (GHES: https://HOST/api/v3)",
    )


def _login(value: Any) -> str | None:
    return str(value["login"]) if isinstance(value, Mapping) and "login" in value else None


def alert(data: Any, *, repo: str | None, what: str) -> Alert:
    """An alert from a list item, a single GET or a PATCH response.

    ``repo`` is the repository's full name when the route names it; organisation
    listings carry it in ``repository.full_name`` instead.
    """
    try:
        if not isinstance(data, Mapping):
            raise TypeError("expected a JSON object")
        repository = data.get("repository")
        full_name: Any = repository.get("full_name") if isinstance(repository, Mapping) else repo
        return Alert(
            repo=full_name,
            number=data["number"],
            url=data["url"],
            html_url=data["html_url"],
            locations_url=data.get("locations_url") or f"{data['url']}/locations",
            state=data["state"],
            resolution=data.get("resolution"),
            resolution_comment=data.get("resolution_comment"),
            resolved_at=data.get("resolved_at"),
            resolved_by=_login(data.get("resolved_by")),
            secret_type=data["secret_type"],
            secret_type_display_name=data.get("secret_type_display_name"),
            validity=data.get("validity"),
            created_at=data["created_at"],
            updated_at=data.get("updated_at") or data["created_at"],
            publicly_leaked=bool(data.get("publicly_leaked")),
            multi_repo=bool(data.get("multi_repo")),
            push_protection_bypassed=bool(data.get("push_protection_bypassed")),
            has_more_locations=bool(data.get("has_more_locations")),
            secret=data.get("secret"),
        )
    except (KeyError, TypeError, ValidationError) as exc:
        raise _fail(what, exc) from None


def _implied_html(url: str, repo_html_url: str) -> str | None:
    """The web page a REST URL implies, when it does without another request."""
    if match := _ISSUE.search(url):
        return f"{repo_html_url}/issues/{match.group(1)}"
    if match := _PULL.search(url):
        return f"{repo_html_url}/pull/{match.group(1)}"
    if match := _REVIEW.search(url):
        return f"{repo_html_url}/pull/{match.group(1)}#pullrequestreview-{match.group(2)}"
    return None


def location(data: Any, *, repo_html_url: str, what: str) -> AlertLocation:
    """One item of ``GET .../alerts/{n}/locations``."""
    try:
        if not isinstance(data, Mapping) or not isinstance(data.get("details"), Mapping):
            raise TypeError("expected {type, details}")
        kind = GitHubLocationType(data["type"])
        details: Mapping[str, Any] = data["details"]
        match kind:
            case GitHubLocationType.COMMIT:
                path = str(details["path"]).lstrip("/")
                commit_sha = str(details["commit_sha"])
                line = int(details["start_line"])
                html = f"{repo_html_url}/blob/{commit_sha}/{quote(path)}#L{line}"
                return CommitLocation(
                    path=path,
                    start_line=line,
                    end_line=details.get("end_line", line),
                    start_column=details.get("start_column"),
                    end_column=details.get("end_column"),
                    blob_sha=details["blob_sha"],
                    blob_url=details.get("blob_url"),
                    commit_sha=commit_sha,
                    commit_url=details.get("commit_url"),
                    html_url=html,
                )
            case GitHubLocationType.WIKI_COMMIT:
                return WikiCommitLocation(
                    path=str(details["path"]).lstrip("/"),
                    start_line=details["start_line"],
                    end_line=details.get("end_line", details["start_line"]),
                    start_column=details.get("start_column"),
                    end_column=details.get("end_column"),
                    blob_sha=details["blob_sha"],
                    page_url=details.get("page_url"),
                    commit_sha=details["commit_sha"],
                    commit_url=details.get("commit_url"),
                )
            case (
                GitHubLocationType.ISSUE_TITLE
                | GitHubLocationType.ISSUE_BODY
                | GitHubLocationType.ISSUE_COMMENT
                | GitHubLocationType.DISCUSSION_TITLE
                | GitHubLocationType.DISCUSSION_BODY
                | GitHubLocationType.DISCUSSION_COMMENT
                | GitHubLocationType.PULL_REQUEST_TITLE
                | GitHubLocationType.PULL_REQUEST_BODY
                | GitHubLocationType.PULL_REQUEST_COMMENT
                | GitHubLocationType.PULL_REQUEST_REVIEW
                | GitHubLocationType.PULL_REQUEST_REVIEW_COMMENT
            ):
                url = str(details[f"{kind.value}_url"])
                if kind in DISCUSSION_LOCATION_TYPES:
                    return TextLocation(type=kind, url=url, html_url=url)
                implied = _implied_html(url, repo_html_url)
                return TextLocation(type=kind, url=url, api_url=url, html_url=implied)
    except (KeyError, TypeError, ValueError, ValidationError) as exc:
        raise _fail(what, exc) from None


def issue_comment(data: Any, *, what: str) -> IssueComment:
    """A comment from a listing, a POST or a PATCH response."""
    if not isinstance(data, Mapping):
        raise GitHubError(f"unexpected response from GitHub for {what}: not an object")
    user = data.get("user")
    try:
        return IssueComment.model_validate(
            {
                "id": data.get("id"),
                "body": data.get("body") or "",
                "author": _login(user),
                "author_type": user.get("type") if isinstance(user, Mapping) else None,
                "html_url": data.get("html_url"),
            }
        )
    except ValidationError as exc:
        raise _fail(what, exc) from None
