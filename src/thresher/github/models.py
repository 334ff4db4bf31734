"""Value objects for GitHub secret-scanning alerts and where their secrets were found.

They are frozen and typed so the triage command can match on them exhaustively. An
:class:`Alert` carries the raw secret because the vault needs it, but in a field that is
excluded from every dump and from ``repr``: an alert can be logged, serialised into a
report or stored without the value ever leaving memory.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator

from thresher.errors import UsageError
from thresher.findings.model import (
    AlertResolution,
    AlertState,
    AlertValidity,
    GitHubLocationType,
)

# GitHub's own rules: an owner is 1-39 letters, digits or single hyphens; a repository
# name is 1-100 letters, digits, '.', '_' or '-' (and never "." or "..").
_OWNER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")

FILE_LOCATION_TYPES = frozenset({GitHubLocationType.COMMIT, GitHubLocationType.WIKI_COMMIT})
TITLE_LOCATION_TYPES = frozenset(
    {
        GitHubLocationType.ISSUE_TITLE,
        GitHubLocationType.PULL_REQUEST_TITLE,
        GitHubLocationType.DISCUSSION_TITLE,
    }
)
DISCUSSION_LOCATION_TYPES = frozenset(
    {
        GitHubLocationType.DISCUSSION_TITLE,
        GitHubLocationType.DISCUSSION_BODY,
        GitHubLocationType.DISCUSSION_COMMENT,
    }
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def check_owner(owner: str, *, flag: str) -> str:
    """``owner`` if it is a valid GitHub login, else a UsageError naming ``flag``."""
    if not _OWNER.fullmatch(owner) or "--" in owner or owner.endswith("-"):
        raise UsageError(
            f"{flag}: {owner!r} is not a GitHub user or organisation name",
            hint="use the login as it appears in github.com/<login>",
        )
    return owner


class RepoRef(_Frozen):
    """A repository named ``owner/name``."""

    owner: str
    name: str

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def __str__(self) -> str:
        return self.full_name

    @classmethod
    def parse(cls, text: str, *, flag: str = "--repo") -> Self:
        """Parse ``owner/name``; a malformed value is a UsageError naming ``flag``."""
        owner, sep, name = text.strip().partition("/")
        bad = not sep or not _NAME.fullmatch(name) or name in {".", ".."}
        if bad or not _OWNER.fullmatch(owner):
            raise UsageError(
                f"{flag}: {text!r} is not a repository; expected OWNER/NAME",
                hint=f"for example {flag} octo-org/payments-api",
            )
        check_owner(owner, flag=flag)
        return cls(owner=owner, name=name)


def _utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class AlertFilters(_Frozen):
    """Which alerts to list. ``state=None`` lists every state.

    GitHub filters state, secret type and validity server-side; it has no ``since``
    parameter, so ``since`` keeps alerts created or updated at or after that time and is
    applied by the client (listing newest-updated first, so paging stops early).
    """

    state: AlertState | None = AlertState.OPEN
    secret_types: tuple[str, ...] = ()
    validities: tuple[AlertValidity, ...] = ()
    resolutions: tuple[AlertResolution, ...] = ()
    since: datetime | None = None

    @field_validator("since")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return _utc(value)

    def admits(self, alert: Alert) -> bool:
        """Whether ``alert`` passes every filter (the client-side check of ``since``, and
        a guard against a server that ignored a parameter)."""
        if self.state is not None and alert.state is not self.state:
            return False
        if self.secret_types and alert.secret_type not in self.secret_types:
            return False
        if self.validities and alert.validity not in self.validities:
            return False
        if self.resolutions and alert.resolution not in self.resolutions:
            return False
        return self.since is None or max(alert.created_at, alert.updated_at) >= self.since


class CommitLocation(_Frozen):
    """A secret in a file of a commit in the repository."""

    type: Literal[GitHubLocationType.COMMIT] = GitHubLocationType.COMMIT
    path: str
    start_line: int
    end_line: int
    start_column: int | None = None
    end_column: int | None = None
    blob_sha: str
    blob_url: str | None = None
    commit_sha: str
    commit_url: str | None = None
    html_url: str | None = None


class WikiCommitLocation(_Frozen):
    """A secret in a page of the repository's wiki (a separate git repository)."""

    type: Literal[GitHubLocationType.WIKI_COMMIT] = GitHubLocationType.WIKI_COMMIT
    path: str
    start_line: int
    end_line: int
    start_column: int | None = None
    end_column: int | None = None
    blob_sha: str
    page_url: str | None = None
    commit_sha: str
    commit_url: str | None = None


class TextLocation(_Frozen):
    """A secret in text outside the tree: an issue, pull request or discussion.

    ``url`` is what GitHub gave. ``api_url`` is set when that is a REST URL (issues and
    pull requests: :meth:`GitHubClient.text_at` reads it); discussions only have an HTML
    URL, so ``api_url`` is None for them. ``html_url`` is the page a person opens, when
    GitHub gives or implies one.
    """

    type: GitHubLocationType
    url: str
    api_url: str | None = None
    html_url: str | None = None

    @field_validator("type")
    @classmethod
    def _not_a_file(cls, value: GitHubLocationType) -> GitHubLocationType:
        if value in FILE_LOCATION_TYPES:
            raise ValueError(f"{value} is a file location, not text")
        return value


AlertLocation = CommitLocation | WikiCommitLocation | TextLocation


class Alert(_Frozen):
    """One secret-scanning alert.

    ``secret`` is the raw value as GitHub returns it: excluded from ``model_dump``,
    ``model_dump_json`` and ``repr``, so it reaches the vault and nothing else.
    """

    repo: str
    number: int
    url: str
    html_url: str
    locations_url: str
    state: AlertState
    resolution: AlertResolution | None = None
    resolution_comment: str | None = None
    resolved_at: datetime | None = None
    resolved_by: str | None = None
    secret_type: str
    secret_type_display_name: str | None = None
    validity: AlertValidity | None = None
    created_at: datetime
    updated_at: datetime
    publicly_leaked: bool = False
    multi_repo: bool = False
    push_protection_bypassed: bool = False
    has_more_locations: bool = False
    secret: str | None = Field(default=None, exclude=True, repr=False)

    @field_validator("created_at", "updated_at", "resolved_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return _utc(value)

    @property
    def repo_ref(self) -> RepoRef:
        return RepoRef.parse(self.repo, flag="alert repository")

    @property
    def repo_html_url(self) -> str:
        """The repository's web page, derived from the alert's own ``html_url`` (which is
        ``{repo}/security/secret-scanning/{number}``), so it is right on GHES too."""
        head, sep, _ = self.html_url.partition("/security/secret-scanning")
        return head if sep else self.html_url.rstrip("/")

    @property
    def key(self) -> str:
        """``owner/name#number``: unique across an organisation."""
        return f"{self.repo}#{self.number}"


class IssueComment(_Frozen):
    """A comment on an issue or pull request (the conversation tab), as ``thresher ci``
    needs it to find and update its sticky comment."""

    id: int
    body: str
    author: str | None = None
    author_type: str | None = None  # "User", "Bot", "Organization"
    html_url: str | None = None
