"""What stands when the tribunal cannot finish: the run deadline, the undecided
finding, and the offline decision kept when an LLM panel is incomplete.

Kept apart from the tribunal's control flow so the fail-closed rules read in one
place: only a complete panel may overrule the offline decision. A dependency, which no
calibrated scorer judges, lets the offline decision stand only in the heuristic's clear
cases (``dependency_escalation``); an undecided one is assumed ``affected``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, assert_never

from thresher.findings import Finding
from thresher.findings.results import (
    ConfidenceLabel,
    JudgeResult,
    RiskLevel,
    Verdict,
    safe_classification,
)
from thresher.llm.messages import Usage
from thresher.scoring.policy import Escalate, Escalation
from thresher.tribunal.decisions import DecidedBy, Decision, DecisionError, ReportEntry


@dataclass(frozen=True)
class Deadline:
    """``--timeout``: ``seconds`` for the whole run, ending at ``at`` (``time.monotonic``)."""

    seconds: float
    at: float

    @classmethod
    def after(cls, seconds: float, *, started: float | None = None) -> Deadline:
        return cls(seconds, (time.monotonic() if started is None else started) + seconds)

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())


@dataclass
class Panel:
    entries: list[ReportEntry]
    judge: JudgeResult | None
    judge_model: str | None
    usage: Usage
    errors: list[DecisionError]


def undecided(
    rationale: str, decided_by: DecidedBy, *, finding: Finding, **fields: Any
) -> Decision:
    """INCONCLUSIVE, assumed the safe guess for the finding's kind until someone looks:
    a secret ``real``, a vulnerable dependency ``affected``."""
    return Decision(
        finding=finding,
        classification=safe_classification(finding.kind),
        verdict=Verdict.INCONCLUSIVE,
        confidence=0.0,
        confidence_label=ConfidenceLabel.LOW,
        risk_level=RiskLevel.HIGH,
        rationale=rationale,
        decided_by=decided_by,
        **fields,
    )


def complete(panel: Panel) -> bool:
    """A judgement over reports that were all challenged: the only LLM panel that may
    overrule the offline decision (a lone, unchallenged report may not)."""
    return (
        panel.judge is not None
        and bool(panel.entries)
        and all(entry.challenge is not None for entry in panel.entries)
    )


def offline_stands(decision: Decision, panel: Panel) -> Decision:
    """The offline decision, with the incomplete panel's errors and the usage it cost.

    Reports the panel did finish are kept beside it (they are paid for and a reviewer
    may want them); ``decided_by`` stays ``heuristic`` because they decided nothing.
    """
    errors = panel.errors or [
        DecisionError(stage="tribunal", error="IncompletePanel", message="no judgement")
    ]
    failed = ", ".join(f"{e.stage}: {e.error}" for e in errors)
    kept: dict[str, Any] = {}
    if panel.entries:
        kept = {"escalated": True, "entries": tuple(panel.entries), "judge": None}
    return decision.model_copy(
        update={
            **kept,
            "errors": (*decision.errors, *errors),
            "usage": panel.usage,
            "rationale": f"{decision.rationale} [the LLM tribunal did not complete ({failed}); "
            "the offline decision stands]",
        }
    )


def valid_judgement(
    judge: JudgeResult | None, entries: int, errors: list[DecisionError]
) -> JudgeResult | None:
    """The judgement, or None (with the error recorded) when it picks a report that
    does not exist: both panels, offline and LLM, hold a judge to the same rule."""
    if judge is not None and judge.winner_index >= entries:
        errors.append(
            DecisionError(
                stage="judge",
                error="InvalidWinner",
                message=f"judge picked report {judge.winner_index} of {entries}",
            )
        )
        return None
    return judge


def dependency_escalation(policy: Escalate, decision: Decision) -> Escalation:
    """The escalation policy for a dependency, which has no calibrated scorer: the
    heuristic's clear cases (a decided ``not_affected`` with its cited justification)
    stand under ``uncertain``; everything else, undecided and assumed affected, escalates."""
    match policy:
        case Escalate.ALL:
            return Escalation(policy=policy, would_escalate=True, reason="--escalate all")
        case Escalate.NEVER:
            return Escalation(policy=policy, would_escalate=False, reason="--escalate never")
        case Escalate.UNCERTAIN:
            if decision.verdict is Verdict.INCONCLUSIVE or decision.errors:
                return Escalation(
                    policy=policy,
                    would_escalate=True,
                    reason="not a clear case offline: whether the vulnerable code is "
                    "reachable needs the tribunal",
                )
            return Escalation(
                policy=policy,
                would_escalate=False,
                reason="a clear case offline: "
                + (decision.justification.value if decision.justification else "decided"),
            )
        case _:
            assert_never(policy)
