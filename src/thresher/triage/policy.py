"""What ``thresher triage --apply`` may do to one alert (issue 10 §3).

Resolving an alert hides a possible leak from the people who would rotate it, so
the rule is narrow and fails closed. thresher resolves an alert — as
``used_in_tests`` when the decision's classification is ``test``, otherwise as
``false_positive`` — only when every one of these holds:

1. the alert is open, and thresher never resolved it before (a resolution it
   applied and a person reopened is that person's answer: never touch it again);
2. GitHub's own ``validity`` is not ``active`` (hard evidence that it is real);
3. the decision is not INCONCLUSIVE and not real (verdict not TRUE_POSITIVE,
   classification neither ``real`` nor ``affected``);
4. its confidence is at or above ``--apply-min-confidence``, on the decision's own
   0..10 scale;
5. it rests on hard evidence (``dismissal_evidence``) or on a completed LLM
   tribunal (``completed_tribunal``) — the scorer's probabilities alone are not
   enough to close an alert without a person;
6. ``--max-apply`` has not been reached this run.

The first rule that fails is the ``Hold`` the report shows, in the order above.
``plan`` decides; it never calls GitHub, so a dry run shows exactly what ``--apply``
would do. ``--apply`` then checks rules 1 and 2 again on a last read of the alert
just before the change (``triage.apply.last_look``): a listing can be minutes old,
and a person's answer in the meantime wins (``CHANGED_SINCE_LISTED``).
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from thresher.errors import UsageError
from thresher.findings import AlertResolution, AlertState, AlertValidity
from thresher.findings.results import Classification, Verdict
from thresher.redaction.redactor import Redactor
from thresher.scoring.policy import HardEvidence, hard_evidence
from thresher.triage.records import AppliedRecord
from thresher.tribunal.decisions import DecidedBy, Decision

COMMENT_LIMIT = 270  # GitHub rejects a longer resolution_comment with 422
CONFIDENCE_SCALE = 10.0  # Decision.confidence is 0..10
_RUN_REF_LIMIT = 100


class ActionKind(StrEnum):
    RESOLVE = "resolve"
    NONE = "none"


class Hold(StrEnum):
    """Why an alert is not resolved."""

    REAL = "real"
    INCONCLUSIVE = "inconclusive"
    LOW_CONFIDENCE = "low_confidence"
    SOFT_EVIDENCE = "soft_evidence"  # neither hard evidence nor a completed LLM tribunal
    ALREADY_RESOLVED = "already_resolved"  # resolved by someone else
    REOPENED_AFTER_RESOLVE = "reopened_after_resolve"  # thresher resolved it; a person reopened
    ALREADY_APPLIED = "already_applied"  # thresher resolved it in an earlier run
    APPLY_CAP = "apply_cap"  # --max-apply reached
    ACTIVE = "active"  # GitHub's validity check says the secret works
    # The last look before the change (``triage.apply``) found the alert open but changed
    # since it was listed: someone reopened or edited it, so it is theirs this run.
    CHANGED_SINCE_LISTED = "changed_since_listed"


class Action(BaseModel):
    """What ``--apply`` does (RESOLVE) or why it does nothing (NONE with a ``hold``).

    ``detail`` is one line for people: why this action.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ActionKind
    resolution: AlertResolution | None = None
    hold: Hold | None = None
    comment: str | None = None
    detail: str


def hold_action(hold: Hold, detail: str) -> Action:
    """An action that changes nothing, for ``hold``; e.g. an alert that failed before a
    decision was made is ``hold_action(Hold.INCONCLUSIVE, "not decided: <error>")``."""
    return Action(kind=ActionKind.NONE, hold=hold, detail=detail)


_hold = hold_action


# Hard evidence that a value is NOT a live credential. LIVE_VALID is hard evidence the
# other way and never supports a dismissal.
_DISMISSING = frozenset(
    {
        HardEvidence.DOCUMENTATION_VALUE,
        HardEvidence.FORMAT_SYNTAX,
        HardEvidence.CHECKSUM_INVALID,
    }
)


