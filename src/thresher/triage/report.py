"""The triage report: what ``thresher triage`` decided and did per alert (issue 10 §6-7).

One JSON model for a run (or a shard of one), a Markdown rendering for
``$GITHUB_STEP_SUMMARY``, and ``merge`` to put the shards of a GitHub Actions matrix
back together. Decisions inside are the redacted ones the state store keeps; nothing
here sees a raw value. Text from alerts and models is hostile: the Markdown escapes
it, and a link is only made of a plain https URL.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from thresher.errors import UsageError
from thresher.findings import AlertState, AlertValidity
from thresher.findings.results import Classification, Verdict
from thresher.redaction.redactor import Structural
from thresher.triage.policy import Action, ActionKind, Hold
from thresher.tribunal.decisions import Decision, DecisionError, HistorySummary

TRIAGE_REPORT_SCHEMA_VERSION = "1.0"
SUMMARY_LIMIT = 1024 * 1024  # GitHub refuses a step summary over 1 MiB
_SUMMARY_RESERVE = 2048  # room for the truncation note and the closing sections


class ReportMergeError(UsageError):
    """Reports that cannot be merged; the message names the files (exit code 2)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TriageFilters(_Frozen):
    """Which alerts the run asked for (``--state``, ``--secret-type``, ``--validity``,
    ``--since``); empty tuples mean "any"."""

    states: tuple[AlertState, ...] = (AlertState.OPEN,)
    secret_types: tuple[Annotated[str, Structural], ...] = ()
    validities: tuple[AlertValidity, ...] = ()
    since: datetime | None = None


def job_key(
    targets: Sequence[str], filters: TriageFilters, shard: str | None, *, apply: bool
) -> str:
    """The ``run_key`` of a triage job for ``StateStore.begin_run``: the same targets (in
    any order or case), filters, shard and mode give the same key, so a re-run after a
    kill resumes the job; anything else is another job.

    The mode (``--apply`` or a dry run) is part of it because a job's checkpoint says
    which alerts are finished, and a dry run's "finished" means "decided, left alone":
    an ``--apply`` run resuming it would pass over those alerts and never resolve them,
    and a dry run resuming an ``--apply`` job would report its resolutions as its own
    and, finishing, end that job's checkpoint."""
    canonical = json.dumps(
        {
            "targets": sorted({t.strip().lower() for t in targets}),
            "filters": filters.model_dump(mode="json"),
            "shard": shard,
            "mode": "apply" if apply else "dry-run",
        },
        sort_keys=True,
    )
    return "job-" + hashlib.sha256(canonical.encode()).hexdigest()[:32]


class AlertOutcome(_Frozen):
    """One alert: its decision and what was (``applied``) or would be done to it.

    ``decision`` and ``error`` must already be redacted by the caller (the decision as
    stored in the state database); the report writes them as given.
    """

    repo: Annotated[str, Structural]
    number: int
    html_url: Annotated[str, Structural]
    secret_type: Annotated[str, Structural]
    validity: AlertValidity | None = None
    state_before: AlertState
    decision: Decision | None = None
    action: Action
    applied: bool = False
    error: str | None = None


class TriageSummary(_Frozen):
    """Counts over the alerts. ``would_resolve`` counts every RESOLVE action (applied or
    not), ``resolved`` those applied; ``held`` counts the others by their ``Hold``."""

    alerts: int = 0
    by_verdict: dict[Verdict, int] = Field(default_factory=dict)
    by_classification: dict[Classification, int] = Field(default_factory=dict)
    undecided: int = 0  # no decision (the alert failed before one was made)
    would_resolve: int = 0
    resolved: int = 0
    held: dict[Hold, int] = Field(default_factory=dict)
    alert_errors: int = 0
    run_errors: int = 0

    @classmethod
    def of(cls, alerts: Iterable[AlertOutcome], errors: int = 0) -> TriageSummary:
        listed = list(alerts)
        decisions = [a.decision for a in listed if a.decision is not None]
        verdicts = Counter(d.verdict for d in decisions)
        classes = Counter(d.classification for d in decisions)
        held = Counter(a.action.hold for a in listed if a.action.hold is not None)
        return cls(
            alerts=len(listed),
            by_verdict={v: verdicts[v] for v in Verdict if verdicts[v]},
            by_classification={c: classes[c] for c in Classification if classes[c]},
            undecided=len(listed) - len(decisions),
            would_resolve=sum(a.action.kind is ActionKind.RESOLVE for a in listed),
            resolved=sum(a.applied for a in listed),
            held={h: held[h] for h in Hold if held[h]},
            alert_errors=sum(a.error is not None for a in listed),
            run_errors=errors,
        )


