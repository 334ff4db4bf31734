"""Triage reports for tests, with actions from the real policy."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from thresher.findings import AlertState, AlertValidity
from thresher.findings.results import Classification
from thresher.triage.policy import plan
from thresher.triage.report import AlertOutcome, TriageReport

from .factory import decision

START = datetime(2026, 11, 23, 6, tzinfo=UTC)


def outcome(
    repo: str,
    number: int,
    *,
    classification: Classification = Classification.TEST,
    confidence: float = 9.0,
    applied: bool = False,
    error: str | None = None,
    rationale: str = "the value fails its checksum; it sits in a test fixture",
) -> AlertOutcome:
    made = decision(
        f"value-{repo}-{number}",
        classification=classification,
        confidence=confidence,
        repo=repo,
        number=number,
        rationale=rationale,
    )
    action = plan(
        made,
        alert_state=AlertState.OPEN,
        validity=AlertValidity.UNKNOWN,
        applied=None,
        min_confidence=7.0,
        remaining=None,
        run_ref="run-1",
        redactor=None,
    )
    return AlertOutcome(
        repo=repo,
        number=number,
        html_url=f"https://github.com/{repo}/security/secret-scanning/{number}",
        secret_type="github_personal_access_token",
        validity=AlertValidity.UNKNOWN,
        state_before=AlertState.OPEN,
        decision=made,
        action=action,
        applied=applied,
        error=error,
    )


def shard_report(
    shard: str, alerts: list[AlertOutcome], *, run_id: str = "", dry_run: bool = True
) -> TriageReport:
    index = int(shard.partition("/")[0])
    return TriageReport.build(
        tool_version="0.0.0-test",
        run_id=run_id or f"run-{shard.replace('/', 'of')}",
        started_at=START + timedelta(minutes=index),
        finished_at=START + timedelta(minutes=10 + index),
        dry_run=dry_run,
        targets=["octo"],
        alerts=alerts,
        shard=shard,
    )
