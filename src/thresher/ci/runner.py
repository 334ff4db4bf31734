"""The ``thresher ci`` use case: scan the event's scope, then tell GitHub in every way a
workflow step can: SARIF for code scanning, annotations, step outputs, the job summary
and the sticky pull-request comment.

The CLI resolves the runner environment, the scope and the trusted settings, and calls
:func:`run_ci` once. Every text that leaves the process is built from the redacted run
report, and is checked once more against the run's raw values before it is written:
a raw secret in a comment cannot be taken back.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from thresher import __version__
from thresher.ci.commands import (
    MAX_SUMMARY_BYTES,
    Annotation,
    CappedAnnotations,
    Level,
    append_summary,
    cap_annotations,
    write_outputs,
)
from thresher.ci.comment import CommentAction, CommentApi, CommentResult, post_sticky
from thresher.ci.event import CiEvent, RunnerEnv
from thresher.ci.scope import Scope, ScopeKind
from thresher.config.settings import Settings
from thresher.errors import ExitCode
from thresher.findings.model import FindingKind, Location
from thresher.findings.results import Verdict
from thresher.git.history import HistoryIndex
from thresher.reports import render_finding, render_json, render_sarif, render_summary
from thresher.reports.catalog import rule_name
from thresher.reports.io import write_atomic
from thresher.reports.vex import render_vex
from thresher.reports.views import by_risk, key_finding
from thresher.scan.observer import ScanObserver
from thresher.scan.outcome import FailOn, ScanRequest, at_or_above
from thresher.scan.run import run_scan
from thresher.scoring.policy import Escalate
from thresher.sources.dependencies import DepsOptions
from thresher.sources.scan import CustomRule
from thresher.tribunal.decisions import Decision, RunReport, RunSummary, RunUsage

_MIN_SCRUB = 6  # shorter "values" (e.g. "true") would only mangle the prose


@dataclass(frozen=True)
class CiRequest:
    fail_on: FailOn = FailOn.REAL
    escalate: Escalate = Escalate.UNCERTAIN
    comment: bool = True
    sarif: Path = Path("thresher.sarif")
    category: str = "thresher/secrets"
    json_out: Path | None = None
    markdown_out: Path | None = None
    vex_out: Path | None = None  # OpenVEX of the dependency decisions (with ``deps``)
    paths: tuple[Path, ...] = ()  # absolute, inside the workspace
    honour_pragmas: bool = True  # False in a pull-request job (see findings.engine)
    # --deps: also the dependencies the event adds or changes (the whole tree's on a push
    # without a range), triaged in the same run and reported in the same outputs.
    deps: DepsOptions | None = None


@dataclass
class CiOutcome:
    exit_code: ExitCode
    scope: Scope
    report: RunReport
    annotations: CappedAnnotations
    comment: CommentResult
    summary: str
    outputs: dict[str, str] = field(default_factory=dict)
    annotation_lines: list[str] = field(default_factory=list)  # workflow commands to print


class _CiLog(ScanObserver):
    """What the Action's log shows while the scan runs: how much history it read."""

    def __init__(self, info: Callable[[str], None]) -> None:
        self.info = info

    def history_read(self, history: HistoryIndex) -> None:
        self.info(history.stats.describe())


CommentClientFactory = Callable[[RunnerEnv], CommentApi]


def run_ci(
    request: CiRequest,
    runner: RunnerEnv,
    event: CiEvent,
    scope: Scope,
    settings: Settings,
    *,
    info: Callable[[str], None],
    comment_client: CommentClientFactory,
) -> CiOutcome:
    """Scan, write every output, and return what was done (the exit code per --fail-on)."""
    values: list[str] = []
    if scope.kind is ScopeKind.NOTHING:
        report = empty_report(request.escalate)
        exit_code = ExitCode.OK
    else:
        outcome = run_scan(
            ScanRequest(
                root=runner.workspace,
                paths=request.paths,
                diff=scope.diff,
                escalate=request.escalate,
                fail_on=request.fail_on,
                honour_pragmas=request.honour_pragmas,
                deps=request.deps,
                max_tokens_per_finding=settings.budget.max_tokens_per_finding,
                custom_rules=tuple(CustomRule.of(rule) for rule in settings.rules),
            ),
            settings,
            observer=_CiLog(info),
        )
        report, exit_code = outcome.report, outcome.exit_code
        values = [v for v in outcome.scan.vault.values() if len(v) >= _MIN_SCRUB]

    def clean(text: str) -> str:
        return scrub(text, values)

    write_atomic(request.sarif, clean(render_sarif(report, category=request.category)))
    if request.json_out is not None:
        write_atomic(request.json_out, clean(render_json(report)))
    vex_written = False
    if request.vex_out is not None:
        vex = render_vex(report)
        if vex is None:
            info(f"thresher: no dependency decisions; {request.vex_out} not written")
        else:
            write_atomic(request.vex_out, clean(vex))
            vex_written = True

    annotations = cap_annotations(annotations_for(report, request.fail_on))

    comment = _comment(request, runner, event, report, comment_client)
    summary = clean(job_summary(report, scope, annotations, comment))
    if request.markdown_out is not None:
        write_atomic(request.markdown_out, summary)
    if runner.step_summary is not None:
        append_summary(runner.step_summary, summary)
    produced = step_outputs(request, report, exit_code, comment, vex_written=vex_written)
    outputs = {k: clean(v) for k, v in produced.items()}
    if runner.output is not None:
        write_outputs(runner.output, outputs)
    if comment.note:
        info(f"thresher: {comment.note}")
    lines = [clean(line) for line in annotations.lines()]
    return CiOutcome(exit_code, scope, report, annotations, comment, summary, outputs, lines)