class RepoHistory(_Frozen):
    """``--clone``: how far back one repository's history was read for its alerts'
    values, or why it was not (``error``); a shallow read can miss where a value came
    from, so the report says so."""

    repo: Annotated[str, Structural]
    history: HistorySummary | None = None  # None: the clone failed (see error)
    omitted_paths: int = 0  # paths left out of the read: their blobs are over 1 MB
    error: str | None = None


class TriageReport(_Frozen):
    """The JSON report of ``thresher triage`` (and of ``thresher report merge``)."""

    schema_version: Annotated[str, Structural] = TRIAGE_REPORT_SCHEMA_VERSION
    tool: Literal["thresher"] = "thresher"
    kind: Literal["triage"] = "triage"
    tool_version: Annotated[str, Structural]
    run_id: Annotated[str, Structural]
    started_at: datetime
    finished_at: datetime
    dry_run: bool
    shard: Annotated[str | None, Structural] = None  # "K/N" of this run
    shards: tuple[Annotated[str, Structural], ...] = ()  # a merged report: its inputs' shards
    merged_from: tuple[Annotated[str, Structural], ...] = ()  # a merged report: run ids
    targets: tuple[Annotated[str, Structural], ...]
    filters: TriageFilters = Field(default_factory=TriageFilters)
    alerts: tuple[AlertOutcome, ...] = ()
    summary: TriageSummary = Field(default_factory=TriageSummary)
    errors: tuple[DecisionError, ...] = ()
    stopped: str | None = None  # why the run stopped early (e.g. a rate limit): resume later
    histories: tuple[RepoHistory, ...] = ()  # --clone: each cloned repository's history read

    @classmethod
    def build(
        cls,
        *,
        tool_version: str,
        run_id: str,
        started_at: datetime,
        finished_at: datetime,
        dry_run: bool,
        targets: Sequence[str],
        alerts: Sequence[AlertOutcome],
        filters: TriageFilters | None = None,
        shard: str | None = None,
        errors: Sequence[DecisionError] = (),
        stopped: str | None = None,
        histories: Sequence[RepoHistory] = (),
    ) -> TriageReport:
        """A report whose summary is computed from its alerts."""
        return cls(
            tool_version=tool_version,
            run_id=run_id,
            started_at=started_at,
            finished_at=finished_at,
            dry_run=dry_run,
            shard=shard,
            targets=tuple(targets),
            filters=filters or TriageFilters(),
            alerts=tuple(alerts),
            summary=TriageSummary.of(alerts, len(errors)),
            errors=tuple(errors),
            stopped=stopped,
            histories=tuple(histories),
        )


# -- merging -----------------------------------------------------------------------------


