"""The scan use case: candidates -> tribunal -> decisions -> run report.

The CLI builds a frozen ``ScanRequest`` and calls ``run_scan`` once; everything
it needs to print or write comes back in a ``ScanOutcome``. Decisions are
appended to ``decisions.jsonl`` in the run directory as they are made, so a run
that fails half-way keeps what it decided.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from thresher import __version__
from thresher.agents.budget import UsageLimits, UsageMeter
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config.settings import Settings
from thresher.findings import Finding, FindingKind
from thresher.git.history import HistoryIndex
from thresher.redaction.detector import Detector
from thresher.redaction.redactor import Redactor
from thresher.scan.assess import _scan_secrets, assess, build_history, is_public_word
from thresher.scan.deps import _lockfile_errors, _values, dependency_summary
from thresher.scan.files import RunDirError, _offline_record, open_journal
from thresher.scan.models import _decide_in_workers, _forked, close_models, resolve_models
from thresher.scan.outcome import (
    ScanOutcome,
    ScanRequest,
    _plan,
    _run_errors,
    exit_code_for,
    summarise,
)
from thresher.scoring.model import Scorer, shipped_scorer
from thresher.sources.dependencies import DependencyScan, scan_dependencies
from thresher.sources.scan import ScanResult
from thresher.tribunal.decisions import (
    Decision,
    HistorySummary,
    RunReport,
    RunUsage,
    ScanSummary,
)
from thresher.tribunal.fallbacks import Deadline
from thresher.tribunal.journal import DecisionJournal, dumped
from thresher.tribunal.parallel import workers_for
from thresher.tribunal.tribunal import Tribunal, TribunalOptions
from thresher.validators import ValidatorRegistry


def run_scan(
    request: ScanRequest,
    settings: Settings,
    *,
    environ: Mapping[str, str] | None = None,
    on_scanned: Callable[[ScanResult], None] | None = None,
    on_decided: Callable[[Decision], None] | None = None,
    scorer: Scorer | None = None,
    on_history: Callable[[HistoryIndex], None] | None = None,
    offline_workers: int | None = None,
    on_dependencies: Callable[[DependencyScan], None] | None = None,
) -> ScanOutcome:
    """Scan, decide every finding, and build the run report (see the module docstring).

    ``scorer`` replaces the shipped offline scorer (``thresher eval --folds`` passes one
    trained without the repositories it scores). A run no model can take part in
    decides its findings in worker processes (``thresher.tribunal.parallel``);
    ``offline_workers`` sets how many (0: in this process; None: by size and cores).
    """
    started_at = datetime.now(UTC)
    clock = time.perf_counter()
    deadline = Deadline.after(request.timeout) if request.timeout is not None else None
    # Built first: a custom rule RE2 cannot run for redaction stops the run before it starts.
    detector = Detector([(r.id, r.pattern) for r in request.custom_rules], is_public=is_public_word)
    models, specs = resolve_models(settings, environ, dry_run=request.dry_run)
    run_id = started_at.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    run_dir = (
        Path.cwd() / request.runs_dir / run_id
        if not request.runs_dir.is_absolute()
        else request.runs_dir / run_id
    )
    try:
        result = _scan_secrets(request)
        if on_scanned is not None and request.secrets:
            on_scanned(result)
        deps = (
            scan_dependencies(request.root, request.deps, diff=request.diff)
            if request.deps is not None
            else None
        )
        if on_dependencies is not None and deps is not None:
            on_dependencies(deps)
        findings = result.findings + (deps.findings if deps is not None else ())
        value_of = _values(result.vault, deps)
        history = build_history(result, request)
        if on_history is not None:
            on_history(history)
        scorer = scorer or shipped_scorer()
        # Decided in worker processes, each finding is assessed by the worker that
        # decides it: the scorer's contexts are a second pass over every finding.
        forked = _forked(models, request, deadline)
        workers = workers_for(len(findings), offline_workers) if forked else 0
        assessments = {} if workers else assess(result, request.root, scorer)
        journal = open_journal(
            run_dir, relative_to=None if request.runs_dir.is_absolute() else Path.cwd()
        )
    except BaseException:
        asyncio.run(close_models(models))  # the triage that would close them never starts
        raise
    run_meter = UsageMeter(
        UsageLimits(max_requests=request.max_requests, max_total_tokens=request.max_tokens), "run"
    )
    redactor = Redactor(
        (v for v in result.vault.values() if not is_public_word(v)), detector=detector
    )
    factory = SessionFactory(
        settings=settings,
        redactor=redactor,
        run_meter=run_meter,
        validators=ValidatorRegistry.default(live=request.verify_live and not request.dry_run),
        workspace=Workspace(
            request.root, value_for=result.vault.get, redact=redactor.text, history=history
        ),
        transcripts_dir=run_dir / "transcripts",
        catalog=deps.catalog if deps is not None else None,
    )
    tribunal = Tribunal(
        factory,
        models,
        TribunalOptions(
            escalate=request.escalate,
            analyses=request.analyses,
            concurrency=request.concurrency,
            band=request.band,
            deadline=deadline,
        ),
        assessments=assessments,
        scorer=scorer,
        offline_record=run_dir / "offline.jsonl",
    )

    decisions_journal = DecisionJournal(journal, redactor)

    def decided(decision: Decision) -> None:
        decisions_journal.write(decision)
        if on_decided is not None:
            on_decided(decision)

    async def triage() -> list[Decision]:
        try:
            return await tribunal.decide_all(findings, value_of, decided)
        finally:
            await close_models(models)

    record = _offline_record(run_dir / "offline.jsonl") if workers else None
    try:
        if record is not None:
            try:

                def prepare(share: Sequence[Finding]) -> None:
                    secrets_ = [f for f in share if f.kind is FindingKind.SECRET]
                    tribunal.assessments.update(assess(result, request.root, scorer, secrets_))

                decisions = _decide_in_workers(
                    tribunal,
                    (findings, value_of),
                    decisions_journal,
                    record,
                    workers,
                    on_decided,
                    prepare,
                )
            finally:
                record.close()
                asyncio.run(close_models(models))
        else:
            if workers:  # the record cannot be opened: the serial loop reports it per finding
                tribunal.assessments.update(assess(result, request.root, scorer))
            decisions = asyncio.run(triage())
    finally:
        journal.close()
    plan = _plan(decisions, specs, request) if request.dry_run else []
    usage = run_meter.usage  # every request sent, also those that failed or stopped the run
    report = RunReport(
        tool_version=__version__,
        run_id=run_id,
        started_at=started_at,
        finished_at=datetime.now(UTC),
        dry_run=request.dry_run,
        escalate=request.escalate.value,
        analyses=request.analyses,
        models=dict(sorted(specs.items())),  # as render_json orders them
        summary=summarise(decisions),
        usage=RunUsage(
            requests=usage.requests,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            wall_seconds=round(time.perf_counter() - clock, 3),
        ),
        decisions=(),
        errors=_run_errors(decisions, deadline) + _lockfile_errors(deps),
        scan=ScanSummary.of(result.stats),
        history=HistorySummary.of(history.stats),
        dependencies=dependency_summary(deps, request.diff) if deps is not None else None,
    )
    # Redacted once: report.json and every renderer work from this one copy. Each
    # decision was redacted for the journal already; that copy is reused unless it may
    # hold a value learned after it was made (see thresher.tribunal.journal).
    report = redactor.model(report).model_copy(
        update={"decisions": decisions_journal.redacted(decisions)}
    )
    report_json = dumped(report, indent=2)[0] + "\n"
    try:
        (run_dir / "report.json").write_text(report_json, encoding="utf-8")
    except OSError as exc:
        raise RunDirError(
            f"cannot write {run_dir / 'report.json'}: {exc.strerror or exc}",
            hint="check free space and permissions of the run directory",
        ) from exc
    return ScanOutcome(
        report=report,
        exit_code=exit_code_for(
            decisions, request.fail_on, incomplete=deps is not None and bool(deps.errors)
        ),
        run_dir=run_dir,
        scan=result,
        plan=plan,
        dependencies=deps,
        report_json=report_json,
    )
