"""Markdown for PR comments, job summaries and per-finding reports (DESIGN §6).

Everything is rendered from models with jinja2 (``prompts/summary.md.j2`` and
``prompts/report.md.j2``) and never parsed back. Strings that a repository or a
model controls are prepared here before the template sees them: whitespace is
collapsed (a newline would end a table row or start a block), length is capped
(a PR comment holds at most 65,536 characters), and ``@`` mentions are broken
with a zero-width space so a finding cannot ping people from the comment. The
templates then apply ``md_escape`` so the text cannot become markup.
"""

from __future__ import annotations

import re
from typing import Any

from thresher.agents.prompts import PromptRenderer, Template
from thresher.findings.results import Verdict
from thresher.reports.catalog import help_for
from thresher.reports.dependencies import markdown_section
from thresher.reports.views import (
    VERDICT_ICONS,
    by_risk,
    key_finding,
    location_text,
    one_line,
    remediation,
    winner_index,
    winning_entry,
)
from thresher.tribunal.decisions import Decision, RunReport

STICKY_MARKER = "<!-- thresher:summary -->"
MAX_ROWS = 50  # per table in the summary; the JSON report has every decision
MAX_LOCATIONS_SHOWN = 20  # per finding report
_CELL_LIMIT = 200
_TEXT_LIMIT = 2000
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")


def render_summary(
    report: RunReport, *, renderer: PromptRenderer | None = None, max_rows: int = MAX_ROWS
) -> str:
    """The PR comment / job summary; its first line is ``STICKY_MARKER``.

    Findings that need action (TRUE_POSITIVE, then INCONCLUSIVE, riskiest first)
    are listed openly; false positives sit in a collapsed ``<details>`` block.
    """
    ordered = by_risk(report.decisions)
    action = [d for d in ordered if d.verdict is not Verdict.FALSE_POSITIVE]
    dismissed = [d for d in ordered if d.verdict is Verdict.FALSE_POSITIVE]
    scan_line = _scan_line(report)
    counts = {verdict.value: 0 for verdict in Verdict}
    for decision in report.decisions:
        counts[decision.verdict.value] += 1
    text = (renderer or PromptRenderer()).render(
        Template.SUMMARY,
        marker=STICKY_MARKER,
        total=len(report.decisions),
        counts=counts,
        need_action=len(action),
        action_rows=[_row(d) for d in action[:max_rows]],
        action_more=max(0, len(action) - max_rows),
        fp_rows=[_row(d) for d in dismissed[:max_rows]],
        fp_total=len(dismissed),
        fp_more=max(0, len(dismissed) - max_rows),
        decided_without_model=report.summary.decided_without_model,
        errors=report.summary.errors + len(report.errors),
        run_errors=[_text(f"{e.stage}: {e.message}", _CELL_LIMIT) for e in report.errors],
        dry_run=report.dry_run,
        usage=report.usage.model_dump(),
        models=[
            (_text(role, 60), _text(model, 120)) for role, model in sorted(report.models.items())
        ],
        tool_version=_text(report.tool_version, 60),
        run_id=_text(report.run_id, 120),
        scan_line=scan_line,
    )
    # A configured template may forget the marker; the sticky comment depends on it.
    if not text.startswith(STICKY_MARKER):
        text = f"{STICKY_MARKER}\n{text}"
    # ... or the scan line: a skipped file is never left unmentioned.
    if report.scan.files_skipped and scan_line not in text:
        text = f"{text.rstrip()}\n\n{scan_line}\n"
    if report.dependencies is not None:
        section = markdown_section(report, max_rows=max_rows).rstrip()
        cut = text.rfind("\n<sub>")  # the usage footer stays last
        body, foot = (text[:cut], text[cut:]) if cut > 0 else (text, "")
        text = f"{body.rstrip()}\n\n{section}\n{foot.rstrip()}\n"
    return text


def _scan_line(report: RunReport) -> str:
    """What the scanner read, in words of thresher's own (no repository text): a
    warning when files were skipped, with where to find which."""
    scan = report.scan
    if report.dependencies is not None and not scan.files_scanned and not scan.files_skipped:
        return ""  # `thresher deps`: no file was scanned for secrets; the section says more
    text = scan.describe()
    text = text[0].upper() + text[1:] + "."
    if scan.files_skipped:
        return f"> ⚠️ {text} Run `thresher -v scan` to list the skipped files."
    return text


def render_finding(decision: Decision, *, renderer: PromptRenderer | None = None) -> str:
    """The full report for one (escalated) finding: why thresher decided what it did."""
    view = _clean(
        decision.model_dump(mode="json", exclude={"entries": {"__all__": {"transcript"}}})
    )
    shown = decision.finding.locations[:MAX_LOCATIONS_SHOWN]
    entry = winning_entry(decision)
    return (renderer or PromptRenderer()).render(
        Template.REPORT,
        d=view,
        icon=VERDICT_ICONS[decision.verdict],
        title=help_for(decision.finding).title,
        locations=[_text(location_text(loc), _CELL_LIMIT) for loc in shown],
        more_locations=len(decision.finding.locations) - len(shown),
        winner=winner_index(decision),
        key_finding=_text(entry.report.key_finding) if entry is not None else None,
        remediation=[_text(step) for step in remediation(decision)],
    )


def _row(decision: Decision) -> dict[str, Any]:
    """One summary table row of plain, flattened strings (the template escapes them)."""
    finding = decision.finding
    return {
        "icon": VERDICT_ICONS[decision.verdict],
        "rule": _text(finding.rule_id, _CELL_LIMIT),
        "location": _text(location_text(finding.locations[0]), _CELL_LIMIT),
        "more": len(finding.locations) - 1,
        "redacted": _text(finding.redacted, _CELL_LIMIT),
        "verdict": decision.verdict.value,
        "classification": decision.classification.value,
        "confidence": f"{decision.confidence:.1f}/10 ({decision.confidence_label.value})",
        "decided_by": decision.decided_by.value,
        "why": _text(key_finding(decision), _CELL_LIMIT),
    }


def _text(value: str, limit: int = _TEXT_LIMIT) -> str:
    return _MENTION.sub("@\u200b", one_line(value, limit))


def _clean(value: Any) -> Any:
    """Apply ``_text`` to every string inside dumped model data."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(item) for item in value]
    return value
