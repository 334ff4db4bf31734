"""The in-memory world behind :class:`tests.fakes.github.GitHubFake`: organisations,
repositories, secret-scanning alerts with locations of every type, files and blobs,
issue and pull-request text, apps and their installations, and accepted tokens.

Build one quickly::

    world = GitHubWorld()
    repo = world.add_repo("octo/app")
    sha = repo.add_file("c0ffee...", "config/settings.py", b"KEY = '...'\n")
    repo.add_alert(secret=token, locations=[Loc.commit("config/settings.py", "c0ffee...")])

The ``to_json`` methods render GitHub REST's real shapes; URLs are built from the
server's ``base_url`` at request time (the port is only known once it starts).
"""

from __future__ import annotations

import base64
import hashlib
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HTML_BASE = "https://github.com"
EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
CONTENTS_INLINE_LIMIT = 1024 * 1024  # the contents API inlines files up to 1 MB


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _tick(previous: datetime) -> datetime:
    """Now, to the second as GitHub gives it, and later than ``previous``: every change
    to an alert moves its ``updated_at`` on, even two in one second."""
    return max(datetime.now(UTC).replace(microsecond=0), previous + timedelta(seconds=1))


def git_blob_sha(content: bytes) -> str:
    """The object id git gives a blob: sha1 over ``blob <size>\\0<content>``."""
    return hashlib.sha1(b"blob %d\x00" % len(content) + content).hexdigest()


def b64_lines(content: bytes) -> str:
    """Base64 with a newline every 60 characters, as the contents and blobs APIs send."""
    text = base64.b64encode(content).decode("ascii")
    return "".join(text[i : i + 60] + "\n" for i in range(0, len(text), 60))


@dataclass(frozen=True)
class Loc:
    """Where an alert's secret was found; ``to_json`` renders GitHub's location item."""

    type: str
    path: str = ""
    commit_sha: str = ""
    blob_sha: str = ""
    start_line: int = 1
    end_line: int = 1
    start_column: int = 1
    end_column: int = 40
    number: int = 0
    item_id: int = 0

    @classmethod
    def commit(
        cls,
        path: str,
        commit_sha: str,
        blob_sha: str = "",
        *,
        line: int = 1,
        columns: tuple[int, int] = (1, 40),
    ) -> Loc:
        return cls("commit", path, commit_sha, blob_sha, line, line, *columns)

    @classmethod
    def wiki(cls, path: str, commit_sha: str, blob_sha: str, *, line: int = 1) -> Loc:
        return cls("wiki_commit", path, commit_sha, blob_sha, line, line)

    @classmethod
    def text(cls, kind: str, *, number: int = 0, item_id: int = 0) -> Loc:
        """``kind`` is issue_title, issue_comment, pull_request_review, discussion_body..."""
        return cls(kind, number=number, item_id=item_id)

    def to_json(self, api: str, repo: str) -> dict[str, Any]:
        repo_api, repo_html = f"{api}/repos/{repo}", f"{HTML_BASE}/{repo}"
        if self.type in {"commit", "wiki_commit"}:
            details: dict[str, Any] = {
                "path": self.path,
                "start_line": self.start_line,
                "end_line": self.end_line,
                "start_column": self.start_column,
                "end_column": self.end_column,
                "blob_sha": self.blob_sha,
                "commit_sha": self.commit_sha,
            }
            if self.type == "commit":
                details["blob_url"] = f"{repo_api}/git/blobs/{self.blob_sha}"
                details["commit_url"] = f"{repo_api}/git/commits/{self.commit_sha}"
            else:
                page = self.path.removesuffix(".md")
                details["page_url"] = f"{repo_html}/wiki/{page}/{self.commit_sha}"
                details["commit_url"] = f"{repo_html}/wiki/_compare/{self.commit_sha}"
            return {"type": self.type, "details": details}
        urls = {
            "issue_title": f"{repo_api}/issues/{self.number}",
            "issue_body": f"{repo_api}/issues/{self.number}",
            "issue_comment": f"{repo_api}/issues/comments/{self.item_id}",
            "pull_request_title": f"{repo_api}/pulls/{self.number}",
            "pull_request_body": f"{repo_api}/pulls/{self.number}",
            "pull_request_comment": f"{repo_api}/issues/comments/{self.item_id}",
            "pull_request_review": f"{repo_api}/pulls/{self.number}/reviews/{self.item_id}",
            "pull_request_review_comment": f"{repo_api}/pulls/comments/{self.item_id}",
            "discussion_title": f"{repo_html}/discussions/{self.number}",
            "discussion_body": f"{repo_html}/discussions/{self.number}#discussion-{self.item_id}",
            "discussion_comment": (
                f"{repo_html}/discussions/{self.number}#discussioncomment-{self.item_id}"
            ),
        }
        return {"type": self.type, "details": {f"{self.type}_url": urls[self.type]}}


