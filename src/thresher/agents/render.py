"""Assemble exactly what one agent session receives, without sending it anywhere.

``thresher agents render`` prints this, and the agent loop sends it: one code
path, so what a user inspects is what a model gets.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from thresher.config.settings import AgentName
from thresher.errors import UsageError
from thresher.findings import Finding, FindingKind
from thresher.findings.results import AnalysisReport
from thresher.skills.catalog import render_catalog
from thresher.skills.compliance import applicable_required
from thresher.skills.discovery import SkillSet

from .definition import AgentDefinition
from .prompts import PromptRenderer, Template
from .toolspecs import ToolSpec, tool_spec, tools_for_kind

_PENDING_REPORT = "(filled at run time: the analysis report under review)"
_PENDING_LEDGER = "(filled at run time: the analysis session's tool calls and results)"
_PENDING_CHALLENGE = "(filled at run time: the challenger's result for this report)"
_PENDING_CHECKS = "(filled at run time)"


@dataclass(frozen=True)
class AgentInput:
    agent: AgentName
    model: str
    system_prompt: str
    task_prompt: str
    catalog: str
    tools: tuple[ToolSpec, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent.value,
            "model": self.model,
            "system_prompt": self.system_prompt,
            "task_prompt": self.task_prompt,
            "catalog": self.catalog,
            "tools": [
                {"name": t.name.value, "description": t.description, "parameters": t.parameters}
                for t in self.tools
            ],
        }


def load_finding(path: Path) -> Finding:
    """Read a finding JSON file; errors name the file and the field."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read --finding file {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"{path}: not valid JSON: {exc}") from None
    try:
        return Finding.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise UsageError(
            f"{path}: field '{field}': {first['msg']}",
            hint="a finding needs id, rule_id, locations [{path, line}], fingerprint, redacted",
        ) from None


def load_report(path: Path) -> AnalysisReport:
    try:
        return AnalysisReport.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"cannot read --report file {path}: {exc.strerror}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(root)"
        raise UsageError(f"{path}: field '{field}': {first['msg']}") from None


def build_input(
    definition: AgentDefinition,
    skills: SkillSet,
    finding: Finding,
    renderer: PromptRenderer,
    *,
    reports: Sequence[AnalysisReport] = (),
    analysis_index: int = 0,
    analysis_count: int = 1,
    ledger: Sequence[dict[str, Any]] | None = None,
    judge_entries: Sequence[dict[str, Any]] | None = None,
) -> AgentInput:
    """Render the agent's input; the run-time parts (the report under review,
    its ledger, challenges and checks) show as placeholders when not given.

    Only the skills that can apply to the finding (its kind; type-specific ones only for
    its secret type) and the tools of its kind are offered, and a dependency finding gets
    the dependency variants of the task prompts."""
    secret_type = finding.effective_secret_type
    skills = skills.for_finding(finding.kind, secret_type)
    dependency = finding.kind is FindingKind.DEPENDENCY
    finding_data = finding.model_dump(mode="json")
    catalog = render_catalog(skills.enabled)
    common: dict[str, Any] = {
        "finding": finding_data,
        "secret_type": secret_type.value if secret_type else None,
        "catalog": catalog,
        "required_skills": applicable_required(skills.enabled, secret_type),
    }
    match definition.name:
        case AgentName.ANALYSIS:
            task = renderer.render(
                Template.ANALYSIS_DEPENDENCY if dependency else Template.ANALYSIS,
                analysis_index=analysis_index,
                analysis_count=analysis_count,
                **common,
            )
        case AgentName.CHALLENGER:
            report: Any = reports[0].model_dump(mode="json") if reports else _PENDING_REPORT
            task = renderer.render(
                Template.CHALLENGE_DEPENDENCY if dependency else Template.CHALLENGE,
                report=report,
                report_index=0,
                ledger=list(ledger) if ledger is not None else _PENDING_LEDGER,
                **common,
            )
        case AgentName.JUDGE:
            entries = (
                list(judge_entries or [])
                or [
                    {
                        "index": index,
                        "report": item.model_dump(mode="json"),
                        "compliance": _PENDING_CHECKS,
                        "checks": _PENDING_CHECKS,
                        "challenge": _PENDING_CHALLENGE,
                    }
                    for index, item in enumerate(reports)
                ]
                or [
                    {
                        "index": 0,
                        "report": _PENDING_REPORT,
                        "compliance": _PENDING_CHECKS,
                        "checks": _PENDING_CHECKS,
                        "challenge": _PENDING_CHALLENGE,
                    }
                ]
            )
            task = renderer.render(
                Template.JUDGE_DEPENDENCY if dependency else Template.JUDGE,
                reports=entries,
                **common,
            )
    tools = tuple(
        tool_spec(name, skills) for name in tools_for_kind(definition.tools, finding.kind)
    )
    return AgentInput(
        agent=definition.name,
        model=definition.model,
        system_prompt=definition.system_prompt,
        task_prompt=task,
        catalog=catalog,
        tools=tools,
    )
