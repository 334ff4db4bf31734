"""Issue and pull-request conversation comments for :class:`tests.fakes.github.GitHubFake`:
``GET``/``POST /repos/{o}/{r}/issues/{n}/comments`` (paginated listing, create) and
``PATCH /repos/{o}/{r}/issues/comments/{id}`` (update), with GitHub's 404 and 422s.

A token registered read-only gets GitHub's 403 on the writes before these run (see
``GitHubFake.check``), as a fork's pull request or a workflow without
``pull-requests: write`` does.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tests.fakes import github_replies as replies
from tests.fakes.base import CapturedRequest, Reply
from tests.fakes.github_replies import error
from tests.fakes.github_world import FakeRepo

MAX_BODY = 65_536


def route(
    request: CapturedRequest, repo: FakeRepo, rest: str, *, api: str, base_url: str, login: str
) -> Reply | None:
    """The reply for a conversation-comment route, or None if ``rest`` is not one."""
    method = request.method
    if m := re.fullmatch(r"/issues/(\d+)/comments", rest):
        number = int(m[1])
        if number not in repo.issues:
            return error(404, "Not Found")
        if method == "GET":
            items = [c.to_json(api, repo.full_name) for c in repo.comments_on(number)]
            return replies.page(request, items, base_url)
        if method == "POST":
            body = _body(request)
            if isinstance(body, Reply):
                return body
            comment = repo.add_comment(number, body, login=login)
            return Reply.json_(201, comment.to_json(api, repo.full_name))
        return error(404, "Not Found")
    if (m := re.fullmatch(r"/issues/comments/(\d+)", rest)) and method == "PATCH":
        found = [c for c in repo.conversation if c.id == int(m[1])]
        if not found:
            return error(404, "Not Found")
        body = _body(request)
        if isinstance(body, Reply):
            return body
        found[0].body = body
        found[0].updated_at = datetime.now(UTC).replace(microsecond=0)
        repo.issue_comments[found[0].id] = body
        return Reply.json_(200, found[0].to_json(api, repo.full_name))
    return None


def _body(request: CapturedRequest) -> str | Reply:
    try:
        data = request.json()
    except ValueError:
        return error(400, "Problems parsing JSON")
    body = data.get("body") if isinstance(data, dict) else None
    if not isinstance(body, str) or not body:
        return _invalid("body", "missing_field", "body wasn't supplied.")
    if len(body) > MAX_BODY:
        return _invalid("body", "custom", f"Body is too long (maximum is {MAX_BODY} characters)")
    return body


def _invalid(field: str, code: str, message: str) -> Reply:
    return error(
        422,
        "Validation Failed",
        errors=[{"resource": "IssueComment", "field": field, "code": code, "message": message}],
    )