ALL_TEXT_KINDS = (
    "issue_title",
    "issue_body",
    "issue_comment",
    "discussion_title",
    "discussion_body",
    "discussion_comment",
    "pull_request_title",
    "pull_request_body",
    "pull_request_comment",
    "pull_request_review",
    "pull_request_review_comment",
)


@dataclass
class FakeAlert:
    repo: FakeRepo
    number: int
    secret: str
    secret_type: str
    secret_type_display_name: str
    validity: str
    state: str
    created_at: datetime
    updated_at: datetime
    locations: list[Loc]
    resolution: str | None = None
    resolution_comment: str | None = None
    resolved_at: datetime | None = None
    resolved_by: str | None = None
    publicly_leaked: bool = False
    multi_repo: bool = False
    push_protection_bypassed: bool = False

    def url(self, api: str) -> str:
        return f"{api}/repos/{self.repo.full_name}/secret-scanning/alerts/{self.number}"

    def resolve(self, resolution: str, comment: str | None, *, by: str) -> None:
        """Resolved as GitHub records it: by whom, when; ``updated_at`` moves on. Also
        how a test plays a person resolving the alert in GitHub's UI (hold the world's
        lock while the server runs)."""
        self.state, self.resolution, self.resolution_comment = "resolved", resolution, comment
        self.resolved_at, self.resolved_by = _tick(self.updated_at), by
        self.updated_at = self.resolved_at

    def reopen(self) -> None:
        """Reopened (by a person, in a test): unresolved, ``updated_at`` moves on."""
        self.state, self.resolution, self.resolution_comment = "open", None, None
        self.resolved_at, self.resolved_by = None, None
        self.updated_at = _tick(self.updated_at)

    def to_json(self, api: str, *, with_repository: bool = False) -> dict[str, Any]:
        body: dict[str, Any] = {
            "number": self.number,
            "created_at": iso(self.created_at),
            "updated_at": iso(self.updated_at),
            "url": self.url(api),
            "html_url": f"{HTML_BASE}/{self.repo.full_name}/security/secret-scanning/{self.number}",
            "locations_url": f"{self.url(api)}/locations",
            "state": self.state,
            "resolution": self.resolution,
            "resolved_at": iso(self.resolved_at),
            "resolved_by": None if self.resolved_by is None else user_json(api, self.resolved_by),
            "resolution_comment": self.resolution_comment,
            "secret_type": self.secret_type,
            "secret_type_display_name": self.secret_type_display_name,
            "secret": self.secret,
            "validity": self.validity,
            "publicly_leaked": self.publicly_leaked,
            "multi_repo": self.multi_repo,
            "is_base64_encoded": False,
            "push_protection_bypassed": self.push_protection_bypassed,
            "push_protection_bypassed_by": None,
            "push_protection_bypassed_at": None,
            "first_location_detected": (
                self.locations[0].to_json(api, self.repo.full_name)["details"]
                if self.locations
                else None
            ),
            "has_more_locations": len(self.locations) > 1,
        }
        if with_repository:
            body["repository"] = self.repo.to_json(api)
        return body


def user_json(api: str, login: str) -> dict[str, Any]:
    return {
        "login": login,
        "id": int(hashlib.sha1(login.encode()).hexdigest()[:6], 16),
        "type": "User",
        "url": f"{api}/users/{login}",
        "html_url": f"{HTML_BASE}/{login}",
    }


@dataclass
class FakeComment:
    """A comment in an issue's or pull request's conversation."""

    id: int
    issue: int
    body: str
    login: str
    created_at: datetime
    updated_at: datetime

    def to_json(self, api: str, repo: str) -> dict[str, Any]:
        user = user_json(api, self.login)
        if self.login.endswith("[bot]"):
            user["type"] = "Bot"
        web = "pull" if self.issue in self.pulls else "issues"
        return {
            "id": self.id,
            "node_id": f"IC_{self.id}",
            "url": f"{api}/repos/{repo}/issues/comments/{self.id}",
            "html_url": f"{HTML_BASE}/{repo}/{web}/{self.issue}#issuecomment-{self.id}",
            "issue_url": f"{api}/repos/{repo}/issues/{self.issue}",
            "body": self.body,
            "user": user,
            "created_at": iso(self.created_at),
            "updated_at": iso(self.updated_at),
            "author_association": "NONE" if self.login.endswith("[bot]") else "MEMBER",
        }

    pulls: frozenset[int] = frozenset()


