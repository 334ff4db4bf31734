"""Prompt caching on each protocol: what thresher asks of the cache (Anthropic's
``cache_control`` breakpoints; a byte-stable prefix for OpenAI's and Gemini's automatic
caching) and how it accounts what each provider's usage says was cached."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.agent_emulator import emulate_diligent
from tests.fakes.caching import PromptCache
from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake
from tests.llm.harness import factory, make_finding, model_for, settings_for
from thresher.agents.loop import SessionOutcome
from thresher.config.settings import AgentName, ProviderName
from thresher.llm.providers.anthropic import MAX_BREAKPOINTS

P = ProviderName
CASES = [
    (P.OPENAI, "openai_server", "api_base"),
    (P.ANTHROPIC, "anthropic_server", "base_url"),
    (P.GEMINI, "gemini_server", "base_url"),
]


@pytest.fixture
def request_fixture(request):  # type: ignore[no-untyped-def]
    return request


def diligent_session(
    provider: ProviderName, server: OpenAIFake | AnthropicFake | GeminiFake, base: str, tmp: Path
) -> tuple[SessionOutcome[Any], PromptCache]:
    """One analysis session against a fake that plays a diligent model and reports the
    usage its provider would, prompt cache included."""
    cache = emulate_diligent(server)
    finding, secret = make_finding()
    session = factory(settings_for(provider, base), secret, tmp).build(
        AgentName.ANALYSIS, model_for(provider, base), finding, secret
    )
    return asyncio.run(session.run()), cache


@pytest.mark.parametrize(("provider", "fixture", "attr"), CASES, ids=lambda c: str(c))
def test_cached_tokens_are_read_from_each_protocols_usage(
    provider: ProviderName, fixture: str, attr: str, request_fixture, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    server = request_fixture.getfixturevalue(fixture)
    outcome, cache = diligent_session(provider, server, getattr(server, attr), tmp_path)
    served = cache.served
    assert len(served) == len(server.requests) == outcome.usage.requests >= 3
    # Every input token counts once, whatever part the provider's cache served.
    assert outcome.usage.input_tokens == sum(u.input_tokens for u in served)
    assert outcome.usage.cached_input_tokens == sum(u.cached for u in served)
    assert 0 < outcome.usage.cached_input_tokens < outcome.usage.input_tokens
    assert outcome.compliance.score == 1.0


def test_anthropic_requests_carry_breakpoints_on_tools_system_and_conversation(
    anthropic_server: AnthropicFake, tmp_path: Path
) -> None:
    diligent_session(P.ANTHROPIC, anthropic_server, anthropic_server.base_url, tmp_path)
    for request in anthropic_server.requests:
        body = request.json()
        marked = json.dumps(body).count('"cache_control"')
        assert marked <= MAX_BREAKPOINTS
        assert "cache_control" in body["tools"][-1]
        assert "cache_control" in body["system"][-1]
        users = [m for m in body["messages"] if m["role"] == "user"]
        assert "cache_control" in users[-1]["content"][-1]
        if len(users) > 1:  # what the previous request stored is read exactly
            assert "cache_control" in users[-2]["content"][-1]
            assert marked == MAX_BREAKPOINTS


def test_anthropic_caches_nothing_without_breakpoints() -> None:
    """The fake's cache honours only breakpoints, so the figures above come from them."""
    cache = PromptCache()
    blocks = [b"x" * 8000, b"y" * 8000]
    assert cache.breakpoints(blocks, []).cached == 0
    assert cache.breakpoints(blocks, [1]).written > 0
    assert cache.breakpoints(blocks, [1]).cached == 4000


@pytest.mark.parametrize(
    ("provider", "fixture", "attr"), [CASES[0], CASES[2]], ids=lambda c: str(c)
)
def test_openai_and_gemini_prefixes_stay_byte_stable(
    provider: ProviderName, fixture: str, attr: str, request_fixture, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """Automatic caching needs each request to start with the previous one, byte for byte."""
    server = request_fixture.getfixturevalue(fixture)
    diligent_session(provider, server, getattr(server, attr), tmp_path)
    bodies = [r.json() for r in server.requests]
    key = "messages" if provider is P.OPENAI else "contents"
    for earlier, later in itertools.pairwise(bodies):
        assert json.dumps(later["tools"]) == json.dumps(earlier["tools"])
        turns = earlier[key]
        assert json.dumps(later[key][: len(turns)]) == json.dumps(turns)
