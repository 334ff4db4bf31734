"""Reply builders for :class:`tests.fakes.github.GitHubFake`, in GitHub REST's shapes:
errors (401, 404, 422 ``Validation Failed``), rate limits, server errors, a page of a
listing with its ``Link`` header, a contents item, an installation and its token."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from tests.fakes.base import CapturedRequest, Reply
from tests.fakes.github_world import (
    CONTENTS_INLINE_LIMIT,
    HTML_BASE,
    FakeApp,
    FakeRepo,
    b64_lines,
    iso,
    user_json,
)

DOCS = "https://docs.github.com/rest"
PERMISSIONS = {"secret_scanning_alerts": "write", "contents": "read"}


def error(status: int, message: str, **extra: Any) -> Reply:
    return Reply.json_(
        status, {"message": message, "documentation_url": DOCS, "status": str(status), **extra}
    )


def validation_failed(field: str, message: str, code: str = "custom") -> Reply:
    return error(
        422,
        "Validation Failed",
        errors=[
            {"resource": "SecretScanningAlert", "field": field, "code": code, "message": message}
        ],
    )


def primary_limited(reset_in: float) -> Reply:
    """403 with ``x-ratelimit-remaining: 0`` and the reset time ``reset_in`` from now."""
    return error(403, "API rate limit exceeded for user ID 1.").with_headers(
        {
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-used": "5000",
            "x-ratelimit-reset": str(int(time.time() + reset_in)),
            "x-ratelimit-resource": "core",
        }
    )


def secondary_limited(retry_after: int | None) -> Reply:
    """403 with GitHub's secondary-limit message, and ``retry-after`` when given."""
    reply = error(
        403,
        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
    )
    return reply if retry_after is None else reply.with_headers({"retry-after": str(retry_after)})


def server_error(status: int) -> Reply:
    """A 5xx; a 502 comes as an HTML page, as it does from GitHub's edge."""
    if status == 502:
        return Reply.raw(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html")
    return error(status, "Server Error")


def page(request: CapturedRequest, items: list[Any], base_url: str) -> Reply:
    """One page of ``items`` with GitHub's ``Link`` header (first/prev/next/last)."""
    query = {k: v[-1] for k, v in request.query.items()}
    try:
        per_page = min(max(int(query.get("per_page", 30)), 1), 100)
        number = max(int(query.get("page", 1)), 1)
    except ValueError:
        return validation_failed("page", "page and per_page must be integers", "invalid")
    last = max(1, -(-len(items) // per_page))
    chunk = items[(number - 1) * per_page : number * per_page]
    links: list[str] = []

    def url(n: int) -> str:
        params = urlencode({**query, "per_page": per_page, "page": n})
        return f"{base_url}{request.route}?{params}"

    if number < last:
        links += [f'<{url(number + 1)}>; rel="next"', f'<{url(last)}>; rel="last"']
    if number > 1:
        links = [f'<{url(number - 1)}>; rel="prev"', *links, f'<{url(1)}>; rel="first"']
    return Reply.json_(200, chunk, {"link": ", ".join(links)} if links else {})


def contents(api: str, repo: FakeRepo, ref: str, path: str) -> Reply:
    """``GET /repos/{o}/{r}/contents/{path}?ref=``: a file (inline up to 1 MB, else
    ``encoding: none`` with empty content), a directory listing, or 404."""
    repo_api = f"{api}/repos/{repo.full_name}"
    sha = repo.files.get((ref, path))
    if sha is None:
        prefix = path.rstrip("/") + "/"
        entries = sorted({p for (r, p) in repo.files if r == ref and p.startswith(prefix)})
        if not entries:
            return error(404, "Not Found")
        listing = [
            {"type": "file", "name": p.rsplit("/", 1)[-1], "path": p, "sha": repo.files[(ref, p)]}
            for p in entries
        ]
        return Reply.json_(200, listing)
    content = repo.blobs[sha]
    inline = len(content) <= CONTENTS_INLINE_LIMIT
    html = f"{HTML_BASE}/{repo.full_name}/blob/{ref}/{path}"
    return Reply.json_(
        200,
        {
            "type": "file",
            "encoding": "base64" if inline else "none",
            "size": len(content),
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "content": b64_lines(content) if inline else "",
            "sha": sha,
            "url": f"{repo_api}/contents/{path}?ref={ref}",
            "git_url": f"{repo_api}/git/blobs/{sha}",
            "html_url": html,
            "download_url": f"https://raw.githubusercontent.com/{repo.full_name}/{ref}/{path}",
            "_links": {
                "self": f"{repo_api}/contents/{path}?ref={ref}",
                "git": f"{repo_api}/git/blobs/{sha}",
                "html": html,
            },
        },
    )


def installation(api: str, app: FakeApp, owner: str, target_type: str) -> Reply:
    installation_id = app.installations[owner]
    return Reply.json_(
        200,
        {
            "id": installation_id,
            "app_id": app.app_id,
            "target_type": target_type,
            "account": user_json(api, owner),
            "repository_selection": "all",
            "access_tokens_url": f"{api}/app/installations/{installation_id}/access_tokens",
            "repositories_url": f"{api}/installation/repositories",
            "html_url": f"{HTML_BASE}/settings/installations/{installation_id}",
            "permissions": PERMISSIONS,
            "events": [],
        },
    )


def access_token(token: str) -> Reply:
    expires = datetime.now(UTC) + timedelta(hours=1)
    return Reply.json_(
        201,
        {
            "token": token,
            "expires_at": iso(expires),
            "permissions": PERMISSIONS,
            "repository_selection": "all",
        },
    )