def _comment(
    request: CiRequest,
    runner: RunnerEnv,
    event: CiEvent,
    report: RunReport,
    factory: CommentClientFactory,
) -> CommentResult:
    pr = event.pull_request
    if pr is None or not request.comment:
        return CommentResult(CommentAction.DISABLED)
    if runner.token is None:
        return CommentResult(
            CommentAction.SKIPPED,
            note="The pull-request comment was skipped: GITHUB_TOKEN is not set for this step.",
        )
    from thresher.github.errors import GitHubError

    try:
        client = factory(runner)
        try:
            return post_sticky(client, runner.repository, pr.number, report, head_sha=pr.head_sha)
        finally:
            close = getattr(client, "close", None)
            if callable(close):
                close()
    except GitHubError as exc:
        # The scan's verdict stands without the comment; the summary and log say why.
        reason = " ".join(f"{exc.message} {exc.hint or ''}".split())[:400].replace("`", "'")
        return CommentResult(
            CommentAction.FAILED, note=f"The pull-request comment could not be posted: {reason}"
        )


def annotations_for(report: RunReport, fail_on: FailOn) -> list[Annotation]:
    """An error for each finding that fails the run, a warning for each other finding that
    is not a false positive; riskiest first, so the cap keeps what matters most."""
    out: list[Annotation] = []
    for decision in by_risk(report.decisions):
        if at_or_above(decision, fail_on):
            level = Level.ERROR
        elif decision.verdict is not Verdict.FALSE_POSITIVE:
            level = Level.WARNING
        else:
            continue
        out.append(_annotation(decision, level))
    return out


def _annotation(decision: Decision, level: Level) -> Annotation:
    finding = decision.finding
    first = finding.locations[0]
    more = len(finding.locations) - 1
    message = f"{finding.redacted}: {key_finding(decision)}"
    if more:
        message += f" (and {more} more location(s))"
    # A dependency's rule is its advisory's id, kept as OSV spells it (GHSA-…, CVE-…).
    rule = finding.rule_id if finding.kind is FindingKind.DEPENDENCY else rule_name(finding.rule_id)
    return Annotation(
        level=level,
        title=f"thresher {rule}: {decision.verdict.value} ({decision.classification.value})",
        message=message,
        file=first.path if isinstance(first, Location) else None,
        line=first.line if isinstance(first, Location) else None,
    )


def job_summary(
    report: RunReport, scope: Scope, annotations: CappedAnnotations, comment: CommentResult
) -> str:
    """The summary, what was scanned, notes, then per-finding reports while they fit 1 MiB."""
    notes = [f"**Scanned:** {scope.description}."]
    if comment.note:
        notes.append(f"> 💬 {comment.note}")
    cap = annotations.note()
    if cap:
        notes.append(f"> ✂️ {cap[0].upper()}{cap[1:]}.")
    text = render_summary(report).rstrip()
    cut = text.rfind("\n<sub>")  # the usage footer stays last
    body, foot = (text[:cut], text[cut:]) if cut > 0 else (text, "")
    head = body.rstrip() + "\n\n" + "\n\n".join(notes) + "\n" + foot + "\n"
    budget = MAX_SUMMARY_BYTES - 4096  # room for the note below
    parts = [head]
    used = len(head.encode("utf-8"))
    escalated = [d for d in report.decisions if d.escalated]
    for index, decision in enumerate(escalated):
        text = "\n" + render_finding(decision).rstrip() + "\n"
        if used + len(text.encode("utf-8")) > budget:
            parts.append(
                f"\n> ✂️ {len(escalated) - index} finding report(s) left out to stay under "
                "GitHub's 1 MiB job-summary limit; the JSON report has them.\n"
            )
            break
        parts.append(text)
        used += len(text.encode("utf-8"))
    return "".join(parts)


def step_outputs(
    request: CiRequest,
    report: RunReport,
    exit_code: ExitCode,
    comment: CommentResult,
    *,
    vex_written: bool = False,
) -> dict[str, str]:
    """The step's outputs; a file output is empty when that file was not written."""
    s = report.summary
    failing = sum(1 for d in report.decisions if at_or_above(d, request.fail_on))
    return {
        "findings": str(s.findings),
        "true-positive": str(s.true_positive),
        "inconclusive": str(s.inconclusive),
        "false-positive": str(s.false_positive),
        "failing": str(failing),
        "exit-code": str(int(exit_code)),
        "sarif": str(request.sarif),
        "json": str(request.json_out or ""),
        "markdown": str(request.markdown_out or ""),
        "vex": str(request.vex_out) if vex_written and request.vex_out is not None else "",
        "comment": comment.action.value,
        "comment-url": comment.url or "",
    }


def scrub(text: str, values: Iterable[str]) -> str:
    """Last line of defence: no raw value of this run leaves in any output."""
    for value in sorted(set(values), key=len, reverse=True):
        if value in text:
            text = text.replace(value, "[redacted]")
    return text


def empty_report(escalate: Escalate) -> RunReport:
    """The report of a run with nothing to scan (a deleted branch): valid, empty outputs."""
    now = datetime.now(UTC)
    return RunReport(
        tool_version=__version__,
        run_id=now.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3),
        started_at=now,
        finished_at=now,
        escalate=escalate.value,
        analyses=0,
        models={},
        summary=RunSummary(),
        usage=RunUsage(),
        decisions=(),
    )
