"""Typed GitHub failures, each with a hint that tells the user what to change.

Every error the GitHub layer raises is one of these; PyGithub and HTTP exceptions are
translated at the boundary (``client.py``) so the CLI prints a message, never a
traceback. No message or hint ever holds a token: they are built from the status,
the API's own ``message`` and the route, never from request headers.
"""

from __future__ import annotations

from datetime import datetime

from thresher.errors import ExitCode, ThresherError

TOKEN_VARIABLES = "GITHUB_TOKEN or GH_TOKEN"

READ_PERMISSION = (
    "the token needs `security-events: read` in a workflow, or the `Secret scanning "
    "alerts: read` permission for a fine-grained token or GitHub App (classic tokens: "
    "`security_events` or `repo` scope)"
)
WRITE_PERMISSION = (
    "resolving alerts needs `security-events: write` in a workflow, or the `Secret "
    "scanning alerts: write` permission for a fine-grained token or GitHub App"
)
CONTENTS_PERMISSION = "reading files needs `contents: read` on the repository"


class GitHubError(ThresherError):
    """A GitHub API call failed in a way the user has to act on."""

    exit_code = ExitCode.RUNTIME


class GitHubAuthError(GitHubError):
    """No token, a token GitHub refuses (401), or a GitHub App key that cannot be used."""

    exit_code = ExitCode.USAGE


class GitHubPermissionError(GitHubError):
    """A 403 that is not a rate limit: the token lacks a permission for this call."""

    exit_code = ExitCode.USAGE


class GitHubNotFound(GitHubError):
    """404: the repository, organisation or alert does not exist, is not visible to the
    token, or secret scanning is disabled on it."""


class GitHubRateLimited(GitHubError):
    """GitHub asked us to wait longer than the retry policy allows.

    The caller stops cleanly and keeps its state; ``reset_at`` says when a re-run can
    continue (None when GitHub gave no time).
    """

    def __init__(
        self, message: str, *, reset_at: datetime | None = None, hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.reset_at = reset_at


class GitHubValidationError(GitHubError, ValueError):
    """GitHub (422) or our own pre-flight check refused a request body; ``field`` names
    the offending field. Also a ValueError: a bad argument is what it usually means."""

    exit_code = ExitCode.USAGE

    def __init__(self, message: str, *, field: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.field = field
