"""Shared readings of a Decision that every report format needs.

Which analysis report "won", its key finding, the remediation to show and the
order of risk are decided once here, so SARIF, Markdown and the terminal never
disagree about what thresher concluded or which finding comes first.
"""

from __future__ import annotations

import re
from typing import assert_never

from thresher.findings import FindingLocation, Location, Severity, TextLocation, WikiLocation
from thresher.findings.results import RiskLevel, Verdict
from thresher.reports.catalog import help_for
from thresher.tribunal.decisions import Decision, ReportEntry

_VERDICT_RANK = {Verdict.TRUE_POSITIVE: 0, Verdict.INCONCLUSIVE: 1, Verdict.FALSE_POSITIVE: 2}
_RISK_RANK = {
    RiskLevel.CRITICAL: 0,
    RiskLevel.HIGH: 1,
    RiskLevel.MEDIUM: 2,
    RiskLevel.LOW: 3,
    RiskLevel.NONE: 4,
}
_SEVERITY_RANK = {Severity.CRITICAL: 0, Severity.HIGH: 1, Severity.MEDIUM: 2, Severity.LOW: 3}

VERDICT_ICONS = {
    Verdict.TRUE_POSITIVE: "🔴",
    Verdict.INCONCLUSIVE: "🟡",
    Verdict.FALSE_POSITIVE: "⚪",
}


RiskKey = tuple[int, int, int, float, str, str]


def risk_key(decision: Decision) -> RiskKey:
    """Sort key, highest risk first: verdict, risk level, severity, then confidence.

    The finding id breaks ties so that the order — and thus which results survive
    a cap — is the same on every run.
    """
    return (
        _VERDICT_RANK[decision.verdict],
        _RISK_RANK[decision.risk_level],
        _SEVERITY_RANK[decision.finding.severity],
        -decision.confidence,
        decision.finding.rule_id,
        decision.finding.id,
    )


def by_risk(decisions: tuple[Decision, ...] | list[Decision]) -> list[Decision]:
    return sorted(decisions, key=risk_key)


def winning_entry(decision: Decision) -> ReportEntry | None:
    """The judge's winner; else the first report agreeing with the verdict; else the first."""
    entries = decision.entries
    if not entries:
        return None
    if decision.judge is not None and 0 <= decision.judge.winner_index < len(entries):
        return entries[decision.judge.winner_index]
    for entry in entries:
        if entry.report.verdict is decision.verdict:
            return entry
    return entries[0]


def winner_index(decision: Decision) -> int | None:
    entry = winning_entry(decision)
    return None if entry is None else decision.entries.index(entry)


def key_finding(decision: Decision) -> str:
    """The winning report's one-sentence key finding, else the decision's rationale."""
    entry = winning_entry(decision)
    return entry.report.key_finding if entry is not None else decision.rationale


def remediation(decision: Decision) -> tuple[str, ...]:
    """What to do: the winning report's steps when it submitted any, else the catalog's.

    A false positive needs no rotation, so it gets no generic steps.
    """
    entry = winning_entry(decision)
    if entry is not None and entry.report.remediation:
        return entry.report.remediation
    if decision.verdict is Verdict.FALSE_POSITIVE:
        return ()
    return help_for(decision.finding).remediation


def one_line(text: str, limit: int = 300) -> str:
    """Collapse whitespace (a newline would end a table row) and cap the length."""
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def location_text(location: FindingLocation) -> str:
    """``path:line`` for a file; a wiki page or GitHub text says what it is, and where."""
    match location:
        case Location():
            return f"{location.path}:{location.line}"
        case WikiLocation():
            return f"wiki {location.path}:{location.line} ({location.url})"
        case TextLocation():
            return f"{location.type.value.replace('_', ' ')} {location.url}"
        case _:
            assert_never(location)
