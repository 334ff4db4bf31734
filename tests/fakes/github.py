"""A loopback fake of the GitHub REST API for secret-scanning triage.

``GitHubFake`` is a real HTTP server (see :mod:`tests.fakes.base`) answering from a
:class:`~tests.fakes.github_world.GitHubWorld` in GitHub's real shapes: alert listings
for a repository and an organisation with ``per_page``/``page`` and ``Link`` headers,
one alert, its locations (paginated), PATCH with GitHub's 422s, contents (inline up to
1 MB, ``encoding: none`` above) and blobs, issue and pull-request text, conversation
comments (list, create, update: see :mod:`tests.fakes.github_comments`), org repositories,
GitHub App installations and the installation-token exchange (RS256 JWT verified with the
app's public key), and git's smart HTTP for a repository with a ``git_dir``. Every
request is captured. ``fault()`` scripts rate limits and 5xx::

    with GitHubFake(world) as server:
        server.fault(r"/secret-scanning/alerts$", "primary", times=1, reset_in=2)
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal
from urllib.parse import unquote

import jwt

from tests.fakes import github_comments as comments
from tests.fakes import github_replies as replies
from tests.fakes.base import CapturedRequest, FakeServer, Reply
from tests.fakes.github_git import GIT_ROUTE, check_git, serve_git
from tests.fakes.github_replies import error, validation_failed
from tests.fakes.github_world import HTML_BASE, FakeAlert, FakeRepo, GitHubWorld, b64_lines

STATES = ("open", "resolved")
RESOLUTIONS = (
    "false_positive",
    "wont_fix",
    "revoked",
    "used_in_tests",
    "pattern_edited",
    "pattern_deleted",
)
VALIDITIES = ("active", "inactive", "unknown")
FaultKind = Literal["primary", "secondary", "secondary-no-wait", 500, 502, 503]

_NAME = r"[A-Za-z0-9._-]+"
_REPO = rf"/repos/(?P<owner>{_NAME})/(?P<repo>{_NAME})"


@dataclass(frozen=True)
class AppliedPatch:
    """One PATCH the fake applied to an alert (a refused one is not here): the
    GitHub-side audit a test reads to prove nothing was applied twice."""

    repo: str
    number: int
    state: str
    resolution: str | None
    comment: str | None
    login: str

    @property
    def key(self) -> str:
        return f"{self.repo}#{self.number}"


@dataclass
class _Fault:
    pattern: re.Pattern[str]
    make: Callable[[], Reply]
    remaining: int


class GitHubFake(FakeServer):
    provider: ClassVar[str] = "github"
    server_header: ClassVar[str] = "GitHub.com"

    def __init__(self, world: GitHubWorld | None = None, *, path_prefix: str = "") -> None:
        super().__init__()
        self.world = world or GitHubWorld()
        self.path_prefix = path_prefix.rstrip("/")
        self._faults: list[_Fault] = []
        self._fault_lock = threading.Lock()
        self._caller = threading.local()
        self.applied: list[AppliedPatch] = []  # every PATCH applied, in order
        self.responder = self._respond

    # -- scripting -------------------------------------------------------------------------

    def fault(
        self,
        route_pattern: str,
        kind: FaultKind,
        *,
        times: int = 1,
        reset_in: float = 2.0,
        retry_after: int = 1,
    ) -> None:
        """The next ``times`` requests whose route matches ``route_pattern`` (a regex,
        searched) fail with a primary or secondary rate limit, or a 5xx."""

        def make() -> Reply:
            if kind == "primary":
                return replies.primary_limited(reset_in)
            if kind in ("secondary", "secondary-no-wait"):
                return replies.secondary_limited(retry_after if kind == "secondary" else None)
            return replies.server_error(int(kind))

        with self._fault_lock:
            self._faults.append(_Fault(re.compile(route_pattern), make, times))

    @property
    def api_base(self) -> str:
        """The API root: ``base_url``, plus ``/api/v3`` when imitating GHES."""
        return self.base_url + self.path_prefix

    def path(self, request: CapturedRequest) -> str:
        """The request's route below the API root ("" if it is outside it)."""
        route = request.route
        if self.path_prefix and not route.startswith(self.path_prefix + "/"):
            return ""
        return route[len(self.path_prefix) :]

    def reset(self) -> None:
        """Forget requests, faults and applied PATCHes; keep the world and keep
        answering from it."""
        super().reset()
        with self._fault_lock:
            self._faults.clear()
        self.applied.clear()
        self.responder = self._respond

    def requests_to(self, pattern: str, method: str | None = None) -> list[CapturedRequest]:
        return [
            r
            for r in self.requests
            if re.search(pattern, self.path(r)) and (method is None or r.method == method)
        ]

    # -- checks ----------------------------------------------------------------------------

    def error_reply(self, status: int, message: str) -> Reply:
        return error(status, message)

    def check(self, request: CapturedRequest) -> Reply | None:
        if GIT_ROUTE.fullmatch(request.route):  # git over HTTP: Basic, as github.com wants
            with self.world.lock:
                return check_git(request, set(self.world.tokens) - self.world.no_contents_tokens)
        with self._fault_lock:
            for fault in self._faults:
                if fault.remaining > 0 and fault.pattern.search(self.path(request)):
                    fault.remaining -= 1
                    return fault.make()
        scheme, _, credential = (request.header("authorization") or "").partition(" ")
        credential = credential.strip()
        route = self.path(request)
        if route.startswith("/app/") or re.fullmatch(
            rf"(/orgs/{_NAME}|/users/{_NAME}|{_REPO})/installation", route
        ):
            return self._check_jwt(scheme, credential)
        if scheme.lower() not in {"token", "bearer"} or not credential:
            return error(401, "Requires authentication")
        with self.world.lock:
            if credential not in self.world.tokens:
                return error(401, "Bad credentials")
            if request.method != "GET" and credential in self.world.read_only_tokens:
                return error(403, "Resource not accessible by personal access token")
        return None

    def _check_jwt(self, scheme: str, credential: str) -> Reply | None:
        if scheme.lower() != "bearer":
            return error(401, "A JSON web token could not be decoded")
        try:
            claims = jwt.decode(credential, options={"verify_signature": False})
            app = self.world.apps.get(int(claims.get("iss", 0)))
            if app is None:
                return error(401, "Integration not found")
            jwt.decode(
                credential,
                app.public_key_pem,
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"]},
                leeway=60,
            )
        except (jwt.PyJWTError, ValueError):
            return error(401, "A JSON web token could not be decoded")
        self._caller.app_id = app.app_id  # the handler thread answers this request next
        return None

    # -- routing ---------------------------------------------------------------------------

    def _respond(self, request: CapturedRequest, index: int) -> Reply:
        if m := GIT_ROUTE.fullmatch(request.route):
            with self.world.lock:
                repo = self.world.repos.get(f"{m['owner']}/{m['name']}")
            return serve_git(request, repo.git_dir if repo else None, m["rest"])
        with self.world.lock:
            reply = self._route(request)
        return reply.with_headers(
            {
                "x-ratelimit-limit": "5000",
                "x-ratelimit-remaining": "4999",
                "x-ratelimit-reset": str(int(time.time()) + 3600),
                "x-ratelimit-resource": "core",
                **dict(reply.headers),
            }
        )

    def _route(self, request: CapturedRequest) -> Reply:
        route, method, api = self.path(request), request.method, self.api_base
        m = re.fullmatch(rf"{_REPO}(?P<rest>/.*)?", route)
        if m:
            repo = self.world.repos.get(f"{m['owner']}/{m['repo']}")
            rest = m["rest"] or ""
            if repo is None:
                return error(404, "Not Found")
            return self._repo_route(request, repo, rest)
        if m := re.fullmatch(rf"/orgs/(?P<org>{_NAME})/secret-scanning/alerts", route):
            if m["org"] not in self.world.orgs or method != "GET":
                return error(404, "Not Found")
            alerts = [a for r in self.world.org_repos(m["org"]) for a in r.alerts.values()]
            return self._alert_list(request, alerts, with_repository=True)
        if m := re.fullmatch(rf"/orgs/(?P<org>{_NAME})/repos", route):
            if m["org"] not in self.world.orgs:
                return error(404, "Not Found")
            repos = [r.to_json(api) for r in self.world.org_repos(m["org"])]
            return self._page(request, repos)
        if m := re.fullmatch(rf"/orgs/(?P<org>{_NAME})", route):
            if m["org"] not in self.world.orgs:
                return error(404, "Not Found")
            return Reply.json_(200, {"login": m["org"], "id": 1, "url": f"{api}/orgs/{m['org']}"})
        if m := re.fullmatch(rf"/(?P<kind>orgs|users)/(?P<owner>{_NAME})/installation", route):
            is_org = m["owner"] in self.world.orgs
            if is_org != (m["kind"] == "orgs"):
                return error(404, "Not Found")
            return self._installation(m["owner"], "Organization" if is_org else "User")
        if m := re.fullmatch(r"/app/installations/(?P<id>\d+)/access_tokens", route):
            return self._access_token(int(m["id"])) if method == "POST" else error(404, "Not Found")
        return error(404, "Not Found")

    def _repo_route(self, request: CapturedRequest, repo: FakeRepo, rest: str) -> Reply:
        api, method = self.api_base, request.method
        if rest == "":
            return Reply.json_(200, repo.to_json(api))
        if rest == "/installation":
            return self._installation(repo.owner, "Organization")
        if rest == "/secret-scanning/alerts" and method == "GET":
            return self._alert_list(request, list(repo.alerts.values()), with_repository=False)
        if m := re.fullmatch(r"/secret-scanning/alerts/(\d+)(/locations)?", rest):
            alert = repo.alerts.get(int(m[1]))
            if alert is None:
                return error(404, "Not Found")
            if m[2] and method == "GET":
                items = [loc.to_json(api, repo.full_name) for loc in alert.locations]
                return self._page(request, items)
            if method == "GET":
                return Reply.json_(200, alert.to_json(api))
            if method == "PATCH":
                return self._patch(request, alert)
        if m := re.fullmatch(r"/contents/(.+)", rest):
            return self._contents(request, repo, unquote(m[1]))
        if m := re.fullmatch(r"/git/blobs/([0-9a-f]+)", rest):
            content = repo.blobs.get(m[1])
            if content is None:
                return error(404, "Not Found")
            return Reply.json_(
                200,
                {
                    "sha": m[1],
                    "node_id": f"B_{m[1][:8]}",
                    "size": len(content),
                    "url": f"{api}/repos/{repo.full_name}/git/blobs/{m[1]}",
                    "content": b64_lines(content),
                    "encoding": "base64",
                },
            )
        conversation = comments.route(
            request,
            repo,
            rest,
            api=api,
            base_url=self.base_url,
            login=self.world.tokens.get(self._credential(request), "thresher-bot"),
        )
        return conversation if conversation is not None else self._text(repo, rest)

    def _text(self, repo: FakeRepo, rest: str) -> Reply:
        api = f"{self.api_base}/repos/{repo.full_name}"
        if m := re.fullmatch(r"/(issues|pulls)/(\d+)", rest):
            issue = repo.issues.get(int(m[2]))
            if issue is None or (m[1] == "pulls") != issue["pull"]:
                return error(404, "Not Found")
            web = "pull" if issue["pull"] else "issues"
            return Reply.json_(
                200,
                {
                    "number": int(m[2]),
                    "title": issue["title"],
                    "body": issue["body"],
                    "url": f"{api}/{m[1]}/{m[2]}",
                    "state": "open",
                    "html_url": f"{HTML_BASE}/{repo.full_name}/{web}/{m[2]}",
                },
            )
        if m := re.fullmatch(r"/issues/comments/(\d+)", rest):
            body = repo.issue_comments.get(int(m[1]))
            return (
                error(404, "Not Found")
                if body is None
                else Reply.json_(
                    200, {"id": int(m[1]), "body": body, "url": f"{api}/issues/comments/{m[1]}"}
                )
            )
        if m := re.fullmatch(r"/pulls/(\d+)/reviews/(\d+)", rest):
            body = repo.reviews.get((int(m[1]), int(m[2])))
            return (
                error(404, "Not Found")
                if body is None
                else Reply.json_(200, {"id": int(m[2]), "body": body, "state": "COMMENTED"})
            )
        if m := re.fullmatch(r"/pulls/comments/(\d+)", rest):
            body = repo.review_comments.get(int(m[1]))
            return (
                error(404, "Not Found")
                if body is None
                else Reply.json_(
                    200, {"id": int(m[1]), "body": body, "url": f"{api}/pulls/comments/{m[1]}"}
                )
            )
        return error(404, "Not Found")

    # -- alerts ----------------------------------------------------------------------------

    def _alert_list(
        self, request: CapturedRequest, alerts: list[FakeAlert], *, with_repository: bool
    ) -> Reply:
        query = {k: v[-1] for k, v in request.query.items()}
        state = query.get("state")
        if state is not None and state not in STATES:
            return validation_failed(
                "state", f"state must be one of {', '.join(STATES)}", "invalid"
            )
        chosen = [a for a in alerts if state is None or a.state == state]
        for key, allowed in (
            ("secret_type", None),
            ("validity", VALIDITIES),
            ("resolution", RESOLUTIONS),
        ):
            if key in query:
                wanted = set(query[key].split(","))
                if allowed is not None and not wanted <= set(allowed):
                    return validation_failed(key, f"invalid {key}", "invalid")
                chosen = [a for a in chosen if getattr(a, key) in wanted]
        sort = query.get("sort", "created")
        if sort not in ("created", "updated") or query.get("direction", "desc") not in (
            "asc",
            "desc",
        ):
            return validation_failed("sort", "invalid sort or direction", "invalid")
        chosen.sort(
            key=lambda a: (
                a.updated_at if sort == "updated" else a.created_at,
                a.repo.id,
                a.number,
            ),
            reverse=query.get("direction", "desc") == "desc",
        )
        items = [a.to_json(self.api_base, with_repository=with_repository) for a in chosen]
        return self._page(request, items)

    def _patch(self, request: CapturedRequest, alert: FakeAlert) -> Reply:
        try:
            body = request.json()
        except ValueError:
            return error(400, "Problems parsing JSON")
        if not isinstance(body, dict):
            return error(400, "Problems parsing JSON")
        state = body.get("state")
        if state not in STATES:
            return validation_failed(
                "state", f"state must be one of {', '.join(STATES)}", "invalid"
            )
        comment = body.get("resolution_comment")
        if comment is not None and (not isinstance(comment, str) or len(comment) > 270):
            return validation_failed(
                "resolution_comment", "resolution_comment is too long (maximum is 270 characters)"
            )
        login = self.world.tokens.get(self._credential(request), "thresher-bot")
        if state == "resolved":
            resolution = body.get("resolution")
            if resolution not in RESOLUTIONS:
                return validation_failed("resolution", "resolution is not a valid value", "invalid")
            if alert.state == "resolved" and alert.resolution == resolution:
                # What GitHub answers a PATCH that repeats an alert's resolution (seen
                # when a killed run's resume replayed one): refused, nothing changes.
                return validation_failed(
                    "resolution", "the alert is already resolved with this resolution"
                )
            alert.resolve(resolution, comment, by=login)
        else:
            if comment is not None:
                return validation_failed("resolution_comment", "must be null when reopening")
            alert.reopen()
        self.applied.append(
            AppliedPatch(
                alert.repo.full_name,
                alert.number,
                alert.state,
                alert.resolution,
                alert.resolution_comment,
                login,
            )
        )
        return Reply.json_(200, alert.to_json(self.api_base))

    # -- contents, apps, pagination ----------------------------------------------------------

    def _contents(self, request: CapturedRequest, repo: FakeRepo, path: str) -> Reply:
        ref = request.query.get("ref", ["main"])[-1]
        return replies.contents(self.api_base, repo, ref, path)

    def _installation(self, owner: str, target_type: str) -> Reply:
        app = self.world.apps.get(getattr(self._caller, "app_id", 0))
        if app is None or owner not in app.installations:
            return error(404, "Not Found")
        return replies.installation(self.api_base, app, owner, target_type)

    def _access_token(self, installation_id: int) -> Reply:
        app = self.world.apps.get(getattr(self._caller, "app_id", 0))
        if app is None or installation_id not in app.installations.values():
            return error(404, "Not Found")
        token = "ghs_" + secrets.token_hex(18)
        self.world.add_token(token, login=f"app-{app.app_id}[bot]")
        return replies.access_token(token)

    def _page(self, request: CapturedRequest, items: list[Any]) -> Reply:
        return replies.page(request, items, self.base_url)

    @staticmethod
    def _credential(request: CapturedRequest) -> str:
        return (request.header("authorization") or "").partition(" ")[2].strip()


def captured_text(server: GitHubFake) -> str:
    """Every captured request (method, path, headers, body) as one string to search."""
    return "\n".join(
        f"{r.method} {r.path} {json.dumps(r.headers)} {r.body.decode('utf-8', 'replace')}"
        for r in server.requests
    )
