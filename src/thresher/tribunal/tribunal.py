"""The tribunal: heuristic first, LLM agents when it is not decisive, guardrails last.

Per finding: deterministic validators -> the heuristic tribunal (analysis,
challenger, judge on ``heuristic:default``, computed directly by ``OfflinePanel``
with the same tool calls and rules: one record line instead of three transcripts)
-> the LLM tribunal per ``--escalate`` through real agent sessions (N concurrent
analyses, one challenger per report, one judge over all, with compliance and
deterministic checks) -> guardrails.

Fail closed: only a complete panel — a judgement over reports that were all
challenged — may replace the offline decision. When any LLM session fails, the
run budget runs out or a provider's circuit is open, the offline decision stands
and the typed errors travel with it (the CLI exits 3). A run deadline that
expires leaves every finding not yet decided INCONCLUSIVE, assumed real.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thresher.agents.loop import SessionOutcome
from thresher.agents.sessions import SessionFactory
from thresher.config.settings import AgentName
from thresher.errors import ExitCode, ThresherError
from thresher.findings import Finding, FindingKind
from thresher.findings.results import (
    JudgeResult,
    Verdict,
    label_for,
)
from thresher.heuristic.model import HeuristicModel
from thresher.llm.errors import BudgetExceeded
from thresher.llm.messages import Usage
from thresher.llm.model import Model
from thresher.scoring.model import Assessment, Scorer, shipped_operating_point
from thresher.scoring.policy import (
    Band,
    Escalate,
    Escalation,
    OfflineCall,
    escalation_for,
    offline_call,
)
from thresher.tribunal.checks import (
    Guarded,
    apply_dependency_guardrails,
    apply_guardrails,
    best_entry,
    check_report,
)
from thresher.tribunal.decisions import DecidedBy, Decision, DecisionError, ReportEntry
from thresher.tribunal.fallbacks import (
    Deadline,
    Panel,
    complete,
    dependency_escalation,
    offline_stands,
    undecided,
    valid_judgement,
)
from thresher.tribunal.offline import OfflinePanel
from thresher.validators.base import ValidationResult

_SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


@dataclass(frozen=True)
class TribunalOptions:
    escalate: Escalate = Escalate.UNCERTAIN
    analyses: int = 1
    concurrency: int = 4
    band: Band | None = None  # None: the scorer's cross-validated band
    deadline: Deadline | None = None


async def _all(
    *sessions: Awaitable[SessionOutcome[Any] | None],
) -> list[SessionOutcome[Any] | None]:
    """``gather``, but when one raises (the run budget ran out) the others are cancelled
    instead of going on spending requests whose results nobody will read."""
    tasks = [asyncio.ensure_future(s) for s in sessions]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


class Tribunal:
    def __init__(
        self,
        factory: SessionFactory,
        models: Mapping[AgentName, Model],
        options: TribunalOptions,
        *,
        assessments: Mapping[str, Assessment] | None = None,
        scorer: Scorer | None = None,
        offline_record: Path | None = None,
        validated: Mapping[str, tuple[ValidationResult, ...]] | None = None,
    ) -> None:
        """``offline_record``: the file (``offline.jsonl``) that gets one line per finding
        the offline panel decided; ``None`` keeps no record. ``validated``: the offline
        validators' results of the findings' values (the scorer's assessment made them),
        reused when the factory's validators are those offline ones."""
        self.factory = factory
        self.models = dict(models)
        self.options = options
        self.heuristic = HeuristicModel()
        self.offline_panel = OfflinePanel(factory, offline_record)
        # Kept as given: a scan's may still be coming in (``thresher.scoring.beside``).
        self.assessments: Mapping[str, Assessment] = {} if assessments is None else assessments
        offline = factory.validators.offline_only()
        self._validated: Mapping[str, tuple[ValidationResult, ...]] = (
            validated if validated is not None and offline else {}
        )
        self.point = scorer.operating_point if scorer is not None else shipped_operating_point()
        self.band = options.band or Band.of(self.point)

    @property
    def llm_configured(self) -> bool:
        return any(not model.offline for model in self.models.values())

    async def decide_all(
        self,
        findings: Sequence[Finding],
        value_of: Callable[[str], str | None],
        on_decided: Callable[[Decision], Decision | None] | None = None,
    ) -> list[Decision]:
        """Decide every finding, highest risk first, at most ``concurrency`` at once.

        ``on_decided`` gets each decision as it is made; what it returns, when not
        None, is what this keeps and returns in its place (the scan's journal keeps a
        dismissed decision without its panel)."""
        ordered = self.order(findings)
        gate = asyncio.Semaphore(max(1, self.options.concurrency))

        async def one(finding: Finding) -> Decision:
            async with gate:
                decision = await self.decide_one(finding, value_of)
            if on_decided is not None:
                return on_decided(decision) or decision
            return decision

        if not findings:
            return []
        self.offline_panel.expect(findings)
        tasks = {asyncio.ensure_future(one(f)): f for f in ordered}
        deadline = self.options.deadline
        done, pending = await asyncio.wait(
            tasks,
            timeout=deadline.remaining() if deadline is not None else None,
            return_when=asyncio.FIRST_EXCEPTION,
        )
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            if task.exception() is not None:
                raise task.exception()  # type: ignore[misc]  # a configuration error: stop
        by_id = {d.finding.id: d for d in (task.result() for task in done)}
        for task in pending:
            assert deadline is not None  # only a deadline leaves tasks pending
            expired = self._expired(tasks[task], deadline)
            if on_decided is not None:
                expired = on_decided(expired) or expired
            by_id[expired.finding.id] = expired
        return [by_id[f.id] for f in findings]

    @staticmethod
    def order(findings: Sequence[Finding]) -> list[Finding]:
        """The order findings are decided (and journaled) in: highest risk first."""
        return sorted(findings, key=lambda f: (_SEVERITY_ORDER[f.severity.value], f.id))

    async def decide_one(self, finding: Finding, value_of: Callable[[str], str | None]) -> Decision:
        """``decide``, where a failure is the finding's typed error, not the run's."""
        try:
            return await self.decide(finding, value_of(finding.id))
        except ThresherError as exc:
            if exc.exit_code is ExitCode.USAGE:
                raise  # a configuration error fails every finding: stop the run
            return self._failed(finding, "decide", exc)
        except Exception as exc:  # a bug in one finding must not end the run
            return self._failed(finding, "internal", exc)

    def _expired(self, finding: Finding, deadline: Deadline) -> Decision:
        """The run deadline came first: INCONCLUSIVE, assumed real or affected, and said why."""
        message = f"the run deadline (--timeout {deadline.seconds:g} s) expired first"
        return undecided(
            f"not decided: {message}",
            DecidedBy.HEURISTIC,
            finding=finding,
            errors=(DecisionError(stage="deadline", error="RunDeadlineExceeded", message=message),),
        )

    def _failed(self, finding: Finding, stage: str, exc: Exception) -> Decision:
        """INCONCLUSIVE with the typed error; the run goes on and exits 3."""
        error = DecisionError(stage=stage, error=type(exc).__name__, message=str(exc))
        return undecided(
            f"triage failed: {type(exc).__name__}",
            DecidedBy.HEURISTIC,
            finding=finding,
            errors=(error,),
        )

    def offline(
        self, finding: Finding, validations: tuple[ValidationResult, ...]
    ) -> tuple[OfflineCall | None, Escalation]:
        """The offline call and what the escalation policy says about it.

        The calibrated scorer judges secrets only: a dependency finding has no
        assessment and no offline call; its escalation follows the heuristic panel
        (``dependency_escalation``)."""
        if finding.kind is FindingKind.DEPENDENCY:
            return None, Escalation(
                policy=self.options.escalate,
                would_escalate=self.options.escalate is not Escalate.NEVER,
                reason="a dependency finding: the heuristic decides only clear cases",
            )
        assessment = self.assessments.get(finding.id)
        if assessment is None:
            would = self.options.escalate is not Escalate.NEVER
            return None, Escalation(
                policy=self.options.escalate,
                would_escalate=would,
                reason="no offline assessment (the value or its line is unavailable)",
            )
        call = offline_call(assessment, validations, self.point)
        return call, escalation_for(call, assessment, self.options.escalate, self.band)

    async def decide(self, finding: Finding, value: str | None) -> Decision:
        validators = self.factory.validators
        secret = finding.kind is FindingKind.SECRET
        validations: tuple[ValidationResult, ...] = ()
        if value and secret:
            known = self._validated.get(finding.id)
            if known is None:
                known = tuple(await validators.validate_async(value, finding))
            validations = known
        call, escalation = self.offline(finding, validations)
        assessment = self.assessments.get(finding.id) if secret else None
        # The heuristic panel without replaying its sessions (see tribunal.offline).
        heuristic = self.offline_panel.decide(finding, value, validations, (assessment, call))
        decision = self._conclude(
            finding, heuristic, validations, DecidedBy.HEURISTIC, escalated=False
        )
        if not secret:
            escalation = dependency_escalation(self.options.escalate, decision)
        decision = decision.model_copy(update={"escalation": escalation, "assessment": assessment})
        if decision.errors and not escalation.would_escalate:
            escalation = Escalation(
                policy=self.options.escalate,
                would_escalate=self.options.escalate is not Escalate.NEVER,
                reason="the offline panel failed; see errors",
            )
            decision = decision.model_copy(update={"escalation": escalation})
        escalate = self.llm_configured and escalation.would_escalate
        if self.options.escalate is Escalate.NEVER:
            escalate = False
        if not escalate:
            return decision
        try:
            panel = await self.session_panel(
                finding,
                value,
                self.models,
                "llm",
                analyses=self.options.analyses,
                offline=(assessment, call),
            )
        except BudgetExceeded as exc:
            # Checked before each request, so nothing past the limit was sent; what the
            # finding's sessions did send is on its meter.
            error = DecisionError(
                stage="escalation", error=type(exc).__name__, message=f"not escalated: {exc}"
            )
            spent = self.factory.finding_meter(finding.id).usage
            return decision.model_copy(
                update={
                    "errors": (*decision.errors, error),
                    "usage": decision.usage + spent,
                    "rationale": f"{decision.rationale} [the LLM tribunal stopped at the "
                    f"{exc.scope} {exc.what} limit; the offline decision stands]",
                }
            )
        panel.usage = panel.usage + decision.usage
        if not complete(panel):
            return offline_stands(decision, panel)
        return self._conclude(
            finding, panel, validations, DecidedBy.TRIBUNAL, escalated=True
        ).model_copy(update={"escalation": escalation, "assessment": assessment})

    def heuristic_models(self) -> dict[AgentName, Model]:
        """Every agent on the heuristic: the panel ``OfflinePanel`` computes directly."""
        return dict.fromkeys(AgentName, self.heuristic)

    async def _run(
        self, session: Awaitable[SessionOutcome[Any]], stage: str, errors: list[DecisionError]
    ) -> SessionOutcome[Any] | None:
        """A failed session becomes a typed error; an exhausted run budget stops escalation.

        A session that hits its own (per-session) limit is one failed session, like
        any other: the panel's other reports still count.
        """
        try:
            return await session
        except ThresherError as exc:
            if isinstance(exc, BudgetExceeded) and exc.scope != "session":
                raise
            errors.append(DecisionError(stage=stage, error=type(exc).__name__, message=str(exc)))
            return None

    async def session_panel(
        self,
        finding: Finding,
        value: str | None,
        models: Mapping[AgentName, Model],
        tag: str,
        *,
        analyses: int,
        offline: tuple[Assessment | None, OfflineCall | None] = (None, None),
    ) -> Panel:
        """A panel through real agent sessions: the LLM tribunal (and, for comparison,
        the heuristic replayed through the loop, which ``OfflinePanel`` computes directly)."""
        errors: list[DecisionError] = []
        build = self.factory.build
        analysis_model = models[AgentName.ANALYSIS]
        challenger_model = models[AgentName.CHALLENGER]
        judge_model = models[AgentName.JUDGE]
        outcomes = await _all(
            *(
                self._run(
                    build(
                        AgentName.ANALYSIS,
                        analysis_model,
                        finding,
                        value,
                        index=i,
                        count=analyses,
                        tag=tag,
                        offline=offline,
                    ).run(),
                    f"analysis {i}",
                    errors,
                )
                for i in range(analyses)
            )
        )
        reports = [o for o in outcomes if o is not None]
        challenges = await _all(
            *(
                self._run(
                    build(
                        AgentName.CHALLENGER,
                        challenger_model,
                        finding,
                        value,
                        report=o.result,
                        index=i,
                        tag=tag,
                        ledger=o.ledger.for_review(),
                        offline=offline,
                    ).run(),
                    f"challenger {i}",
                    errors,
                )
                for i, o in enumerate(reports)
            )
        )
        usage = Usage()
        entries: list[ReportEntry] = []
        for outcome, challenged in zip(reports, challenges, strict=True):
            usage = usage + outcome.usage + (challenged.usage if challenged else Usage())
            entries.append(
                ReportEntry(
                    model=analysis_model.name,
                    report=outcome.result,
                    compliance=outcome.compliance,
                    checks=check_report(
                        outcome.result,
                        outcome.ledger.ids(),
                        outcome.compliance,
                        kind=finding.kind,
                        evidence_ids={
                            e.id
                            for e in outcome.ledger.entries
                            if not e.is_error and e.tool != "skill"
                        },
                    ),
                    challenge=challenged.result if challenged else None,
                    challenger_model=challenger_model.name,
                )
            )
        judge: JudgeResult | None = None
        if entries:
            judge_entries = [
                {
                    "index": i,
                    "report": e.report.model_dump(mode="json"),
                    "compliance": e.compliance.model_dump(mode="json"),
                    "checks": [c.model_dump(mode="json") for c in e.checks],
                    "checks_passed": e.checks_passed,
                    "challenge": e.challenge.model_dump(mode="json") if e.challenge else None,
                }
                for i, e in enumerate(entries)
            ]
            try:
                judged = await self._run(
                    build(
                        AgentName.JUDGE,
                        judge_model,
                        finding,
                        value,
                        judge_entries=judge_entries,
                        tag=tag,
                        offline=offline,
                    ).run(),
                    "judge",
                    errors,
                )
            except BudgetExceeded as exc:
                # The reports are paid for: fall back to the best one instead of losing them.
                errors.append(
                    DecisionError(
                        stage="judge", error=type(exc).__name__, message=f"judge not run: {exc}"
                    )
                )
                judged = None
            if judged is not None:
                usage = usage + judged.usage
                judge = valid_judgement(judged.result, len(entries), errors)
        return Panel(entries, judge, judge_model.name, usage, errors)

    def _conclude(
        self,
        finding: Finding,
        panel: Panel,
        validations: tuple[ValidationResult, ...],
        decided_by: DecidedBy,
        *,
        escalated: bool,
    ) -> Decision:
        common: dict[str, Any] = {
            "finding": finding,
            "escalated": escalated,
            "entries": tuple(panel.entries),
            "judge": panel.judge,
            "judge_model": panel.judge_model,
            "validations": validations,
            "usage": panel.usage,
            "errors": tuple(panel.errors),
        }
        if not panel.entries:
            return undecided("every analysis session failed; see errors", decided_by, **common)
        if panel.judge is not None and panel.judge.winner_index >= 0:
            winner = panel.entries[panel.judge.winner_index].report
            classification, verdict = panel.judge.final_classification, panel.judge.final_verdict
            rationale = panel.judge.rationale
        elif panel.judge is not None:
            winner = panel.entries[best_entry(panel.entries)].report
            classification, verdict = panel.judge.final_classification, Verdict.INCONCLUSIVE
            rationale = panel.judge.rationale
        else:
            winner = panel.entries[best_entry(panel.entries)].report
            classification, verdict = winner.classification, winner.verdict
            rationale = (
                f"judge unavailable; best report by deterministic score: {winner.key_finding}"
            )
        justification = None
        if finding.kind is FindingKind.DEPENDENCY:
            index = (
                panel.judge.winner_index
                if panel.judge is not None and panel.judge.winner_index >= 0
                else best_entry(panel.entries)
            )
            dependency = apply_dependency_guardrails(classification, verdict, panel.entries[index])
            justification = dependency.justification
            guarded = Guarded(dependency.classification, dependency.verdict, dependency.note)
        else:
            guarded = apply_guardrails(classification, verdict, validations)
        confidence = winner.confidence_score
        return Decision(
            classification=guarded.classification,
            verdict=guarded.verdict,
            justification=justification,
            confidence=confidence,
            confidence_label=label_for(confidence),
            risk_level=winner.risk_level,
            rationale=f"{winner.key_finding} {rationale}".strip()
            if panel.judge is not None
            else rationale,
            decided_by=DecidedBy.GUARDRAIL if guarded.note else decided_by,
            guardrail=guarded.note,
            **common,
        )
