"""What an escalated finding's agent sessions are expected to send, before anything is.

``--dry-run`` prints this per agent and per escalated finding. It is an estimate with the
budget's own rule (UTF-8 bytes over four, ``llm.messages.estimate_input_tokens``) over what
the sessions would really carry: the agent's system prompt, the task prompt with its
per-finding catalog, the tool specifications, the required skills' text, and an allowance
for tool results. The requests are the ones the agent definitions ask for: every
required skill and the finding in the first turn, the evidence in the second, the
submission last (the judge reads no evidence of its own). Every request resends the
conversation so far, so a turn's input is the prefix plus everything loaded before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thresher.agents.prompts import PromptRenderer
from thresher.agents.render import build_input
from thresher.agents.sessions import SessionFactory
from thresher.config.settings import AgentName
from thresher.findings import Finding
from thresher.llm.messages import (
    SystemMessage,
    ToolDefinition,
    UserMessage,
    estimate_input_tokens,
)
from thresher.skills.catalog import estimate_tokens
from thresher.skills.compliance import applicable_required

# Requests per session when the model follows its definition (see the module docstring).
PLANNED_REQUESTS: dict[AgentName, int] = {
    AgentName.ANALYSIS: 3,
    AgentName.CHALLENGER: 3,
    AgentName.JUDGE: 2,
}
# Tokens a turn's tool results add: the finding's profile and assessment, then the
# validators' results and a read of the location.
EVIDENCE_TOKENS = 1_500
# What the challenger's and judge's task prompts carry at run time (the report under
# review, its challenge and checks), not known before the analysis ran.
REVIEW_TOKENS = 1_000


@dataclass(frozen=True)
class SessionEstimate:
    """One agent's sessions for one escalated finding: requests and input tokens."""

    requests: int = 0
    input_tokens: int = 0


def estimate_session(
    factory: SessionFactory, agent: AgentName, finding: Finding
) -> SessionEstimate:
    """The requests and input tokens of ``agent``'s session about ``finding``."""
    renderer = factory.renderer or PromptRenderer.from_settings(factory.settings)
    factory.renderer = renderer
    skills = factory.skills_for(agent, finding)
    rendered = build_input(factory.definition(agent, finding), skills, finding, renderer)
    tools = [
        ToolDefinition(name=t.name.value, description=t.description, parameters=t.parameters)
        for t in rendered.tools
    ]
    prefix = estimate_input_tokens(
        [SystemMessage(text=rendered.system_prompt), UserMessage(text=rendered.task_prompt)], tools
    )
    if agent is not AgentName.ANALYSIS:
        prefix += REVIEW_TOKENS
    required = set(applicable_required(skills.enabled, finding.effective_secret_type))
    loaded = sum(estimate_tokens(s.body) for s in skills.enabled if s.name in required)
    requests = PLANNED_REQUESTS[agent]
    total = prefix
    for turn in range(1, requests):
        total += prefix + loaded + EVIDENCE_TOKENS * turn
    return SessionEstimate(requests=requests, input_tokens=total)


def estimate_plan(
    factory: SessionFactory, findings: Sequence[Finding], analyses: int = 1
) -> dict[AgentName, SessionEstimate]:
    """Per agent, the mean over ``findings`` of one finding's sessions (``analyses``
    analysis and challenger sessions, one judge). Findings of one kind and secret type
    get the same skills and prompts, so one of each is estimated."""
    if not findings:
        return {}
    groups: dict[tuple[str, str | None], list[Finding]] = {}
    for finding in findings:
        secret_type = finding.effective_secret_type
        key = (finding.kind.value, secret_type.value if secret_type else None)
        groups.setdefault(key, []).append(finding)
    plan: dict[AgentName, SessionEstimate] = {}
    for agent in AgentName:
        sessions = 1 if agent is AgentName.JUDGE else analyses
        requests = tokens = 0
        for members in groups.values():
            one = estimate_session(factory, agent, members[0])
            requests += one.requests * sessions * len(members)
            tokens += one.input_tokens * sessions * len(members)
        plan[agent] = SessionEstimate(
            requests=round(requests / len(findings)), input_tokens=round(tokens / len(findings))
        )
    return plan
