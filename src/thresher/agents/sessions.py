"""Build an ``AgentSession`` for any role: definition, skills, tools, prompts, limits.

One place wires an agent to its model, its skill set, the tools its file allows
(bound to the workspace, the finding and the validators), the redactor and the
budget. ``agents render`` shows the same prompts this builds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from thresher.agents.budget import Budget, UsageLimits, UsageMeter
from thresher.agents.definition import AgentDefinition, load_agent, submit_tool_for
from thresher.agents.deptools import dependency_handlers
from thresher.agents.loop import AgentSession, LoopLimits
from thresher.agents.prompts import PromptRenderer
from thresher.agents.render import build_input
from thresher.agents.toolbox import (
    Handler,
    Toolbox,
    finding_handlers,
    skill_handlers,
    workspace_handlers,
)
from thresher.agents.tooling import ToolError
from thresher.agents.toolspecs import ReadFileArgs, ToolName, tools_for_kind
from thresher.agents.transcript import TranscriptWriter
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, Settings
from thresher.deps.catalog import RangeCheck, VulnerabilityCatalog, default_range_check
from thresher.findings import Finding, FindingKind, WikiLocation
from thresher.findings.results import AnalysisReport, ChallengeResult, JudgeResult
from thresher.llm.messages import ModelSettings, SessionInfo
from thresher.llm.model import Model
from thresher.redaction.redactor import Redactor
from thresher.scoring.model import Assessment
from thresher.scoring.policy import OfflineCall
from thresher.skills import SkillLoader, SkillSession, SkillSet
from thresher.skills.compliance import applicable_required
from thresher.validators import ValidatorRegistry

RESULT_TYPES: dict[AgentName, type[BaseModel]] = {
    AgentName.ANALYSIS: AnalysisReport,
    AgentName.CHALLENGER: ChallengeResult,
    AgentName.JUDGE: JudgeResult,
}


@dataclass
class SessionFactory:
    settings: Settings
    workspace: Workspace | None = None
    redactor: Redactor = field(default_factory=Redactor)
    validators: ValidatorRegistry = field(default_factory=ValidatorRegistry.default)
    loader: SkillLoader = field(default_factory=SkillLoader)
    renderer: PromptRenderer | None = None
    run_meter: UsageMeter = field(default_factory=lambda: UsageMeter(UsageLimits(), "run"))
    session_limits: UsageLimits = field(
        default_factory=lambda: UsageLimits(max_requests=40, max_tool_calls=120)
    )
    # Shared by every session of one finding (--max-tokens-per-finding): scope "finding".
    finding_limits: UsageLimits = field(default_factory=UsageLimits)
    # What each agent spent over the run (the report's per-agent usage); never limited.
    agent_meters: dict[AgentName, UsageMeter] = field(
        default_factory=lambda: {a: UsageMeter(UsageLimits(), a.value) for a in AgentName}
    )
    loop_limits: LoopLimits = field(default_factory=LoopLimits)
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    transcripts_dir: Path | None = None
    # Dependency findings: the advisories of the run, and the ecosystem-correct range check.
    catalog: VulnerabilityCatalog | None = None
    range_check: RangeCheck = field(default_factory=default_range_check)
    _skills: dict[AgentName, SkillSet] = field(default_factory=dict)
    _finding_meters: dict[str, UsageMeter] = field(default_factory=dict)
    # Parsed once per run, like the skills: a run builds six sessions per escalated finding.
    _definitions: dict[AgentName, AgentDefinition] = field(default_factory=dict)

    def finding_meter(self, finding_id: str) -> UsageMeter:
        """The meter every provider session of this finding is charged to."""
        meter = self._finding_meters.get(finding_id)
        if meter is None:
            meter = self._finding_meters[finding_id] = UsageMeter(self.finding_limits, "finding")
        return meter

    def skills(self, agent: AgentName) -> SkillSet:
        if agent not in self._skills:
            self._skills[agent] = self.loader.load(agent, self.settings.agent_skills(agent))
        return self._skills[agent]

    def skills_for(self, agent: AgentName, finding: Finding) -> SkillSet:
        """The agent's skills that can apply to this finding (its kind, its secret type)."""
        return self.skills(agent).for_finding(finding.kind, finding.effective_secret_type)

    def definition(self, agent: AgentName, finding: Finding) -> AgentDefinition:
        """The agent's definition, offering only the tools that fit the finding's kind."""
        definition = self._definitions.get(agent) or load_agent(agent, self.settings)
        self._definitions[agent] = definition
        return replace(definition, tools=tools_for_kind(definition.tools, finding.kind))

    def kind_handlers(self, finding: Finding) -> dict[ToolName, Handler]:
        """The dependency tools for a dependency finding; none for a secret."""
        if finding.kind is FindingKind.DEPENDENCY:
            return dependency_handlers(finding, self.catalog, self.range_check, self.workspace)
        return {}

    def build(
        self,
        agent: AgentName,
        model: Model,
        finding: Finding,
        value: str | None,
        *,
        index: int = 0,
        count: int = 1,
        report: AnalysisReport | None = None,
        ledger: Sequence[dict[str, Any]] | None = None,
        judge_entries: Sequence[dict[str, Any]] | None = None,
        tag: str = "",
        offline: tuple[Assessment | None, OfflineCall | None] = (None, None),
    ) -> AgentSession[Any]:
        if self.renderer is None:
            self.renderer = PromptRenderer.from_settings(self.settings)
        renderer = self.renderer
        definition = self.definition(agent, finding)
        skills = self.skills_for(agent, finding)
        rendered = build_input(
            definition,
            skills,
            finding,
            renderer,
            reports=[report] if report else [],
            analysis_index=index,
            analysis_count=count,
            ledger=ledger,
            judge_entries=judge_entries,
        )
        skill_session = SkillSession(skills)
        handlers: dict[ToolName, Handler] = {
            **skill_handlers(skill_session),
            **finding_handlers(
                finding, value, self.validators, self.line_of(finding), offline=offline
            ),
        }
        if self.workspace is not None:
            handlers.update(workspace_handlers(self.workspace))
        handlers.update(self.kind_handlers(finding))
        submit = submit_tool_for(agent)
        context: dict[str, Any] = {}
        if report is not None:
            context["report"] = report.model_dump(mode="json")
        if judge_entries is not None:
            context["reports"] = list(judge_entries)
        secret_type = finding.effective_secret_type
        info = SessionInfo(
            agent=agent.value,
            finding_id=finding.id,
            submit_tool=submit.value,
            required_skills=tuple(applicable_required(skills.enabled, secret_type)),
            kind=finding.kind.value,
            context=context,
        )
        transcript = None
        if self.transcripts_dir is not None:
            prefix = f"{_safe(finding.id)}-{tag}-" if tag else f"{_safe(finding.id)}-"
            name = f"{prefix}{agent.value}-{index}.jsonl"
            transcript = TranscriptWriter(self.transcripts_dir / name, self.redactor)
        return AgentSession(
            model=model,
            system_prompt=rendered.system_prompt,
            task_prompt=rendered.task_prompt,
            toolbox=Toolbox(definition.tools, handlers, skill_session),
            submit_tool=submit.value,
            result_type=RESULT_TYPES[agent],
            info=info,
            secret_type=secret_type,
            renderer=renderer,
            # Offline models spend nothing: only provider requests count against the run.
            budget=Budget(
                UsageMeter(self.session_limits, "session"),
                *(
                    ()
                    if model.offline
                    else (self.run_meter, self.finding_meter(finding.id), self.agent_meters[agent])
                ),
            ),
            redactor=self.redactor,
            settings=self.model_settings,
            limits=self.loop_limits,
            transcript=transcript,
        )

    def line_of(self, finding: Finding) -> str | None:
        """The text of the finding's first location, read through the contained workspace.

        A wiki page is not in the workspace (its path names a page of the wiki); text on
        GitHub is asked for by its address, which only a workspace serving it holds."""
        location = finding.locations[0]
        if self.workspace is None or isinstance(location, WikiLocation):
            return None
        try:
            output = self.workspace.read_file(
                ReadFileArgs(path=location.path, start_line=location.line, end_line=location.line)
            )
        except ToolError:
            return None
        lines = output.data.get("lines") or []
        return str(lines[0]) if lines else None


def _safe(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:80]