def dismissal_evidence(decision: Decision) -> HardEvidence | None:
    """The hard evidence that this value is not a live credential, or None.

    Read from the decision's validator results with the same precedence as the
    offline call (``scoring.policy.hard_evidence``): a live check saying valid
    outranks everything and is never dismissal evidence.
    """
    found = hard_evidence(decision.validations)
    match found:
        case HardEvidence.LIVE_VALID | None:
            return None
        case HardEvidence.DOCUMENTATION_VALUE | HardEvidence.FORMAT_SYNTAX:
            return found
        case HardEvidence.CHECKSUM_INVALID:
            return found


def completed_tribunal(decision: Decision) -> bool:
    """Whether the decision came from an LLM tribunal that ran to the end.

    Precisely: ``decided_by`` is TRIBUNAL (a guardrail override or the heuristic is
    not), the finding was escalated, no stage recorded an error, there is at least
    one analysis report and every report was challenged, and the judge picked one of
    them (``0 <= winner_index < len(entries)``) with the verdict the decision carries.
    """
    judge = decision.judge
    match decision.decided_by:
        case DecidedBy.TRIBUNAL:
            pass
        case DecidedBy.HEURISTIC | DecidedBy.GUARDRAIL:
            return False
    return (
        decision.escalated
        and not decision.errors
        and bool(decision.entries)
        and all(entry.challenge is not None for entry in decision.entries)
        and judge is not None
        and 0 <= judge.winner_index < len(decision.entries)
        and judge.final_verdict is decision.verdict
    )


def _resolution(classification: Classification) -> AlertResolution | None:
    """The resolution a dismissing classification gets; None for a real one."""
    match classification:
        case Classification.TEST:
            return AlertResolution.USED_IN_TESTS
        case Classification.NOT_SECRET | Classification.NOT_AFFECTED:
            return AlertResolution.FALSE_POSITIVE
        case Classification.REAL | Classification.AFFECTED:
            return None


def _prior(alert_state: AlertState, applied: AppliedRecord | None) -> Action | None:
    """Holds from the alert's own history, before the decision is looked at."""
    match alert_state:
        case AlertState.OPEN:
            if applied is not None:
                return _hold(
                    Hold.REOPENED_AFTER_RESOLVE,
                    f"thresher resolved it as {applied.resolution.value} in run "
                    f"{applied.run_id} and it was reopened: left to people",
                )
            return None
        case AlertState.RESOLVED:
            if applied is not None:
                return _hold(
                    Hold.ALREADY_APPLIED,
                    f"thresher resolved it as {applied.resolution.value} in run {applied.run_id}",
                )
            return _hold(Hold.ALREADY_RESOLVED, "already resolved")


def _validity(validity: AlertValidity | None) -> Action | None:
    match validity:
        case AlertValidity.ACTIVE:
            return _hold(Hold.ACTIVE, "GitHub's validity check says the secret is active")
        case AlertValidity.INACTIVE | AlertValidity.UNKNOWN | None:
            # Inactive is not evidence of a false positive: a revoked secret was still real.
            return None


def check_min_confidence(value: float) -> float:
    """``--apply-min-confidence`` on the decision's 0..10 scale."""
    if not 0 <= value <= CONFIDENCE_SCALE:
        raise UsageError(
            f"--apply-min-confidence {value:g} is outside 0..10",
            hint="a decision's confidence is on a 0..10 scale; 7 is 'high'",
        )
    return value


