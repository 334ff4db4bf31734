"""A larger organisation for triage tests and the throughput benchmark, and a gate that
stops the run at a known point (the first locations request of the Nth repository).

``populate`` gives every repository the same shape, with several distinct values and
contexts, so that "decided once per (value, context)" has something to prove:

* alerts 1 and 2: a broken-checksum token vendored at the same path with the same line in
  every repository: one value, one context, decided once for the whole organisation;
* alert 3: one live-format token shared by every repository, but each in its own
  bootstrap script (its own path): one value, a context per repository;
* the rest, a value of its own each, in turn: a test fixture (broken checksum), a config
  file GitHub rates ``active``, and an issue comment.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from tests.fakes.base import CapturedRequest, Reply
from tests.fakes.github import GitHubFake
from tests.fakes.github_world import GitHubWorld, Loc
from tests.tokens import github_token

COMMIT = "b0a710ad" + "0" * 32
SHARED_FIXTURES = 2  # alerts 1..2 of every repository: one context across the org
_LOCATIONS = re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/secret-scanning/alerts/\d+/locations$")


@dataclass
class OrgPlan:
    """What ``populate`` built: every alert, every raw value, and how many distinct
    (value, context) pairs a correct triage decides."""

    org: str
    repos: list[str]
    alerts: set[str] = field(default_factory=set)  # "owner/name#number"
    values: set[str] = field(default_factory=set)
    contexts: int = 0


def populate(
    world: GitHubWorld, *, org: str = "acme", repos: int = 4, per_repo: int = 10
) -> OrgPlan:
    if per_repo < SHARED_FIXTURES + 1:
        raise ValueError("per_repo must leave room for the shared alerts")
    names = [f"{org}/svc-{i:02d}" for i in range(repos)]
    plan = OrgPlan(org, names)
    fixtures = [github_token(seed=9000 + j, valid_checksum=False) for j in range(SHARED_FIXTURES)]
    shared = github_token(seed=9100)
    plan.values.update((*fixtures, shared))
    plan.contexts = SHARED_FIXTURES + repos + repos * (per_repo - SHARED_FIXTURES - 1)
    for i, name in enumerate(names):
        repo = world.add_repo(name)
        for j, value in enumerate(fixtures):
            path = f"vendor/fixtures/tokens_{j}.py"
            sha = repo.add_file(COMMIT, path, f'"""Vendored."""\nTOKEN = "{value}"\n'.encode())
            repo.add_alert(secret=value, locations=[Loc.commit(path, COMMIT, sha, line=2)])
        script = f"scripts/bootstrap_{i}.sh"
        body = f"#!/bin/sh\nexport GH_TOKEN={shared}\n./setup --repo {name}\n".encode()
        sha = repo.add_file(COMMIT, script, body)
        repo.add_alert(secret=shared, locations=[Loc.commit(script, COMMIT, sha, line=2)])
        for j in range(SHARED_FIXTURES + 1, per_repo):
            seed = 10_000 + i * 1000 + j
            kind = j % 3
            value = github_token(seed=seed, valid_checksum=kind != 0)
            plan.values.add(value)
            if kind == 0:
                path = f"tests/fixtures/client_{j}.py"
                content = f'"""Fixtures."""\n\nFAKE_TOKEN = "{value}"\n'
                sha = repo.add_file(COMMIT, path, content.encode())
                repo.add_alert(secret=value, locations=[Loc.commit(path, COMMIT, sha, line=3)])
            elif kind == 1:
                path = f"config/prod_{j}.py"
                content = f'import os\n\nAPI_TOKEN = "{value}"\nconnect(API_TOKEN)\n'
                sha = repo.add_file(COMMIT, path, content.encode())
                repo.add_alert(
                    secret=value,
                    validity="active",
                    locations=[Loc.commit(path, COMMIT, sha, line=3)],
                )
            else:
                comment = i * 1000 + j
                repo.add_issue(j, title=f"Deploy {j} fails", body="see the comment")
                repo.add_issue_comment(comment, f"This token does not work:\n{value}\nhelp?")
                repo.add_alert(
                    secret=value, locations=[Loc.text("issue_comment", number=j, item_id=comment)]
                )
        plan.alerts.update(f"{name}#{n}" for n in repo.alerts)
    return plan


class RepoGate:
    """Holds up the run at the first locations request of the ``nth`` repository whose
    alerts are gathered: a run gathers and decides one repository at a time, so at that
    moment exactly the first ``nth - 1`` repositories are finished, whatever order the
    listing gave. ``reply`` answers that request once instead (a rate limit); without
    it the request waits until ``release()`` (so the client can be killed meanwhile)."""

    def __init__(self, server: GitHubFake, nth: int, reply: Callable[[], Reply] | None = None):
        self.server = server
        self.nth = nth
        self.reply = reply
        self.arrived = threading.Event()
        self.released = threading.Event()
        self.repos: list[str] = []
        self._lock = threading.Lock()
        self._inner = server.responder
        self._fired = False
        server.responder = self._respond

    def _respond(self, request: CapturedRequest, index: int) -> Reply:
        match = _LOCATIONS.match(self.server.path(request))
        fire = False
        if match is not None:
            with self._lock:
                if match["repo"] not in self.repos:
                    self.repos.append(match["repo"])
                fire = not self._fired and len(self.repos) == self.nth
                self._fired = self._fired or fire
        if fire:
            self.arrived.set()
            if self.reply is not None:
                return self.reply()
            self.released.wait(timeout=120)
        assert self._inner is not None
        return self._inner(request, index)

    def release(self) -> None:
        self.released.set()

    @property
    def finished_before(self) -> list[str]:
        """The repositories the run had finished when the gate fired."""
        return self.repos[: self.nth - 1]


def done_alerts(state_db: Path) -> set[str]:
    """Alerts the state store has marked done for an unfinished job (any job)."""
    with closing(sqlite3.connect(f"file:{state_db}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT repo, number FROM run_done").fetchall()
    return {f"{repo}#{number}" for repo, number in rows}


def alert_contexts(state_db: Path) -> dict[str, tuple[str, str]]:
    """Each alert seen -> its (fingerprint, context key), as the state store recorded."""
    with closing(sqlite3.connect(f"file:{state_db}?mode=ro", uri=True)) as db:
        rows = db.execute("SELECT repo, number, fingerprint, context_key FROM alerts").fetchall()
    return {f"{repo}#{number}": (fp, ctx) for repo, number, fp, ctx in rows}


def journal_alerts(runs_dir: Path) -> list[str]:
    """The alert (repo#number) of every decision in every run's decisions journal."""
    import json

    found: list[str] = []
    for path in sorted(runs_dir.glob("*/decisions.jsonl")):
        for line in path.read_text().splitlines():
            source = json.loads(line)["finding"]["source"]
            found.append(f"{source['repo']}#{source['number']}")
    return found
