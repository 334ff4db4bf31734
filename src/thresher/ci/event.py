"""The GitHub Actions runner environment and event payload, as frozen values.

``thresher ci`` reads only what GitHub documents for every job: ``GITHUB_EVENT_NAME``,
``GITHUB_EVENT_PATH``, ``GITHUB_REPOSITORY``, ``GITHUB_API_URL``, ``GITHUB_SHA``,
``GITHUB_WORKSPACE``, plus ``GITHUB_TOKEN`` (for the comment), ``GITHUB_STEP_SUMMARY``
and ``GITHUB_OUTPUT``. The payload is data from GitHub, but a pull request's title,
branch names and body are written by its author: only ids, shas and numbers are kept,
each checked for shape, so nothing the author typed reaches a git argv or a comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from thresher.errors import UsageError

ZERO_SHA = "0" * 40
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}")
_BRANCH = re.compile(r"[0-9A-Za-z_][0-9A-Za-z._/+-]{0,199}")
MAX_PAYLOAD_BYTES = 25 * 1024 * 1024  # GitHub caps webhook payloads at 25 MB
_RUNNER_HINT = (
    "thresher ci runs as a GitHub Actions step; outside Actions, use `thresher scan` "
    "(or set the runner variables yourself)"
)


class EventName(StrEnum):
    """The events ``thresher ci`` knows how to scope."""

    PULL_REQUEST = "pull_request"
    PULL_REQUEST_TARGET = "pull_request_target"
    PUSH = "push"
    WORKFLOW_DISPATCH = "workflow_dispatch"
    SCHEDULE = "schedule"

    @property
    def is_pull_request(self) -> bool:
        match self:
            case EventName.PULL_REQUEST | EventName.PULL_REQUEST_TARGET:
                return True
            case EventName.PUSH | EventName.WORKFLOW_DISPATCH | EventName.SCHEDULE:
                return False


@dataclass(frozen=True)
class PullRequest:
    number: int
    base_sha: str
    head_sha: str
    fork: bool  # the head lives in another repository: its token is read-only


@dataclass(frozen=True)
class Push:
    before: str
    after: str
    ref: str  # refs/heads/<branch> or refs/tags/<tag>
    default_branch: str | None
    forced: bool

    @property
    def created(self) -> bool:
        return self.before == ZERO_SHA

    @property
    def deleted(self) -> bool:
        return self.after == ZERO_SHA


@dataclass(frozen=True)
class RunnerEnv:
    """The runner variables ``thresher ci`` reads, checked."""

    event_name: EventName
    event_path: Path
    repository: str
    api_url: str
    sha: str
    workspace: Path
    token: str | None
    step_summary: Path | None
    output: Path | None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> RunnerEnv:
        name = _required(environ, "GITHUB_EVENT_NAME")
        try:
            event_name = EventName(name)
        except ValueError:
            raise UsageError(
                f"GITHUB_EVENT_NAME={name!r}: thresher ci does not support this event",
                hint="run it on " + ", ".join(e.value for e in EventName),
            ) from None
        repository = _required(environ, "GITHUB_REPOSITORY")
        if not _REPO.fullmatch(repository):
            raise UsageError(f"GITHUB_REPOSITORY={repository!r} is not owner/name")
        sha = _required(environ, "GITHUB_SHA")
        if not _SHA.fullmatch(sha):
            raise UsageError(f"GITHUB_SHA={sha!r} is not a commit id")
        workspace = Path(_required(environ, "GITHUB_WORKSPACE"))
        if not workspace.is_dir():
            raise UsageError(f"GITHUB_WORKSPACE={workspace} is not a directory")
        return cls(
            event_name=event_name,
            event_path=Path(_required(environ, "GITHUB_EVENT_PATH")),
            repository=repository,
            api_url=environ.get("GITHUB_API_URL", "").strip() or "https://api.github.com",
            sha=sha,
            workspace=workspace.resolve(),
            token=environ.get("GITHUB_TOKEN", "").strip() or None,
            step_summary=_optional_path(environ, "GITHUB_STEP_SUMMARY"),
            output=_optional_path(environ, "GITHUB_OUTPUT"),
        )


@dataclass(frozen=True)
class CiEvent:
    """What the event says to scan: a pull request, a push, or neither (whole tree)."""

    name: EventName
    pull_request: PullRequest | None = None
    push: Push | None = None


def read_event(runner: RunnerEnv) -> CiEvent:
    """The payload at ``GITHUB_EVENT_PATH``, reduced to what scoping needs."""
    payload = _load(runner.event_path)
    match runner.event_name:
        case EventName.PULL_REQUEST | EventName.PULL_REQUEST_TARGET:
            return CiEvent(runner.event_name, pull_request=_pull_request(payload, runner))
        case EventName.PUSH:
            return CiEvent(runner.event_name, push=_push(payload, runner))
        case EventName.WORKFLOW_DISPATCH | EventName.SCHEDULE:
            return CiEvent(runner.event_name)


def _pull_request(payload: Mapping[str, Any], runner: RunnerEnv) -> PullRequest:
    pr = _table(payload, "pull_request", runner.event_path)
    base = _table(pr, "base", runner.event_path, "pull_request.")
    head = _table(pr, "head", runner.event_path, "pull_request.")
    number = pr.get("number", payload.get("number"))
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise _bad(runner.event_path, "pull_request.number", "a positive integer")
    head_repo = head.get("repo")
    head_name = head_repo.get("full_name") if isinstance(head_repo, Mapping) else None
    # A deleted fork has no head repo: treat it as a fork (read-only token).
    fork = head_name != runner.repository
    return PullRequest(
        number=number,
        base_sha=_sha(base.get("sha"), runner.event_path, "pull_request.base.sha"),
        head_sha=_sha(head.get("sha"), runner.event_path, "pull_request.head.sha"),
        fork=fork,
    )


def _push(payload: Mapping[str, Any], runner: RunnerEnv) -> Push:
    after = payload.get("after", runner.sha)
    ref = payload.get("ref")
    if not isinstance(ref, str) or not ref.startswith("refs/"):
        raise _bad(runner.event_path, "ref", "a git ref (refs/heads/...)")
    repo = payload.get("repository")
    default = repo.get("default_branch") if isinstance(repo, Mapping) else None
    return Push(
        before=_sha(payload.get("before"), runner.event_path, "before"),
        after=_sha(after, runner.event_path, "after"),
        ref=ref,
        default_branch=default if isinstance(default, str) and _BRANCH.fullmatch(default) else None,
        forced=payload.get("forced") is True,
    )


def _load(path: Path) -> Mapping[str, Any]:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_PAYLOAD_BYTES + 1)
    except OSError as exc:
        raise UsageError(
            f"GITHUB_EVENT_PATH={path}: cannot read the event payload: {exc.strerror or exc}",
            hint=_RUNNER_HINT,
        ) from None
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise UsageError(f"GITHUB_EVENT_PATH={path}: the payload is over 25 MB")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"GITHUB_EVENT_PATH={path}: not JSON ({exc})") from None
    if not isinstance(data, Mapping):
        raise UsageError(f"GITHUB_EVENT_PATH={path}: the payload is not a JSON object")
    return data


def _table(data: Mapping[str, Any], key: str, path: Path, prefix: str = "") -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        raise _bad(path, prefix + key, "an object")
    return value


def _sha(value: object, path: Path, field: str) -> str:
    if not isinstance(value, str) or not _SHA.fullmatch(value):
        raise _bad(path, field, "a 40-character commit id")
    return value


def _bad(path: Path, field: str, wanted: str) -> UsageError:
    return UsageError(
        f"GITHUB_EVENT_PATH={path}: '{field}' is missing or not {wanted}",
        hint="the payload must be the event GitHub wrote for this job",
    )


def _required(environ: Mapping[str, str], name: str) -> str:
    value = environ.get(name, "").strip()
    if not value:
        raise UsageError(f"{name} is not set", hint=_RUNNER_HINT)
    return value


def _optional_path(environ: Mapping[str, str], name: str) -> Path | None:
    value = environ.get(name, "").strip()
    return Path(value) if value else None
