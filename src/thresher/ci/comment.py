"""One sticky pull-request comment: found by its hidden marker, updated in place.

A bot that posts a new comment on every push buries the conversation, so thresher
keeps one comment per pull request. It is found by the hidden marker its body starts
with; a comment by a bot account is preferred to one a person wrote (anyone can paste
the marker), and if updating the found comment is refused, a new one is created.

The comment is created only when something needs action; once it exists it is kept
current, and says "all clear" when a later push resolves everything. GitHub refuses a
body over 65,536 characters: the summary is re-rendered with fewer rows, then cut at a
line, with a note either way.

A token that may not comment (a fork's pull request, or a workflow without
``pull-requests: write``) is not a failure of the scan: the comment is skipped and
the job summary says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from thresher.ci.commands import fit
from thresher.errors import ThresherError
from thresher.findings.results import Verdict
from thresher.github.models import IssueComment
from thresher.reports.markdown import STICKY_MARKER, render_summary
from thresher.tribunal.decisions import RunReport

MAX_COMMENT_CHARS = 65_536
_ROW_STEPS = (50, 20, 10, 5, 1, 0)
_CUT_NOTE = (
    "> ✂️ Shortened to fit GitHub's 65,536-character comment limit; the job summary, "
    "the SARIF upload and the JSON report list every finding."
)


class CommentApi(Protocol):
    """What the sticky comment needs of ``GitHubClient``."""

    def issue_comments(self, repo: str, number: int) -> list[IssueComment]: ...

    def create_issue_comment(self, repo: str, number: int, body: str) -> IssueComment: ...

    def update_issue_comment(self, repo: str, comment_id: int, body: str) -> IssueComment: ...


class CommentAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    NOT_NEEDED = "not-needed"  # nothing needs action and there is no comment to clear
    SKIPPED = "skipped"  # the token may not comment, or there is no token
    FAILED = "failed"  # GitHub could not be reached or refused the token: reported, not fatal
    DISABLED = "disabled"  # --no-comment, or not a pull request


@dataclass(frozen=True)
class CommentResult:
    action: CommentAction
    url: str | None = None
    note: str | None = None  # a line for the job summary


def needs_action(report: RunReport) -> bool:
    return any(d.verdict is not Verdict.FALSE_POSITIVE for d in report.decisions)


def comment_body(report: RunReport, *, head_sha: str, all_clear: bool = False) -> str:
    """The comment's Markdown: the marker first, always under GitHub's limit."""
    lead = (
        f"> ✅ **All clear** as of `{head_sha[:12]}`: nothing this pull request adds needs "
        "action any more.\n\n"
        if all_clear
        else ""
    )
    foot = f"\n\n<sub>Commit `{head_sha[:12]}` · this comment is updated on every push.</sub>\n"
    body = ""
    for rows in _ROW_STEPS:
        summary = render_summary(report, max_rows=rows).removeprefix(STICKY_MARKER).lstrip("\n")
        body = f"{STICKY_MARKER}\n{lead}{summary.rstrip()}{foot}"
        if rows != _ROW_STEPS[0]:
            body = f"{body.rstrip()}\n\n{_CUT_NOTE}\n"
        if len(body) <= MAX_COMMENT_CHARS:
            return body
    return fit(body, MAX_COMMENT_CHARS, _CUT_NOTE, measure="chars")


def find_sticky(comments: list[IssueComment]) -> list[IssueComment]:
    """Comments carrying the marker, a bot's first, then oldest first."""
    marked = [c for c in comments if c.body.lstrip().startswith(STICKY_MARKER)]
    return sorted(marked, key=lambda c: (c.author_type != "Bot", c.id))


def post_sticky(
    api: CommentApi, repo: str, number: int, report: RunReport, *, head_sha: str
) -> CommentResult:
    """Create, update or leave the sticky comment; a refused write is ``SKIPPED``."""
    from thresher.github.errors import GitHubNotFound, GitHubPermissionError

    try:
        found = find_sticky(api.issue_comments(repo, number))
    except (GitHubPermissionError, GitHubNotFound) as exc:
        return _skipped(exc)
    if found:
        body = comment_body(report, head_sha=head_sha, all_clear=not needs_action(report))
        try:
            updated = api.update_issue_comment(repo, found[0].id, body)
            return CommentResult(CommentAction.UPDATED, updated.html_url)
        except (GitHubPermissionError, GitHubNotFound):
            pass  # not ours to edit (or gone): post our own below
    elif not needs_action(report):
        return CommentResult(CommentAction.NOT_NEEDED)
    body = comment_body(report, head_sha=head_sha)
    try:
        created = api.create_issue_comment(repo, number, body)
    except (GitHubPermissionError, GitHubNotFound) as exc:
        return _skipped(exc)
    return CommentResult(CommentAction.CREATED, created.html_url)


def _skipped(exc: ThresherError) -> CommentResult:
    return CommentResult(
        CommentAction.SKIPPED,
        note=(
            "The pull-request comment was skipped: the token may not comment here "
            "(a pull request from a fork, or a workflow without `pull-requests: write`). "
            f"GitHub said: {_one_line(exc.message)}"
        ),
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300].replace("`", "'")