@dataclass
class FakeRepo:
    world: GitHubWorld
    owner: str
    name: str
    id: int
    alerts: dict[int, FakeAlert] = field(default_factory=dict)
    files: dict[tuple[str, str], str] = field(default_factory=dict)  # (ref, path) -> blob sha
    blobs: dict[str, bytes] = field(default_factory=dict)
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)  # also pull requests
    issue_comments: dict[int, str] = field(default_factory=dict)
    reviews: dict[tuple[int, int], str] = field(default_factory=dict)
    review_comments: dict[int, str] = field(default_factory=dict)
    # GET /repos/{o}/{r}'s clone_url; tests of --clone set a file:// URL of a local bare
    # repository (git serves it with uploadpack.allowFilter for the partial clone).
    clone_url: str | None = None
    git_dir: Path | None = None  # a bare repository the fake serves over git's smart HTTP
    conversation: list[FakeComment] = field(default_factory=list)  # issue/PR comments

    def comments_on(self, number: int) -> list[FakeComment]:
        return [c for c in self.conversation if c.issue == number]

    def add_comment(self, number: int, body: str, *, login: str) -> FakeComment:
        """A conversation comment (what POST /issues/{n}/comments creates)."""
        now = datetime.now(UTC).replace(microsecond=0)
        ids = [c.id for c in self.conversation] + list(self.issue_comments)
        pulls = frozenset(n for n, i in self.issues.items() if i["pull"])
        comment = FakeComment(max(ids, default=9000) + 1, number, body, login, now, now, pulls)
        self.conversation.append(comment)
        self.issue_comments[comment.id] = body
        return comment

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def to_json(self, api: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "node_id": f"R_{self.id}",
            "name": self.name,
            "full_name": self.full_name,
            "private": True,
            "owner": user_json(api, self.owner),
            "html_url": f"{HTML_BASE}/{self.full_name}",
            "url": f"{api}/repos/{self.full_name}",
            "clone_url": self.clone_url or f"{HTML_BASE}/{self.full_name}.git",
            "default_branch": "main",
            "archived": False,
        }

    def add_file(self, ref: str, path: str, content: bytes) -> str:
        """Store ``path`` at ``ref`` (a commit sha or branch); returns its blob sha."""
        sha = self.add_blob(content)
        self.files[(ref, path)] = sha
        return sha

    def add_blob(self, content: bytes) -> str:
        sha = git_blob_sha(content)
        self.blobs[sha] = content
        return sha

    def add_issue(self, number: int, *, title: str, body: str | None, pull: bool = False) -> None:
        self.issues[number] = {"title": title, "body": body, "pull": pull}

    def add_issue_comment(self, comment_id: int, body: str) -> None:
        self.issue_comments[comment_id] = body

    def add_review(self, number: int, review_id: int, body: str) -> None:
        self.reviews[(number, review_id)] = body

    def add_review_comment(self, comment_id: int, body: str) -> None:
        self.review_comments[comment_id] = body

    def add_alert(
        self,
        *,
        secret: str,
        secret_type: str = "github_personal_access_token",
        display_name: str | None = None,
        locations: list[Loc] | None = None,
        validity: str = "unknown",
        state: str = "open",
        resolution: str | None = None,
        created_at: datetime | None = None,
        updated_at: datetime | None = None,
        publicly_leaked: bool = False,
        multi_repo: bool = False,
    ) -> FakeAlert:
        number = len(self.alerts) + 1
        created = created_at or EPOCH + timedelta(minutes=number)
        alert = FakeAlert(
            repo=self,
            number=number,
            secret=secret,
            secret_type=secret_type,
            secret_type_display_name=display_name or secret_type.replace("_", " ").title(),
            validity=validity,
            state=state,
            created_at=created,
            updated_at=updated_at or created,
            locations=list(locations or []),
            resolution=resolution,
            resolved_at=created if state == "resolved" else None,
            resolved_by="octocat" if state == "resolved" else None,
            publicly_leaked=publicly_leaked,
            multi_repo=multi_repo,
        )
        self.alerts[number] = alert
        return alert


@dataclass
class FakeApp:
    app_id: int
    public_key_pem: bytes
    installations: dict[str, int]  # owner login -> installation id


@dataclass
class GitHubWorld:
    """Everything the fake API knows. Mutate it from tests; the server reads it live."""

    repos: dict[str, FakeRepo] = field(default_factory=dict)
    orgs: set[str] = field(default_factory=set)
    tokens: dict[str, str] = field(default_factory=dict)  # token -> login
    read_only_tokens: set[str] = field(default_factory=set)
    no_contents_tokens: set[str] = field(default_factory=set)  # git over HTTP refuses them
    apps: dict[int, FakeApp] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def add_token(
        self, token: str, *, login: str = "thresher-bot", write: bool = True, contents: bool = True
    ) -> None:
        self.tokens[token] = login
        if not write:
            self.read_only_tokens.add(token)
        if not contents:
            self.no_contents_tokens.add(token)

    def add_repo(self, full_name: str, *, user_owned: bool = False) -> FakeRepo:
        owner, _, name = full_name.partition("/")
        repo = FakeRepo(world=self, owner=owner, name=name, id=1000 + len(self.repos))
        self.repos[full_name] = repo
        if not user_owned:
            self.orgs.add(owner)
        return repo

    def add_app(self, app_id: int, public_key_pem: bytes, installations: dict[str, int]) -> FakeApp:
        app = FakeApp(app_id, public_key_pem, dict(installations))
        self.apps[app_id] = app
        return app

    def org_repos(self, org: str) -> list[FakeRepo]:
        return [repo for repo in self.repos.values() if repo.owner == org]
