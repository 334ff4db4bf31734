"""Stage 5 of a scan: the tribunal decides every finding, and the journal keeps each.

Decisions are appended to ``decisions.jsonl`` in the run directory as they are made,
so a run that fails half-way keeps what it decided. A run no model can take part in
decides its findings in this process and worker processes (``thresher.tribunal.parallel``),
with the journal and the offline record written here, in order; any other run decides them in
this process, at most ``concurrency`` at once.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from thresher.agents.budget import UsageLimits, UsageMeter
from thresher.agents.estimate import SessionEstimate, estimate_plan
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName
from thresher.findings import Finding, FindingKind
from thresher.findings.results import Verdict
from thresher.llm.messages import Usage
from thresher.redaction.redactor import Redactor
from thresher.reports.markdown import MAX_ROWS
from thresher.reports.views import RiskKey, risk_key
from thresher.scan.assess import Assessed, is_public_word
from thresher.scan.files import open_offline_record
from thresher.scan.gather import Gathered
from thresher.scan.models import close_models
from thresher.scan.observer import ScanObserver
from thresher.scan.setup import RunSetup
from thresher.tribunal.decisions import Decision
from thresher.tribunal.journal import DecisionJournal
from thresher.tribunal.offline import OfflineRecordError
from thresher.tribunal.parallel import Decided, decide_in_workers
from thresher.tribunal.tribunal import Tribunal, TribunalOptions
from thresher.validators import ValidatorRegistry


class PanelShown:
    """Which decisions a report shows with their panel, so the run keeps them whole.

    SARIF, the annotations and Markdown's findings read the winning report of every
    decision that needs action, and of every escalated one; Markdown's summary reads
    it for the first ``MAX_ROWS`` dismissed findings, riskiest first (``by_risk``).
    A dependency's view reads its panel too. Any other dismissed decision is shown by
    no report with its panel (the JSON report never writes an offline panel), so the
    run keeps it without one (``DecisionJournal``). A decision is kept whole while it
    is among the first ``MAX_ROWS`` dismissed ones so far, so every one the summary
    lists is whole.
    """

    def __init__(self, rows: int = MAX_ROWS) -> None:
        self._rows = rows
        self._first: list[RiskKey] = []  # the first ``rows`` dismissed so far, in order

    def __call__(self, decision: Decision) -> bool:
        escalation = decision.escalation
        if (
            decision.verdict is not Verdict.FALSE_POSITIVE
            or decision.escalated
            or decision.finding.kind is not FindingKind.SECRET
            or (escalation is not None and escalation.would_escalate)
        ):
            return True
        key = risk_key(decision)
        if len(self._first) >= self._rows and key >= self._first[-1]:
            return False
        bisect.insort(self._first, key)
        del self._first[self._rows :]
        return True


@dataclass(frozen=True)
class Triaged:
    """What stage 5 hands the report: every decision, in the order of the findings."""

    decisions: list[Decision]  # as the journal keeps them (``PanelShown``)
    usage: Usage  # every request the run sent, also those that failed or stopped it
    journal: DecisionJournal  # the redacted copy of each decision, and the redactor
    by_agent: dict[AgentName, Usage] = field(default_factory=dict)  # the same, per agent
    # --dry-run: what each agent's sessions would send per escalated finding.
    estimates: dict[AgentName, SessionEstimate] = field(default_factory=dict)


def decide(
    setup: RunSetup,
    gathered: Gathered,
    assessed: Assessed,
    journal: TextIO,
    observer: ScanObserver,
) -> Triaged:
    """Stage 5: decide every finding, journaling each and telling ``observer``; the
    models are closed and ``journal`` (``decisions.jsonl``) too when it returns."""
    request = setup.request
    run_meter = UsageMeter(
        UsageLimits(max_requests=request.max_requests, max_total_tokens=request.max_tokens), "run"
    )
    redactor = Redactor(
        (v for v in gathered.scan.vault.values() if not is_public_word(v)),
        detector=setup.detector,
    )
    tribunal = _tribunal(setup, gathered, assessed, redactor, run_meter)
    decisions_journal = DecisionJournal(journal, redactor, panel_shown=PanelShown())
    findings = gathered.findings
    workers = assessed.workers
    record = open_offline_record(setup.run_dir / "offline.jsonl") if workers else None
    try:
        if record is not None:
            try:

                def prepare(share: Sequence[Finding]) -> None:
                    secrets_ = [f for f in share if f.kind is FindingKind.SECRET]
                    tribunal.assessments = {**tribunal.assessments, **assessed.of(secrets_)}

                decisions = _decide_in_workers(
                    tribunal,
                    (findings, gathered.value_of),
                    decisions_journal,
                    record,
                    workers,
                    observer,
                    prepare,
                )
            finally:
                record.close()
                setup.close_models()
        else:
            if workers:  # the record cannot be opened: the serial loop reports it per finding
                tribunal.assessments = assessed.of()
            # Opened once for the run: opening it for each finding was a quarter of the
            # record's time on the dev corpus. One that cannot be opened is reported
            # per finding.
            record = None if workers else open_offline_record(setup.run_dir / "offline.jsonl")
            if record is not None:
                tribunal.offline_panel.sink = _record_sink(record)
            try:
                decisions = asyncio.run(
                    _decide_here(setup, tribunal, gathered, decisions_journal, observer)
                )
            finally:
                tribunal.offline_panel.sink = None
                if record is not None:
                    record.close()
    finally:
        journal.close()
    estimates: dict[AgentName, SessionEstimate] = {}
    if request.dry_run:
        escalated = [d.finding for d in decisions if d.escalation and d.escalation.would_escalate]
        estimates = estimate_plan(tribunal.factory, escalated, request.analyses)
    by_agent = {agent: meter.usage for agent, meter in tribunal.factory.agent_meters.items()}
    return Triaged(decisions, run_meter.usage, decisions_journal, by_agent, estimates)


def _record_sink(record: TextIO) -> Callable[[str], None]:
    """Where the offline panel writes its ``offline.jsonl`` lines in a serial run: the
    record opened once. A line that cannot be written fails its finding, as when the
    panel opened the file itself (``OfflinePanel._write``)."""

    def write(line: str) -> None:
        try:
            record.write(line + "\n")
            record.flush()
        except OSError as exc:
            raise OfflineRecordError.writing(record.name, exc) from exc

    return write


def _tribunal(
    setup: RunSetup,
    gathered: Gathered,
    assessed: Assessed,
    redactor: Redactor,
    run_meter: UsageMeter,
) -> Tribunal:
    request, deps = setup.request, gathered.dependencies
    factory = SessionFactory(
        settings=setup.settings,
        redactor=redactor,
        run_meter=run_meter,
        finding_limits=UsageLimits(max_total_tokens=request.max_tokens_per_finding),
        validators=ValidatorRegistry.default(live=request.verify_live and not request.dry_run),
        workspace=Workspace(
            request.root,
            value_for=gathered.scan.vault.get,
            redact=redactor.text,
            history=gathered.history,
        ),
        transcripts_dir=setup.run_dir / "transcripts",
        catalog=deps.catalog if deps is not None else None,
    )
    return Tribunal(
        factory,
        setup.models,
        TribunalOptions(
            escalate=request.escalate,
            analyses=request.analyses,
            concurrency=request.concurrency,
            band=request.band,
            deadline=setup.deadline,
        ),
        assessments=assessed.assessments,
        scorer=assessed.scorer,
        offline_record=setup.run_dir / "offline.jsonl",
        validated=assessed.validations,
    )


async def _decide_here(
    setup: RunSetup,
    tribunal: Tribunal,
    gathered: Gathered,
    journal: DecisionJournal,
    observer: ScanObserver,
) -> list[Decision]:
    """The findings decided in this process; the models closed after the last."""

    def decided(decision: Decision) -> Decision:
        kept = journal.write(decision)
        observer.decided(decision)
        return kept

    try:
        return await tribunal.decide_all(gathered.findings, gathered.value_of, decided)
    finally:
        await close_models(setup.models)


def _decide_in_workers(
    tribunal: Tribunal,
    candidates: tuple[Sequence[Finding], Callable[[str], str | None]],
    journal: DecisionJournal,
    record: TextIO,
    workers: int,
    observer: ScanObserver,
    prepare: Callable[[Sequence[Finding]], None],
) -> list[Decision]:
    """The findings decided by worker processes; journal and record written here, in order."""
    redactor = journal.redactor
    known = redactor.known  # what every worker knows when it forks

    def decided(done: Decided) -> Decision:
        try:
            record.writelines(line + "\n" for line in done.records)
        except OSError as exc:
            raise OfflineRecordError.writing(record.name, exc) from exc
        kept = journal.write_redacted(
            done.decision, done.redacted, done.line, done.exact, known=known
        )
        observer.decided(done.decision)
        return kept

    findings, value_of = candidates
    return decide_in_workers(
        tribunal,
        findings,
        value_of,
        decided,
        workers=workers,
        learn=redactor.add,
        prepare=prepare,
        here=True,
    )
