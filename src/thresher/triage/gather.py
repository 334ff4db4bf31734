"""From GitHub alerts to findings the tribunal can decide, with their evidence.

For each alert: its locations (all pages), then the evidence of the first one, fetched
lazily: the file at the alert's commit (contents API, blobs beyond 1 MB), or the text
of the issue or pull-request comment that holds the value. The value goes to the
decider's redactor the moment it arrives, before anything derived from the alert is
written anywhere.

The (value, context) key decides what is decided once: the same value on the same
kind of line at the same path in several repositories (a vendored fixture, a
template) is one decision; the same value in a test in one place and in a deployment
script in another is two.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import assert_never

from thresher.findings import FindingKind, GitHubAlertSource, Location, Severity
from thresher.findings.model import FindingLocation, WikiLocation
from thresher.findings.model import TextLocation as FindingTextLocation
from thresher.github.client import GitHubClient
from thresher.github.errors import GitHubError, GitHubRateLimited
from thresher.github.models import (
    Alert,
    AlertLocation,
    CommitLocation,
    TextLocation,
    WikiCommitLocation,
)
from thresher.sources import Sourced, dedupe
from thresher.triage.decide import AlertDecider, Candidate
from thresher.triage.evidence import EvidenceError, EvidenceRoot

_MASK = "\x00VALUE\x00"


@dataclass(frozen=True)
class Gathered:
    """One alert and what triage learnt about it (``candidate`` None: nothing to decide)."""

    alert: Alert
    candidate: Candidate | None
    error: str | None = None


@dataclass
class Batch:
    """Alerts of one repository whose evidence shares one workspace root."""

    repo: str
    root: EvidenceRoot
    items: list[Gathered] = field(default_factory=list)
    deferred: list[Alert] = field(default_factory=list)  # need another version of a path


def gather(github: GitHubClient, repo: str, alerts: list[Alert], decider: AlertDecider) -> Batch:
    """Locations, evidence and findings of ``alerts``; see ``Batch.deferred``."""
    for alert in alerts:
        if alert.secret:
            decider.remember(alert.secret)
    batch = Batch(repo, decider.evidence.batch(repo))
    for alert in alerts:
        item = _one(github, alert, batch.root)
        if item is None:
            batch.deferred.append(alert)
        else:
            batch.items.append(item)
    return batch


def _one(github: GitHubClient, alert: Alert, root: EvidenceRoot) -> Gathered | None:
    value = alert.secret
    if not value:
        return Gathered(alert, None, "GitHub sent no secret value (does the token see it?)")
    try:
        listed = github.locations(alert)
    except GitHubRateLimited:
        raise
    except GitHubError as exc:
        return Gathered(alert, None, f"its locations could not be read: {exc}")
    if not listed:
        return Gathered(alert, None, "GitHub lists no location for it")
    first = listed[0]
    if isinstance(first, CommitLocation) and root.holds(first.path, first.commit_sha) is False:
        return None  # this batch holds another version of the file: the next one
    error: str | None = None
    try:
        line = _evidence(github, alert, first, root)
    except GitHubRateLimited:
        raise
    except (GitHubError, EvidenceError) as exc:
        line, error = "", f"its evidence could not be read, decided from the alert: {exc}"
    locations = tuple(_location(where) for where in listed)
    sourced = Sourced(
        kind=FindingKind.SECRET,
        rule_id=alert.secret_type,
        severity=Severity.HIGH,
        locations=locations,
        source=GitHubAlertSource(
            repo=alert.repo,
            number=alert.number,
            url=alert.html_url,
            state=alert.state,
            resolution=alert.resolution,
            validity=alert.validity,
        ),
        value=value,
    )
    finding = dedupe([sourced]).findings[0]
    key = (finding.fingerprint, context_key(alert.secret_type, locations[0], line, value))
    return Gathered(alert, Candidate(key, finding, value, line), error)


def context_key(secret_type: str, where: FindingLocation, line: str, value: str) -> str:
    """What makes two sightings of one value the same question (see the module docstring):
    the secret type, the repository path (or the kind of text), and the line around it."""
    place = where.type.value if isinstance(where, FindingTextLocation) else where.path
    material = "\x1f".join((secret_type, place, line.replace(value, _MASK).strip()))
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _evidence(github: GitHubClient, alert: Alert, where: AlertLocation, root: EvidenceRoot) -> str:
    """The line holding the value; its file or text written where the workspace reads it
    (a file at its path, text under its address)."""
    if isinstance(where, CommitLocation):
        if root.holds(where.path, where.commit_sha) is None:
            root.add(
                where.path,
                where.commit_sha,
                github.file_at(alert.repo, where.path, where.commit_sha),
            )
        lines = root.lines(where.path)
        return lines[where.start_line - 1] if 0 < where.start_line <= len(lines) else ""
    if isinstance(where, TextLocation):
        body = github.text_at(where)
        if body is None:
            return ""
        address = _location(where).path
        root.add(address, "text", body.encode("utf-8", "replace"))
        value = alert.secret or ""
        return next((text for text in body.splitlines() if value and value in text), "")
    return ""  # a wiki page: GitHub's REST API does not serve wiki contents


def _location(where: AlertLocation) -> FindingLocation:
    match where:
        case CommitLocation():
            return Location(
                path=where.path,
                line=max(1, where.start_line),
                commit=where.commit_sha,
                url=where.html_url or where.blob_url or None,
            )
        case WikiCommitLocation():
            return WikiLocation(
                path=where.path,
                line=max(1, where.start_line),
                commit=where.commit_sha,
                url=where.page_url or where.commit_url or f"wiki:{where.path}",
            )
        case TextLocation():
            return FindingTextLocation(type=where.type, url=where.url)
        case _:
            assert_never(where)
