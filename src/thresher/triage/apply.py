"""Resolving one alert on GitHub so that kills, overlapping runs and people cannot make
thresher resolve something twice, resolve something a person changed, or report an
error for work that was done (issue 19 §2-3).

Every resolution goes the same way:

1. **intent**: "about to resolve alert N as R" is committed to the state store;
2. **last look**: the alert is read again (GET) and the change is decided on that
   read, never on the listing (``last_look``): open and as listed -> resolve; resolved
   already by thresher's own comment -> done; changed by anyone else -> held;
3. **PATCH**, then **settle**: the audit row, the intent's end and the alert's
   checkpoint in one transaction.

A run killed between 1 and 3 leaves the intent pending. The next run of the same job
settles its pending intents before it lists anything (``Applier.settle_pending``) by
the same last look: a PATCH that landed is recorded as applied (no second PATCH, no
error), one that did not is sent now, and an alert someone changed meanwhile is held
with the reason. A refused PATCH is read back too: GitHub answers 422 to a PATCH that
repeats the resolution an alert already has, and an alert that has the intended
resolution is success, whatever the status said.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from thresher.findings import AlertResolution, AlertState, AlertValidity
from thresher.github.client import GitHubClient
from thresher.github.errors import GitHubError, GitHubNotFound, GitHubRateLimited
from thresher.github.models import Alert
from thresher.triage.policy import Action, ActionKind, Hold, hold_action
from thresher.triage.records import AppliedRecord, Intent, IntentEnd
from thresher.triage.report import AlertOutcome
from thresher.triage.state import StateStore

__all__ = ["Applier", "Look", "LookKind", "last_look"]


class LookKind(StrEnum):
    APPLY = "apply"  # open and unchanged since it was listed: resolve it
    DONE = "done"  # resolved as intended, with thresher's own comment: its PATCH landed
    HELD = "held"  # someone else changed it since it was listed: not touched


@dataclass(frozen=True)
class Look:
    """What the last read of an alert allows; ``hold`` and ``detail`` when HELD."""

    kind: LookKind
    hold: Hold | None = None
    detail: str = ""

    def __post_init__(self) -> None:
        if (self.kind is LookKind.HELD) != (self.hold is not None):
            raise ValueError("a HELD look names its hold, and only a HELD look does")

    def held(self) -> Action:
        """The action a HELD look leaves in the report: nothing done, and why."""
        if self.hold is None:
            raise ValueError(f"a {self.kind.value} look holds nothing")
        return hold_action(self.hold, self.detail)


def last_look(
    current: Alert,
    *,
    listed_updated_at: datetime,
    resolution: AlertResolution,
    comment: str,
) -> Look:
    """Decide on the alert as GitHub has it NOW (``current``), for a change decided on
    a read whose ``updated_at`` was ``listed_updated_at``.

    Resolved with the intended resolution and thresher's comment: DONE (a PATCH of an
    earlier attempt landed). Resolved any other way: a person (or another tool) got
    there first, HELD. Open but updated since the listing: someone reopened or edited
    it, HELD (the next run reads it afresh). Open, unchanged: APPLY, unless GitHub now
    says the secret is active.
    """
    match current.state:
        case AlertState.RESOLVED:
            if current.resolution is resolution and _same(current.resolution_comment, comment):
                return Look(LookKind.DONE)
            how = current.resolution.value if current.resolution else "resolved"
            by = f" by {current.resolved_by}" if current.resolved_by else ""
            return Look(
                LookKind.HELD,
                Hold.ALREADY_RESOLVED,
                f"resolved as {how}{by} after thresher listed it: left as it is",
            )
        case AlertState.OPEN:
            if current.updated_at != listed_updated_at:
                return Look(
                    LookKind.HELD,
                    Hold.CHANGED_SINCE_LISTED,
                    "changed on GitHub after thresher listed it (updated "
                    f"{current.updated_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC: reopened "
                    "or edited by someone): not touched; the next run reads it afresh",
                )
            if current.validity is AlertValidity.ACTIVE:
                return Look(
                    LookKind.HELD,
                    Hold.ACTIVE,
                    "GitHub's validity check says the secret is active (read just before "
                    "the change)",
                )
            return Look(LookKind.APPLY)


def _same(found: str | None, comment: str) -> bool:
    """Whether GitHub's stored comment is the one thresher sent (whitespace aside):
    the comment carries the run id, so it tells thresher's resolution from a person's."""
    return found is not None and found.split() == comment.split()


@dataclass(frozen=True)
class Applier:
    """Resolves alerts for one run of one job (``job``: the state store's run key)."""

    github: GitHubClient
    store: StateStore
    job: str
    run_id: str

    def resolve(self, listed: Alert, outcome: AlertOutcome) -> AlertOutcome:
        """Resolve ``listed`` as ``outcome.action`` says (a RESOLVE with its comment):
        intent, last look, PATCH, settle. Returns the alert's outcome, applied or held
        or with its error; the alert is checkpointed done either way."""
        action = outcome.action
        if action.kind is not ActionKind.RESOLVE or not action.resolution or not action.comment:
            raise ValueError("resolve() takes a RESOLVE action with a resolution and comment")
        intent = self.store.intend(
            self.job,
            (listed.repo, listed.number),
            action.resolution,
            action.comment,
            run_id=self.run_id,
            listed_updated_at=listed.updated_at,
            outcome_json=outcome.model_dump_json(),
        )
        try:
            current = self.github.alert(listed.repo, listed.number)
        except GitHubNotFound as exc:
            return self._held(intent, outcome, _gone(exc))
        except GitHubRateLimited:
            raise  # nothing was sent: the intent is settled by the next run
        except GitHubError as exc:  # nothing was sent: this alert fails, the run goes on
            return self._failed(intent, outcome, f"not resolved: the last look failed: {exc}")
        return self._on(intent, outcome, current)

    def settle_pending(self) -> list[AlertOutcome]:
        """Settle the intents an earlier, interrupted run of this job left (see the
        module docstring); their outcomes belong to this run's report. A failure to
        read one back stops the run (GitHubError): its PATCH may have landed, so it is
        never sent blind and never dropped."""
        outcomes: list[AlertOutcome] = []
        for intent in self.store.pending_intents(self.job):
            outcome = AlertOutcome.model_validate_json(intent.outcome)
            try:
                current = self.github.alert(intent.repo, intent.number)
            except GitHubNotFound as exc:
                outcomes.append(self._held(intent, outcome, _gone(exc)))
                continue
            outcomes.append(self._on(intent, outcome, current))
        return outcomes

    # -- the steps after the last look -------------------------------------------------

    def _on(self, intent: Intent, outcome: AlertOutcome, current: Alert) -> AlertOutcome:
        look = self._look(intent, current)
        match look.kind:
            case LookKind.DONE:
                return self._applied(intent, outcome, current, by_run=intent.run_id)
            case LookKind.HELD:
                return self._held(intent, outcome, look.held())
            case LookKind.APPLY:
                return self._patch(intent, outcome, current)

    def _look(self, intent: Intent, current: Alert) -> Look:
        return last_look(
            current,
            listed_updated_at=intent.listed_updated_at,
            resolution=intent.resolution,
            comment=intent.comment,
        )

    def _patch(self, intent: Intent, outcome: AlertOutcome, current: Alert) -> AlertOutcome:
        try:
            after = self.github.resolve(current, intent.resolution, intent.comment)
        except GitHubRateLimited:
            raise  # it may have landed: the intent stays pending for the next run
        except GitHubError as exc:
            return self._refused(intent, outcome, exc)
        return self._applied(intent, outcome, after, by_run=self.run_id)

    def _refused(self, intent: Intent, outcome: AlertOutcome, exc: GitHubError) -> AlertOutcome:
        """GitHub refused the PATCH, or its answer was lost: read the alert back. One
        that has the intended resolution (a 422 for a repeated PATCH, a retried PATCH
        whose first try landed) is success; one someone else changed is held."""
        try:
            current = self.github.alert(intent.repo, intent.number)
        except GitHubRateLimited:
            raise
        except GitHubError:
            current = None
        if current is not None:
            look = self._look(intent, current)
            match look.kind:
                case LookKind.DONE:
                    return self._applied(intent, outcome, current, by_run=self.run_id)
                case LookKind.HELD:
                    return self._held(intent, outcome, look.held())
                case LookKind.APPLY:
                    pass  # still open as listed: the refusal stands
        return self._failed(intent, outcome, f"not resolved: {exc}")

    # -- settling ----------------------------------------------------------------------

    def _applied(
        self, intent: Intent, outcome: AlertOutcome, after: Alert, *, by_run: str
    ) -> AlertOutcome:
        done = outcome.model_copy(update={"applied": True})
        record = AppliedRecord(
            repo=intent.repo,
            number=intent.number,
            resolution=intent.resolution,
            comment=intent.comment,
            run_id=by_run,
            applied_at=datetime.now(UTC),
            alert_updated_at_after=after.updated_at,
        )
        self.store.settle(intent, IntentEnd.APPLIED, done.model_dump_json(), record)
        return done

    def _held(self, intent: Intent, outcome: AlertOutcome, action: Action) -> AlertOutcome:
        held = outcome.model_copy(update={"action": action, "applied": False})
        self.store.settle(intent, IntentEnd.HELD, held.model_dump_json())
        return held

    def _failed(self, intent: Intent, outcome: AlertOutcome, error: str) -> AlertOutcome:
        failed = outcome.model_copy(update={"error": error, "applied": False})
        self.store.settle(intent, IntentEnd.FAILED, failed.model_dump_json())
        return failed


def _gone(exc: GitHubNotFound) -> Action:
    return hold_action(
        Hold.CHANGED_SINCE_LISTED,
        f"no longer on GitHub when thresher looked again ({exc}): not touched",
    )