def plan(
    decision: Decision,
    *,
    alert_state: AlertState,
    validity: AlertValidity | None,
    applied: AppliedRecord | None,
    min_confidence: float,
    remaining: int | None,
    run_ref: str,
    redactor: Redactor | None,
) -> Action:
    """What ``--apply`` may do to one alert (see the module docstring for the rules).

    ``remaining`` is how many more resolutions ``--max-apply`` allows this run (None:
    no cap). ``run_ref`` (a run id or a workflow run URL) goes into the comment.
    """
    check_min_confidence(min_confidence)
    prior = _prior(alert_state, applied) or _validity(validity)
    if prior is not None:
        return prior
    match decision.verdict:
        case Verdict.INCONCLUSIVE:
            return _hold(Hold.INCONCLUSIVE, "the decision is INCONCLUSIVE")
        case Verdict.TRUE_POSITIVE:
            return _hold(Hold.REAL, f"decided {decision.classification.value}")
        case Verdict.FALSE_POSITIVE:
            pass
    resolution = _resolution(decision.classification)
    if resolution is None:
        return _hold(Hold.REAL, f"decided {decision.classification.value}")
    if decision.confidence < min_confidence:
        return _hold(
            Hold.LOW_CONFIDENCE,
            f"confidence {decision.confidence:.1f}/10 is below {min_confidence:g}",
        )
    basis = _basis(decision)
    if basis is None:
        return _hold(
            Hold.SOFT_EVIDENCE,
            "no hard evidence and no completed LLM tribunal: the scorer alone does not "
            "resolve alerts",
        )
    if remaining is not None and remaining <= 0:
        return _hold(Hold.APPLY_CAP, "--max-apply reached for this run")
    return Action(
        kind=ActionKind.RESOLVE,
        resolution=resolution,
        comment=resolution_comment(decision, run_ref, redactor),
        detail=f"{resolution.value}: {decision.classification.value}, confidence "
        f"{decision.confidence:.1f}/10, {basis}",
    )


def _basis(decision: Decision) -> str | None:
    evidence = dismissal_evidence(decision)
    if evidence is not None:
        return f"hard evidence ({evidence.value})"
    if completed_tribunal(decision):
        return "LLM tribunal"
    return None


# The forms redaction writes (``ghp_…Xk2 (40 chars)``, ``[REDACTED:slug:3f2a]``) are kept;
# they hold at most 3 characters of a value.
_REDACTED = re.compile(
    r"\[REDACTED:[a-z0-9]+(?:-[a-z0-9]+)*:[0-9a-f]{4}\]"
    r"|(?:-----BEGIN |[A-Za-z_.-]{0,11})…(?:[^\s…]{3} )?\(\d{1,9} chars\)"
)
_WORD = re.compile(r"[^\s'\"`=:,;()\[\]{}<>|]+")
_SCRUBBED = "[…]"


def _looks_like_value(word: str) -> bool:
    """A long run of token characters, or a shorter one mixing letters and digits.

    A path is judged part by part, so ``tests/fixtures/client_test.py`` stays readable
    while a base64 value, whose parts are long or mixed, does not.
    """
    for part in word.split("/"):
        core = part.strip(".-_")
        if len(core) >= 24:
            return True
        if len(core) >= 8 and any(c.isdigit() for c in core) and any(c.isalpha() for c in core):
            return True
    return False


def scrub(text: str) -> str:
    """Replace every word that still looks like a secret value with ``[…]``.

    A second line of defence after the ``Redactor`` (which knows the run's values): a
    comment is posted to GitHub, where it stays, so anything value-shaped goes — at the
    price of the odd long word or path.
    """
    out: list[str] = []
    cursor = 0
    for form in _REDACTED.finditer(text):
        out.append(_scrub_plain(text[cursor : form.start()]))
        out.append(form.group(0))
        cursor = form.end()
    out.append(_scrub_plain(text[cursor:]))
    return "".join(out)


def _scrub_plain(text: str) -> str:
    return _WORD.sub(lambda m: _SCRUBBED if _looks_like_value(m.group(0)) else m.group(0), text)


def resolution_comment(decision: Decision, run_ref: str, redactor: Redactor | None) -> str:
    """The ``resolution_comment`` for GitHub: at most 270 characters, a short rationale
    and the run reference, never a secret (redacted, then scrubbed of value-shaped words).

    The reference is kept whole (up to 100 characters); the rationale is cut to fit.
    """
    rationale = decision.rationale
    if redactor is not None:
        rationale = redactor.text(rationale)
    rationale = " ".join(scrub(rationale).split())
    ref = " ".join(run_ref.split())[:_RUN_REF_LIMIT]
    head = f"thresher: {decision.classification.value} ({decision.confidence:.1f}/10). "
    tail = f" [run {ref}]"
    room = COMMENT_LIMIT - len(head) - len(tail)
    if len(rationale) > room:
        rationale = rationale[: max(room - 1, 0)].rstrip() + "…"
    return f"{head}{rationale}{tail}"