def merge(reports: Sequence[TriageReport], *, names: Sequence[str] | None = None) -> TriageReport:
    """One report from the shards of one job. ``names`` (file names) go into errors.

    Refused, naming the files: no input; inputs of different schema versions, dry-run
    flags or filters (not shards of one job); an alert present in two inputs.
    """
    if not reports:
        raise ReportMergeError("nothing to merge", hint="give the shards' JSON reports")
    labels = list(names) if names is not None else [f"report {i + 1}" for i in range(len(reports))]
    if len(labels) != len(reports):
        raise ValueError("names must match reports one to one")
    first, first_label = reports[0], labels[0]
    owner: dict[tuple[str, int], str] = {}
    for report, label in zip(reports, labels, strict=True):
        for field, same in (
            ("schema_version", report.schema_version == first.schema_version),
            ("dry_run", report.dry_run == first.dry_run),
            ("filters", report.filters == first.filters),
        ):
            if not same:
                raise ReportMergeError(
                    f"{label} and {first_label} differ in '{field}' "
                    f"({getattr(report, field)!r} vs {getattr(first, field)!r})",
                    hint="merge only the shards of one triage job",
                )
        for alert in report.alerts:
            key = (alert.repo, alert.number)
            if key in owner:
                raise ReportMergeError(
                    f"alert {alert.repo}#{alert.number} is in both {owner[key]} and {label}",
                    hint="each shard must triage different repositories (--shard K/N)",
                )
            owner[key] = label
    run_ids = sorted({r.run_id for r in reports})
    run_id = run_ids[0] if len(run_ids) == 1 else "merged-" + _digest(run_ids)
    alerts = sorted((a for r in reports for a in r.alerts), key=lambda a: (a.repo, a.number))
    errors = [e for r in reports for e in r.errors]
    stops = [f"{label}: {r.stopped}" for r, label in zip(reports, labels, strict=True) if r.stopped]
    shards = sorted(
        {s for r in reports for s in (*r.shards, *([r.shard] if r.shard else []))},
        key=_shard_key,
    )
    versions = sorted({r.tool_version for r in reports})
    return TriageReport(
        schema_version=first.schema_version,
        tool_version=", ".join(versions),
        run_id=run_id,
        started_at=min(r.started_at for r in reports),
        finished_at=max(r.finished_at for r in reports),
        dry_run=first.dry_run,
        shard=first.shard if len(reports) == 1 else None,
        shards=tuple(shards),
        merged_from=tuple(sorted({*run_ids, *(m for r in reports for m in r.merged_from)})),
        targets=tuple(dict.fromkeys(t for r in reports for t in r.targets)),
        filters=first.filters,
        alerts=tuple(alerts),
        summary=TriageSummary.of(alerts, len(errors)),
        errors=tuple(errors),
        stopped="; ".join(stops) or None,
        histories=tuple(sorted((h for r in reports for h in r.histories), key=lambda h: h.repo)),
    )


def _digest(values: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(values).encode()).hexdigest()[:12]


def _shard_key(text: str) -> tuple[int, int, str]:
    index, _, count = text.partition("/")
    if index.isdigit() and count.isdigit():
        return int(count), int(index), text
    return 0, 0, text


def missing_shards(shards: Sequence[str]) -> list[str]:
    """The shards of a K/N split that no input covered ("3/4"), for the summary."""
    counts = {s.partition("/")[2] for s in shards}
    if len(counts) != 1:
        return []
    count = counts.pop()
    if not count.isdigit():
        return []
    return [f"{k}/{count}" for k in range(1, int(count) + 1) if f"{k}/{count}" not in shards]


# -- Markdown ----------------------------------------------------------------------------

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_URL = re.compile(r"^https://[A-Za-z0-9.-]+(?::\d+)?/[A-Za-z0-9._~/%-]*$")
_CELL = 160


