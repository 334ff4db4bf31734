"""What ``--dry-run`` says an escalated finding will cost, against what a session sends."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.agent_emulator import emulate_diligent
from tests.fakes.servers import OpenAIFake
from tests.llm.harness import factory, make_finding, model_for, settings_for
from thresher.agents.estimate import PLANNED_REQUESTS, estimate_plan, estimate_session
from thresher.config.settings import AgentName, ProviderName


def test_the_estimate_is_close_to_what_a_diligent_analysis_sends(
    openai_server: OpenAIFake, tmp_path: Path
) -> None:
    emulate_diligent(openai_server)
    finding, secret = make_finding()
    settings = settings_for(ProviderName.OPENAI, openai_server.api_base)
    sessions = factory(settings, secret, tmp_path)
    expected = estimate_session(sessions, AgentName.ANALYSIS, finding)
    model = model_for(ProviderName.OPENAI, openai_server.api_base)
    outcome = asyncio.run(sessions.build(AgentName.ANALYSIS, model, finding, secret).run())
    assert expected.requests == outcome.usage.requests == PLANNED_REQUESTS[AgentName.ANALYSIS]
    assert expected.input_tokens == pytest.approx(outcome.usage.input_tokens, rel=0.25)


def test_the_plan_is_a_mean_per_escalated_finding_and_counts_every_analysis() -> None:
    finding, secret = make_finding()
    sessions = factory(settings_for(ProviderName.OPENAI, "http://127.0.0.1:9"), secret)
    one = estimate_plan(sessions, [finding])
    two = estimate_plan(sessions, [finding, finding], analyses=2)
    assert two[AgentName.ANALYSIS].requests == 2 * one[AgentName.ANALYSIS].requests
    assert two[AgentName.JUDGE] == one[AgentName.JUDGE]  # one judge whatever the analyses
    assert estimate_plan(sessions, []) == {}
