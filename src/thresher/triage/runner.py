"""The triage use case: GitHub secret-scanning alerts -> decisions -> (applied) resolutions.

``thresher triage`` lists the alerts of some repositories (or of an organisation,
optionally one shard of it), decides each one with the same scorer and tribunal as
``thresher scan``, and with ``--apply`` resolves the ones the policy allows
(``triage.policy``). Everything that must survive a killed run goes to the state
store as it happens: each decision when it is made, each alert once it is finished,
each resolution applied. A re-run of the same job (same targets, filters, shard and
mode: a dry run and an ``--apply`` run are two jobs) continues where the last one
stopped and decides no (value, context) twice. One run at a time holds the state store
(``runlock``), and every resolution goes intent, last look, PATCH, settle (``apply``),
so a kill or a person acting mid-run never makes a resolution happen twice or over a
person's answer.

The alerts' raw values live in the run's vaults and redactor only: the state store,
the report, the resolution comments and every log see redacted text.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from thresher import __version__
from thresher.config.settings import Settings
from thresher.errors import ExitCode
from thresher.git.history import DEFAULT_HISTORY_DEPTH
from thresher.github.client import AppCredentials, GitHubClient
from thresher.github.errors import GitHubError, GitHubRateLimited
from thresher.github.models import Alert, AlertFilters
from thresher.github.retry import RetryPolicy
from thresher.redaction.redactor import Redactor
from thresher.scoring.model import Scorer
from thresher.scoring.policy import Escalate
from thresher.triage.apply import Applier
from thresher.triage.clone import Clones
from thresher.triage.decide import AlertDecider, ContextKey, DeciderOptions
from thresher.triage.gather import Gathered, gather
from thresher.triage.policy import ActionKind, Hold, hold_action, plan
from thresher.triage.report import AlertOutcome, TriageFilters, TriageReport, job_key
from thresher.triage.runlock import Holder, hold_state
from thresher.triage.shard import ShardSpec
from thresher.triage.state import DEFAULT_STATE_PATH, StateStore
from thresher.tribunal.decisions import Decision, DecisionError

DEFAULT_MIN_CONFIDENCE = 8.0  # of 10: a resolution needs a confident decision
DEFAULT_BATCH = 50  # alerts of one repository gathered and decided together
DEFAULT_MAX_RATE_WAIT_S = 60.0  # a longer rate-limit wait stops the run (state kept)


@dataclass(frozen=True)
class TriageRequest:
    repos: tuple[str, ...] = ()
    org: str | None = None
    filters: TriageFilters = field(default_factory=TriageFilters)
    api_url: str = "https://api.github.com"
    app: AppCredentials | None = None
    apply: bool = False
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    max_apply: int | None = None
    state_path: Path = DEFAULT_STATE_PATH
    shard: ShardSpec | None = None
    escalate: Escalate = Escalate.UNCERTAIN
    concurrency: int = 4
    runs_dir: Path = Path(".thresher/runs")
    batch: int = DEFAULT_BATCH
    clone: bool = False  # --clone: each repository's history, from a partial clone
    history_depth: int = DEFAULT_HISTORY_DEPTH
    max_rate_wait_s: float = DEFAULT_MAX_RATE_WAIT_S
    wait_s: float = 0.0  # --wait: how long to wait for another run holding the state

    @property
    def targets(self) -> tuple[str, ...]:
        return (f"org:{self.org}",) if self.org else self.repos

    @property
    def job(self) -> str:
        """The state store's key for this job; the API host and the mode are part of
        what it is (an ``--apply`` run never resumes a dry run's checkpoint)."""
        shard = str(self.shard) if self.shard else None
        targets = (*self.targets, f"api:{self.api_url}")
        return job_key(targets, self.filters, shard, apply=self.apply)


@dataclass
class TriageOutcome:
    report: TriageReport
    exit_code: ExitCode
    run_dir: Path


def run_triage(
    request: TriageRequest,
    settings: Settings,
    *,
    environ: Mapping[str, str],
    client: GitHubClient | None = None,
    on_alert: Callable[[AlertOutcome], None] | None = None,
    on_wait: Callable[[Holder | None], None] | None = None,
    scorer: Scorer | None = None,
) -> TriageOutcome:
    """Triage every alert of the request's targets (see the module docstring).

    The run holds its state database from start to end (``runlock``): another run on
    it makes this one wait up to ``request.wait_s`` (``on_wait`` is told), then raise
    ``StateBusy`` (exit code 4) before it has read or changed anything."""
    started_at = datetime.now(UTC)
    run_id = started_at.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    with hold_state(request.state_path, run_id=run_id, wait_s=request.wait_s, on_wait=on_wait):
        return _run(request, settings, started_at, run_id, environ, client, on_alert, scorer)


def _run(
    request: TriageRequest,
    settings: Settings,
    started_at: datetime,
    run_id: str,
    environ: Mapping[str, str],
    client: GitHubClient | None,
    on_alert: Callable[[AlertOutcome], None] | None,
    scorer: Scorer | None,
) -> TriageOutcome:
    run_dir = (
        request.runs_dir if request.runs_dir.is_absolute() else Path.cwd() / request.runs_dir
    ) / run_id
    owned = client is None
    github = client or GitHubClient.from_environ(
        environ,
        api_url=request.api_url,
        app=request.app,
        owner=_owner(request),
        policy=RetryPolicy(max_wait_s=request.max_rate_wait_s),
    )
    errors: list[DecisionError] = []
    stopped: str | None = None
    stop_code = ExitCode.RUNTIME
    # A client made here is closed here; one passed in belongs to the caller.
    with github if owned else nullcontext(), StateStore.open(request.state_path) as store:
        checkpoint = store.begin_run(request.job, run_id, ",".join(request.targets))
        outcomes = [AlertOutcome.model_validate_json(text) for text in checkpoint.done.values()]
        applier = Applier(github, store, request.job, run_id)
        options = DeciderOptions(request.escalate, request.concurrency)
        with AlertDecider(settings, options, run_dir, environ, scorer=scorer) as decider:
            clones = _clones(request, github, decider, environ)
            try:
                # What an interrupted --apply run of this job was doing comes first:
                # read back from GitHub, and done before anything is listed.
                settled = applier.settle_pending() if request.apply else []
                keys = {(o.repo, o.number) for o in settled}
                # A settled alert's outcome replaces any the checkpoint held for it,
                # so each alert is reported once whatever the store held.
                outcomes = [o for o in outcomes if (o.repo, o.number) not in keys]
                for outcome in settled:
                    outcomes.append(outcome)
                    if on_alert is not None:
                        on_alert(outcome)
                done = set(checkpoint.done) | keys
                applied = sum(1 for o in outcomes if o.applied)
                for repo, alerts in _batches(github, request, done):
                    while alerts:
                        batch = gather(github, repo, alerts, decider)
                        candidates = [i.candidate for i in batch.items if i.candidate]
                        history = clones.for_batch(repo) if clones else None
                        decisions = decider.decide(
                            batch.root.root, candidates, store, run_id, history
                        )
                        for item in batch.items:
                            if history is not None:
                                item = history.mark(item)
                            if item.candidate is not None:
                                store.record_alert(
                                    item.alert.repo,
                                    item.alert.number,
                                    *item.candidate.key,
                                    item.alert.state,
                                    item.alert.updated_at,
                                    run_id,
                                )
                            outcome = _act(
                                applier,
                                store,
                                request,
                                item,
                                _decision_of(item, decisions),
                                applied,
                                decider.redactor,
                            )
                            applied += int(outcome.applied)
                            outcomes.append(outcome)
                            # (an applied or held resolution is already checkpointed,
                            # with its audit row: this writes the same outcome again)
                            store.mark_done(
                                request.job,
                                item.alert.repo,
                                item.alert.number,
                                outcome.model_dump_json(),
                            )
                            if on_alert is not None:
                                on_alert(outcome)
                        alerts = batch.deferred
                store.finish_run(request.job)
            except GitHubRateLimited as exc:
                reset = f" after {exc.reset_at:%Y-%m-%d %H:%M:%S} UTC" if exc.reset_at else " later"
                stopped = (
                    f"GitHub's rate limit stopped the run ({exc}); {len(outcomes)} alert(s) "
                    f"are saved: run the same command again{reset} to continue "
                    "(--max-rate-wait sets how long a run waits instead)"
                )
            except GitHubError as exc:
                # A refused token or a missing permission is the user's to fix (exit 2);
                # anything else may pass: re-running continues.
                stop_code = exc.exit_code
                fix = f" ({exc.hint}); fix that, then" if exc.hint else ";"
                stopped = f"GitHub: {exc}{fix} run the same command again to continue"
                errors.append(
                    DecisionError(stage="github", error=type(exc).__name__, message=str(exc))
                )
        report = TriageReport.build(
            tool_version=__version__,
            run_id=run_id,
            started_at=started_at,
            finished_at=datetime.now(UTC),
            dry_run=not request.apply,
            targets=request.targets,
            alerts=outcomes,
            filters=request.filters,
            shard=str(request.shard) if request.shard else None,
            errors=errors,
            stopped=stopped,
            histories=sorted(clones.summaries.values(), key=lambda h: h.repo) if clones else (),
        )
        # Every value any batch brought is known now: one value can sit in another
        # alert's evidence, fetched before its own alert was listed.
        report = decider.redactor.model(report)
    failed = stopped is not None or bool(errors) or any(o.error for o in outcomes)
    code = stop_code if stop_code is ExitCode.USAGE else ExitCode.RUNTIME
    return TriageOutcome(report, code if failed else ExitCode.OK, run_dir)


def _clones(
    request: TriageRequest, github: GitHubClient, decider: AlertDecider, environ: Mapping[str, str]
) -> Clones | None:
    """``--clone``: the run's clones, in the decider's private evidence directory
    (none with ``--history-depth 0``: nothing of the history would be read)."""
    if not request.clone or request.history_depth <= 0:
        return None
    return Clones(
        decider.evidence.root / "clones",
        url_of=github.clone_url,
        token=github.git_token,
        environ=environ,
        depth=request.history_depth,
    )


def _decision_of(item: Gathered, decisions: Mapping[ContextKey, Decision]) -> Decision | None:
    """The decision of the alert's (value, context), about this alert's own finding."""
    if item.candidate is None:
        return None
    decision = decisions.get(item.candidate.key)
    if decision is None:
        return None
    return decision.model_copy(update={"finding": item.candidate.finding})


def client_filters(filters: TriageFilters) -> AlertFilters:
    """The API's filters: one state or all of them (the report keeps the list)."""
    states = set(filters.states)
    return AlertFilters(
        state=next(iter(states)) if len(states) == 1 else None,
        secret_types=filters.secret_types,
        validities=filters.validities,
        since=filters.since,
    )


def _owner(request: TriageRequest) -> str | None:
    if request.org:
        return request.org
    return request.repos[0].split("/")[0] if request.repos else None


def _listed(github: GitHubClient, request: TriageRequest) -> Iterable[Alert]:
    filters = client_filters(request.filters)
    if request.org:
        yield from github.org_alerts(request.org, filters)
        return
    for repo in request.repos:
        yield from github.repo_alerts(repo, filters)


def _batches(
    github: GitHubClient, request: TriageRequest, done: set[tuple[str, int]]
) -> Iterator[tuple[str, list[Alert]]]:
    """Alerts not finished by an earlier run of the job, one repository per batch.

    A dry run works while it lists. ``--apply`` lists everything first: resolving an
    alert takes it out of an open-alert listing, so the pages after it would start
    further on and skip as many alerts as were resolved before they were fetched."""
    pending: dict[str, list[Alert]] = {}
    listed = _listed(github, request)
    for alert in list(listed) if request.apply else listed:
        if request.shard is not None and not request.shard.owns(alert.repo):
            continue
        if (alert.repo, alert.number) in done:
            continue
        group = pending.setdefault(alert.repo, [])
        group.append(alert)
        if len(group) >= request.batch:
            yield alert.repo, pending.pop(alert.repo)
    yield from pending.items()


def _act(
    applier: Applier,
    store: StateStore,
    request: TriageRequest,
    item: Gathered,
    decision: Decision | None,
    applied_so_far: int,
    redactor: Redactor,
) -> AlertOutcome:
    alert = item.alert
    if decision is None:
        action = hold_action(Hold.INCONCLUSIVE, f"not decided: {item.error or 'no value'}")
    else:
        remaining = None if request.max_apply is None else request.max_apply - applied_so_far
        action = plan(
            decision,
            alert_state=alert.state,
            validity=alert.validity,
            applied=store.applied_for(alert.repo, alert.number),
            min_confidence=request.min_confidence,
            remaining=remaining,
            run_ref=applier.run_id,
            redactor=redactor,
        )
    outcome = AlertOutcome(
        repo=alert.repo,
        number=alert.number,
        html_url=alert.html_url,
        secret_type=alert.secret_type,
        validity=alert.validity,
        state_before=alert.state,
        decision=decision,
        action=action,
        error=item.error,
    )
    if not request.apply or action.kind is not ActionKind.RESOLVE:
        return outcome
    if action.resolution is None or action.comment is None:  # plan() always sets both
        return outcome.model_copy(update={"error": "resolution without a comment: not applied"})
    return applier.resolve(alert, outcome)