def _cell(text: str, limit: int = _CELL) -> str:
    """One table cell: one line, capped, markup escaped, @mentions broken."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    escaped = _SPECIAL.sub(r"\\\1", "".join(_ENTITIES.get(c, c) for c in flat))
    return _MENTION.sub("@\u200b", escaped)


def _alert_ref(alert: AlertOutcome) -> str:
    label = _cell(f"{alert.repo}#{alert.number}")
    return f"[{label}]({alert.html_url})" if _URL.match(alert.html_url) else label


def _header(report: TriageReport) -> list[str]:
    mode = "dry run: nothing was changed" if report.dry_run else "--apply"
    lines = [f"## thresher triage ({mode})", ""]
    where = [f"run {_cell(report.run_id)}"]
    if report.shard:
        where.append(f"shard {_cell(report.shard)}")
    if report.shards:
        where.append("shards " + ", ".join(_cell(s) for s in report.shards))
    targets = ", ".join(_cell(t) for t in report.targets[:20])
    if len(report.targets) > 20:
        targets += f" and {len(report.targets) - 20} more"
    where.append(f"targets: {targets or '-'}")
    lines += [" · ".join(where), ""]
    missing = missing_shards(report.shards)
    if missing:
        lines += [f"> **Incomplete:** no report for shard(s) {', '.join(missing)}.", ""]
    if report.stopped:
        lines += [f"> **Stopped early:** {_cell(report.stopped, 1000)}. Re-run to resume.", ""]
    return lines


def _counts(report: TriageReport) -> list[str]:
    s = report.summary
    done = "Resolved" if not report.dry_run else "Would resolve"
    rows = [
        ("Alerts", s.alerts),
        *((f"Verdict {v.value}", n) for v, n in s.by_verdict.items()),
        *((f"Classified {c.value}", n) for c, n in s.by_classification.items()),
        ("Undecided", s.undecided),
        (done, s.resolved if not report.dry_run else s.would_resolve),
        *(
            (("Resolvable, not applied", s.would_resolve - s.resolved),)
            if not report.dry_run
            else ()
        ),
        ("Errors", s.alert_errors + s.run_errors),
    ]
    lines = ["| | Alerts |", "|---|---:|", *(f"| {name} | {n} |" for name, n in rows), ""]
    if s.held:
        lines += ["**Held** (not resolved, by reason)", "", "| Reason | Alerts |", "|---|---:|"]
        lines += [f"| {hold.value} | {n} |" for hold, n in s.held.items()]
        lines.append("")
    return lines


def _resolution_row(alert: AlertOutcome) -> str:
    decision = alert.decision
    confidence = f"{decision.confidence:.1f}" if decision is not None else "-"
    resolution = alert.action.resolution.value if alert.action.resolution else "-"
    status = "applied" if alert.applied else ("failed" if alert.error else "planned")
    return (
        f"| {_alert_ref(alert)} | {_cell(alert.secret_type, 60)} | {resolution} | "
        f"{confidence} | {status} | {_cell(alert.action.detail)} |"
    )


def render_markdown(report: TriageReport, *, limit: int = SUMMARY_LIMIT) -> str:
    """The job summary: counts, what was or would be resolved, held counts, errors.

    Kept under ``limit`` bytes (GitHub's 1 MiB): rows that do not fit are left out
    with a note saying how many; the JSON report has every alert.
    """
    lines = [*_header(report), *_counts(report)]
    resolving = [a for a in report.alerts if a.action.kind is ActionKind.RESOLVE]
    failed = [a for a in report.alerts if a.error is not None]
    title = "Resolved" if not report.dry_run else "Would be resolved with --apply"
    sections: list[tuple[str, list[str], list[str]]] = [
        (
            f"### {title} ({len(resolving)})",
            [
                "| Alert | Secret type | Resolution | Confidence | Status | Why |",
                "|---|---|---|---:|---|---|",
            ],
            [_resolution_row(a) for a in resolving],
        ),
        (
            f"### Errors ({len(failed)})",
            ["| Alert | Error |", "|---|---|"],
            [f"| {_alert_ref(a)} | {_cell(a.error or '')} |" for a in failed],
        ),
    ]
    size = sum(len(line.encode()) + 1 for line in lines)
    budget = limit - _SUMMARY_RESERVE
    left_out = 0
    for heading, head_rows, rows in sections:
        if not rows:
            continue
        block = ["", heading, "", *head_rows]
        size += sum(len(line.encode()) + 1 for line in block)
        lines += block
        for index, row in enumerate(rows):
            cost = len(row.encode()) + 1
            if size + cost > budget:
                left_out += len(rows) - index
                break
            lines.append(row)
            size += cost
    if left_out:
        lines += [
            "",
            f"_{left_out} more rows are not shown (the summary is limited to 1 MiB); "
            "the JSON report has every alert._",
        ]
    return "\n".join(lines) + "\n"
