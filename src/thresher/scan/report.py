"""Stage 6 of a scan: the run report, redacted once, written as ``report.json``.

``report.json`` and every renderer work from this one redacted copy. Each decision
was redacted for the journal already; that copy, and its journal line, are reused
unless they may hold a value learned after they were made (see
``thresher.tribunal.journal``).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from thresher import __version__
from thresher.scan.decide import Triaged
from thresher.scan.deps import dependency_summary, lockfile_errors
from thresher.scan.files import RunDirError
from thresher.scan.gather import Gathered
from thresher.scan.outcome import ScanOutcome, dry_run_plan, exit_code_for, run_errors, summarise
from thresher.scan.setup import RunSetup
from thresher.tribunal.decisions import HistorySummary, RunReport, RunUsage, ScanSummary
from thresher.tribunal.reported import report_parts


def report(setup: RunSetup, gathered: Gathered, triaged: Triaged) -> ScanOutcome:
    """Stage 6: the run report and the outcome the caller prints, writes and exits by."""
    request, decisions, deps = setup.request, triaged.decisions, gathered.dependencies
    plan = dry_run_plan(decisions, setup.specs, triaged.estimates) if request.dry_run else []
    usage = triaged.usage
    run_report = RunReport(
        tool_version=__version__,
        run_id=setup.run_id,
        started_at=setup.started_at,
        finished_at=datetime.now(UTC),
        dry_run=request.dry_run,
        escalate=request.escalate.value,
        analyses=request.analyses,
        models=dict(sorted(setup.specs.items())),  # as render_json orders them
        summary=summarise(decisions),
        usage=RunUsage(
            requests=usage.requests,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cached_input_tokens=usage.cached_input_tokens,
            wall_seconds=round(time.perf_counter() - setup.clock, 3),
            agents={agent.value: spent for agent, spent in triaged.by_agent.items()},
        ),
        decisions=(),
        errors=run_errors(decisions, setup.deadline) + lockfile_errors(deps),
        scan=ScanSummary.of(gathered.scan.stats),
        history=HistorySummary.of(gathered.history.stats),
        dependencies=dependency_summary(deps, request.diff) if deps is not None else None,
    )
    journal = triaged.journal
    final = journal.final(decisions)
    run_report = journal.redactor.model(run_report).model_copy(
        update={"decisions": tuple(decision for decision, _ in final)}
    )
    parts = report_parts(run_report, journal.lines(final))
    path = setup.run_dir / "report.json"
    try:
        with path.open("wb") as handle:
            handle.writelines(parts)
    except OSError as exc:
        raise RunDirError(
            f"cannot write {path}: {exc.strerror or exc}",
            hint="check free space and permissions of the run directory",
        ) from exc
    return ScanOutcome(
        report=run_report,
        exit_code=exit_code_for(
            decisions, request.fail_on, incomplete=deps is not None and bool(deps.errors)
        ),
        run_dir=setup.run_dir,
        scan=gathered.scan,
        plan=plan,
        dependencies=deps,
    )
