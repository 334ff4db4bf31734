"""The offline panel: the heuristic's analysis, challenge and judgement without the loop.

The heuristic model is deterministic and reads only its tool results, so replaying it
through three agent sessions (prompts rendered, skill bodies loaded, every message
redacted and written to a transcript) buys nothing but time: about 48 ms a finding.
Here the same tool calls the heuristic would make -- the same handlers, in the same
order, with the same ledger ids -- run directly, once per finding, and the heuristic's
own submission functions turn the evidence into the same ``ReportEntry`` and
``JudgeResult``. What the sessions would have written as three transcripts becomes
one compact, redacted line in ``offline.jsonl``.

The LLM path is untouched: an escalated finding still gets its sessions and transcripts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from thresher.agents.definition import load_agent
from thresher.agents.sessions import RESULT_TYPES, SessionFactory
from thresher.agents.toolbox import Handler, finding_handlers, workspace_handlers
from thresher.agents.toolspecs import ToolName, tools_for_kind
from thresher.config.settings import AgentName
from thresher.findings import Finding, FindingKind, OsvSource, SecretType
from thresher.findings.results import AnalysisReport, ChallengeResult, JudgeResult
from thresher.heuristic.model import (
    HeuristicModel,
    dependency_challenge,
    dependency_report,
    gather_dependency_evidence,
    gather_evidence,
    heuristic_challenge,
    heuristic_judgement,
    heuristic_report,
)
from thresher.llm.messages import Usage
from thresher.scoring.model import Assessment
from thresher.scoring.policy import OfflineCall
from thresher.skills.compliance import Compliance, applicable_required, compute_compliance
from thresher.tribunal.checks import check_report
from thresher.tribunal.decisions import DecisionError, ReportEntry
from thresher.tribunal.fallbacks import Panel, valid_judgement
from thresher.tribunal.files import SharedReads
from thresher.tribunal.offline_calls import _READ_BY_RULES as _READ_BY_RULES
from thresher.tribunal.offline_calls import _Call as _Call
from thresher.tribunal.offline_calls import _Calls as _Calls
from thresher.tribunal.offline_calls import _context as _context
from thresher.tribunal.offline_calls import _described as _described
from thresher.tribunal.offline_calls import _key as _key
from thresher.tribunal.offline_calls import _Ledger as _Ledger
from thresher.tribunal.offline_calls import _validated as _validated
from thresher.tribunal.offline_calls import profiled_later
from thresher.tribunal.offline_records import OfflineAgentRecord as OfflineAgentRecord
from thresher.tribunal.offline_records import OfflineCallRecord as OfflineCallRecord
from thresher.tribunal.offline_records import OfflineRecord as OfflineRecord
from thresher.tribunal.offline_records import OfflineRecordError as OfflineRecordError
from thresher.tribunal.offline_records import record_line
from thresher.validators.base import ValidationResult

# The evidence tools in the order the heuristic calls them (after its skills).
_EVIDENCE = (ToolName.READ_FILE, ToolName.GIT_LOG, ToolName.VALIDATE_SECRET)
_HISTORY_COMMITS = 10
_NO_USAGE = Usage()  # the panel sends no request; one for every decision the run keeps


class OfflinePanel:
    """The heuristic panel for one finding, computed directly (see the module docstring)."""

    def __init__(self, factory: SessionFactory, record_path: Path | None = None) -> None:
        self.factory = factory
        self.model = HeuristicModel()
        self.record_path = record_path
        # Where the record lines go instead of ``record_path``: a worker process of the
        # parallel offline run hands them to the parent, which writes them in order.
        self.sink: Callable[[str], None] | None = None
        self._tools: dict[AgentName, tuple[ToolName, ...]] = {}
        self._offered: dict[tuple[tuple[ToolName, ...], FindingKind], frozenset[ToolName]] = {}
        self._compliance: dict[
            tuple[AgentName, FindingKind, SecretType | None], tuple[list[str], Compliance]
        ] = {}
        # The panel's reads never reach a model: see ``Workspace.narrowed``.
        self.workspace = factory.workspace.narrowed() if factory.workspace is not None else None
        self.shared = SharedReads(self.workspace)
        self._workspace_handlers: dict[ToolName, Handler] | None = None
        # What tells that redaction leaves a value nowhere on a line (``_line``): only
        # for the redactor the workspace redacts its reads with.
        redactor = factory.redactor
        self._hides: Callable[[str, str], bool] | None = (
            redactor.hides
            if self.workspace is not None and self.workspace.redacts_with(redactor.text)
            else None
        )

    def expect(self, findings: Sequence[Finding]) -> None:
        """The findings about to be decided: each file holding any is read once."""
        self.shared.expect(f for f in findings if f.kind is FindingKind.SECRET)

    def tools(self, agent: AgentName) -> tuple[ToolName, ...]:
        """The tools the agent's definition offers (a user's definition may offer fewer)."""
        if agent not in self._tools:
            self._tools[agent] = load_agent(agent, self.factory.settings).tools
        return self._tools[agent]

    def decide(
        self,
        finding: Finding,
        value: str | None,
        validations: tuple[ValidationResult, ...],
        offline: tuple[Assessment | None, OfflineCall | None],
    ) -> Panel:
        started = time.perf_counter()
        calls = self._calls(finding, value, validations, offline)
        errors: list[DecisionError] = []
        records: list[tuple[AgentName, _Ledger, Compliance]] = []
        name = self.model.name

        dependency = finding.kind is FindingKind.DEPENDENCY
        analysis_ledger, compliance = self._gather(AgentName.ANALYSIS, finding, calls)
        records.append((AgentName.ANALYSIS, analysis_ledger, compliance))
        report = self._submit(
            AgentName.ANALYSIS,
            dependency_report(gather_dependency_evidence(analysis_ledger.results))
            if dependency
            else heuristic_report(gather_evidence(analysis_ledger.results)),
            "analysis 0",
            errors,
        )
        entries: list[ReportEntry] = []
        if isinstance(report, AnalysisReport):
            ledger, challenger_compliance = self._gather(AgentName.CHALLENGER, finding, calls)
            records.append((AgentName.CHALLENGER, ledger, challenger_compliance))
            reproduced = any(
                tool == ToolName.VALIDATE_SECRET.value for tool, _, _ in ledger.results
            )
            # Of the report the challenge rules read only its classification.
            submitted = report.model_dump(mode="json", include={"classification"})
            challenge = self._submit(
                AgentName.CHALLENGER,
                dependency_challenge(gather_dependency_evidence(ledger.results), submitted)
                if dependency
                else heuristic_challenge(
                    gather_evidence(ledger.results), submitted, reproduced=reproduced
                ),
                "challenger 0",
                errors,
            )
            entries.append(
                ReportEntry(
                    model=name,
                    report=report,
                    compliance=compliance,
                    checks=check_report(
                        report,
                        analysis_ledger.ids(),
                        compliance,
                        kind=finding.kind,
                        evidence_ids=analysis_ledger.evidence_ids(),
                    ),
                    challenge=challenge if isinstance(challenge, ChallengeResult) else None,
                    challenger_model=name,
                )
            )
        judge: JudgeResult | None = None
        if entries:
            judge_ledger, judge_compliance = self._gather(AgentName.JUDGE, finding, calls)
            records.append((AgentName.JUDGE, judge_ledger, judge_compliance))
            safe = "affected" if dependency else "real"
            judged = self._submit(
                AgentName.JUDGE,
                heuristic_judgement(_judge_entries(entries), safe=safe),
                "judge",
                errors,
            )
            judge = valid_judgement(
                judged if isinstance(judged, JudgeResult) else None, len(entries), errors
            )
        self._write(finding.id, name, records, round((time.perf_counter() - started) * 1000, 2))
        if finding.kind is FindingKind.SECRET:
            self.shared.decided(finding.locations[0].path)
        # Not interned: a scan keeps the panel only of the few decisions a report shows
        # with it (``thresher.tribunal.journal``), so sharing the equal parts of every
        # panel cost a twentieth of the decisions' time to save next to nothing.
        return Panel(entries, judge, name, _NO_USAGE, errors)

    def _calls(
        self,
        finding: Finding,
        value: str | None,
        validations: tuple[ValidationResult, ...],
        offline: tuple[Assessment | None, OfflineCall | None],
    ) -> _Calls:
        factory = self.factory
        handlers: dict[ToolName, Handler] = {}
        if self.workspace is not None:
            if self._workspace_handlers is None:  # stateless: made once for the panel
                self._workspace_handlers = workspace_handlers(self.workspace)
            handlers.update(self._workspace_handlers)
        redactor = factory.redactor
        calls = _Calls(handlers, redactor.text, redactor.data, self.shared, leaves=redactor.leaves)
        if finding.kind is FindingKind.DEPENDENCY:
            handlers.update(finding_handlers(finding, None, factory.validators))
            handlers.update(factory.kind_handlers(finding))
            return calls
        line = self._line(finding, value, calls)
        handlers.update(finding_handlers(finding, value, factory.validators, line, offline=offline))
        handlers[ToolName.GET_FINDING] = _described(finding, value, line, offline)
        calls.profile_later = profiled_later(value, line, offline)
        # The tribunal validated it already: a live validator is asked once. The tool's
        # own handler is async (it waits for live checks off the loop); this one is not.
        handlers[ToolName.VALIDATE_SECRET] = _validated(value, validations)
        return calls

    def _line(self, finding: Finding, value: str | None, calls: _Calls) -> str | None:
        """The finding's line as ``get_finding`` profiles it (``SessionFactory.line_of``),
        taken from the context read the heuristic makes anyway: one file read a finding.

        The profile reads of the line only the name ``value`` is assigned to on it
        (``key_name``), and finds none when ``value`` is not on the line. Where the
        redactor shows that redaction leaves ``value`` nowhere on the line (``hides``: a
        candidate value is redacted wherever it occurs), the line is None, which the
        profile reads the same way, and the window around it is not redacted at all:
        that redaction was a third of a decision's time."""
        if self.factory.workspace is None:
            return None
        location = finding.locations[0]
        shared = self.shared.lines(location.path)
        if shared is not None:
            if not 1 <= location.line <= len(shared):
                return None
            hides = self._hides
            if value is not None and hides is not None and hides(value, shared.raw(location.line)):
                return None
            return shared[location.line - 1]
        read = calls.call(ToolName.READ_FILE, _context(location.path, location.line))
        if read.output is None:
            return None  # the file or the line cannot be read: neither can line_of
        index = location.line - int(read.output.data.get("start_line", 1))
        lines = read.output.data.get("lines") or []
        if 0 <= index < len(lines):
            return str(lines[index])
        return self.factory.line_of(finding)  # long lines before it cut the read short

    def _gather(
        self, agent: AgentName, finding: Finding, calls: _Calls
    ) -> tuple[_Ledger, Compliance]:
        """The calls the heuristic makes as ``agent`` (``HeuristicModel``'s plan): its
        required skills, get_finding, then -- except the judge -- the code around the
        finding, the value's history and the validators, each if the agent has the tool."""
        tools = self.tools(agent)
        offered = self._offered.get((tools, finding.kind))
        if offered is None:  # the same for every finding of the kind: worked out once
            offered = self._offered[(tools, finding.kind)] = frozenset(
                tools_for_kind(tools, finding.kind)
            )
        loaded, compliance = self._skills(agent, finding, offered)
        ledger = _Ledger()
        for skill in loaded:
            ledger.skill(skill)
        ids = {"finding_id": finding.id}
        location: Mapping[str, Any] | None = None
        if ToolName.GET_FINDING in offered:
            result = calls.call(ToolName.GET_FINDING, ids)
            ledger.record(ToolName.GET_FINDING, ids, result)
            locations = result.data.get("locations") or [] if result.error is None else []
            location = locations[0] if locations else None
        if agent is AgentName.JUDGE:
            return ledger, compliance
        if isinstance(finding.source, OsvSource):
            for tool, asked in (
                (ToolName.GET_VULNERABILITY, {"id": finding.rule_id}),
                (ToolName.FIND_IMPORTS, {"package": finding.source.package}),
            ):
                if tool in offered:
                    ledger.record(tool, dict(asked), calls.call(tool, dict(asked)))
            return ledger, compliance
        for tool in _EVIDENCE:
            if tool not in offered:
                continue
            if tool is ToolName.READ_FILE:
                if not location:
                    continue
                arguments: dict[str, Any] = _context(location["path"], int(location.get("line", 1)))
            elif tool is ToolName.GIT_LOG:
                arguments = {**ids, "max_count": _HISTORY_COMMITS}
            else:
                arguments = ids
            ledger.record(tool, arguments, calls.call(tool, arguments))
        return ledger, compliance

    def _skills(
        self, agent: AgentName, finding: Finding, offered: AbstractSet[ToolName]
    ) -> tuple[list[str], Compliance]:
        """The skills the heuristic loads as ``agent`` for this kind and type of finding,
        and the compliance that earns: the same for every finding of the kind and type, so
        worked out once."""
        secret_type = finding.effective_secret_type
        key = (agent, finding.kind, secret_type)
        if key not in self._compliance:
            enabled = self.factory.skills_for(agent, finding).enabled
            required = applicable_required(enabled, secret_type)
            loaded = required if ToolName.SKILL in offered else []
            self._compliance[key] = (loaded, compute_compliance(enabled, loaded, secret_type))
        loaded, compliance = self._compliance[key]
        return list(loaded), compliance

    def _submit(
        self, agent: AgentName, submission: dict[str, Any], stage: str, errors: list[DecisionError]
    ) -> BaseModel | None:
        """Validate a submission as the loop does; a bad one is a typed error.

        Unlike a model's submission it is not redacted here: the heuristic writes it from
        the redacted tool results, its rules' own words and the scorer's figures, and
        what a run writes of it (the journal's line, a report) is redacted where it is
        written (``DecisionJournal``, the run report). Redacting it here as well was a
        tenth of a decision's time and changed nothing on the dev corpus or the wild
        trees."""
        try:
            result = RESULT_TYPES[agent].model_validate(submission)
        except ValidationError as exc:
            errors.append(
                DecisionError(
                    stage=stage,
                    error="InvalidSubmission",
                    message=f"the heuristic {agent.value} submission is invalid: "
                    f"{exc.error_count()} error(s)",
                )
            )
            return None
        return result

    def _write(
        self,
        finding_id: str,
        model: str,
        agents: Sequence[tuple[AgentName, _Ledger, Compliance]],
        milliseconds: float,
    ) -> None:
        """The finding's ``OfflineRecord`` line, redacted (``record_line``)."""
        if self.record_path is None and self.sink is None:
            return
        line = record_line(finding_id, model, agents, milliseconds, self.factory.redactor)
        if self.sink is not None:
            self.sink(line)
            return
        assert self.record_path is not None
        try:
            with self.record_path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        except OSError as exc:  # the finding fails (INCONCLUSIVE, exit 3), the run goes on
            raise OfflineRecordError.writing(self.record_path, exc) from exc


# What ``heuristic_judgement`` reads of each entry: its rules read nothing else.
_JUDGED_REPORT = {"confidence_score", "verdict", "classification"}
_JUDGED_CHALLENGE = {"outcome"}


def _judge_entries(entries: list[ReportEntry]) -> list[dict[str, Any]]:
    """What the judge session receives as its context (see ``Tribunal._panel``), of it
    only what the heuristic's judgement reads (dumping the whole of each report, its
    checks and compliance for it was a fiftieth of a decision's time)."""
    return [
        {
            "index": i,
            "report": e.report.model_dump(mode="json", include=_JUDGED_REPORT),
            "checks_passed": e.checks_passed,
            "challenge": e.challenge.model_dump(mode="json", include=_JUDGED_CHALLENGE)
            if e.challenge
            else None,
        }
        for i, e in enumerate(entries)
    ]
