"""Every adapter end to end against its loopback fake: a multi-turn tool-calling
session through to a validated submit, and each fault's documented outcome."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake
from tests.llm.harness import KEY, Recorder, build_analysis, model_for
from thresher.agents.transcript import read_messages
from thresher.config.settings import ProviderName
from thresher.findings.results import AnalysisReport
from thresher.llm.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedResponseError,
    OverloadedError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitedError,
)
from thresher.llm.messages import ModelSettings, SystemMessage, ToolDefinition, UserMessage

P = ProviderName
PING = [
    ToolDefinition(name="ping", description="p", parameters={"type": "object", "properties": {}})
]
ASK = [SystemMessage(text="system"), UserMessage(text="hello")]
FAST = ModelSettings(max_tokens=64, read_timeout=0.5, connect_timeout=0.5)


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


def request(model, settings: ModelSettings = FAST):  # type: ignore[no-untyped-def]
    async def go():  # type: ignore[no-untyped-def]
        try:
            return await model.request(ASK, PING, settings)
        finally:
            await model.aclose()

    return run(go())


CASES = [
    (P.OPENAI, "openai_server", "api_base"),
    (P.GITHUB, "github_models_server", "api_base"),
    (P.OPENAI_COMPATIBLE, "openai_server", "api_base"),
    (P.ANTHROPIC, "anthropic_server", "base_url"),
    (P.GEMINI, "gemini_server", "base_url"),
]


@pytest.mark.parametrize(("provider", "fixture", "attr"), CASES, ids=lambda c: str(c))
def test_multi_turn_session_reaches_a_validated_submit(
    provider: ProviderName, fixture: str, attr: str, request_fixture, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    server = request_fixture.getfixturevalue(fixture)
    session, secret, _ = build_analysis(provider, server, getattr(server, attr), tmp_path)
    outcome = run(session.run())
    assert isinstance(outcome.result, AnalysisReport)
    assert outcome.result.classification.value == "real"
    assert outcome.compliance.score == 1.0
    assert outcome.turns == 2 and outcome.usage.requests == 2
    assert outcome.usage.input_tokens == 200
    assert len(server.requests) == 2
    second = server.requests[1].json()
    bodies = b"".join(r.body for r in server.requests)
    assert secret.encode() not in bodies
    assert KEY.encode() not in bodies  # the key travels in headers only
    if isinstance(server, OpenAIFake):
        assert server.requests[0].header("authorization") == f"Bearer {KEY}"
        tool_messages = [m for m in second["messages"] if m["role"] == "tool"]
        assert len(tool_messages) == len(session.info.required_skills) + 1
        assert all(m["tool_call_id"].startswith("call_") for m in tool_messages)
        field = "max_completion_tokens" if provider is P.OPENAI else "max_tokens"
        assert field in second
    elif isinstance(server, AnthropicFake):
        assert server.requests[0].header("x-api-key") == KEY
        assert server.requests[0].header("anthropic-version") == "2023-06-01"
        [system] = second["system"]  # one text block, a cache breakpoint on it
        assert system["type"] == "text" and system["cache_control"] == {"type": "ephemeral"}
        assert second["max_tokens"] > 0
        last = second["messages"][-1]
        assert last["role"] == "user"
        assert {b["type"] for b in last["content"]} == {"tool_result"}
        assert second["messages"][-2]["content"][0]["type"] == "tool_use"
    else:
        assert isinstance(server, GeminiFake)
        assert server.requests[0].header("x-goog-api-key") == KEY
        assert "key=" not in server.requests[0].path
        assert second["systemInstruction"]["parts"][0]["text"]
        model_turn = second["contents"][-2]
        assert model_turn["role"] == "model"
        assert model_turn["parts"][0]["thoughtSignature"] == "c2lnLTE="
        assert "functionResponse" in second["contents"][-1]["parts"][0]
        declared = second["tools"][0]["functionDeclarations"]
        assert all("$defs" not in json.dumps(d) for d in declared)
    transcript = next(tmp_path.glob("*.jsonl"))
    assert secret not in transcript.read_text()
    assert len(read_messages(transcript)) == len(outcome.messages)


@pytest.fixture
def request_fixture(request):  # type: ignore[no-untyped-def]
    return request


# -- faults ------------------------------------------------------------------------------


def test_openai_429_retry_after_is_honoured_then_succeeds(openai_server: OpenAIFake) -> None:
    sleep = Recorder()
    openai_server.enqueue(
        OpenAIFake.rate_limited(retry_after_seconds=2),
        OpenAIFake.rate_limited(retry_after_ms=250),
        OpenAIFake.text("hi"),
    )
    response = request(model_for(P.OPENAI, openai_server.api_base, sleep=sleep))
    assert response.text == "hi"
    assert sleep.delays == [2.0, 0.25]
    assert len(openai_server.requests) == 3


def test_openai_500_is_retried(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(OpenAIFake.server_error(), OpenAIFake.text("ok"))
    assert request(model_for(P.OPENAI, openai_server.api_base)).text == "ok"


def test_openai_quota_is_not_retried(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(OpenAIFake.quota_exhausted())
    with pytest.raises(QuotaExhaustedError) as caught:
        request(model_for(P.OPENAI, openai_server.api_base))
    assert caught.value.status == 429 and caught.value.provider == "openai"
    assert "insufficient_quota" in caught.value.body
    assert len(openai_server.requests) == 1


def test_openai_persistent_429_ends_in_a_typed_error(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(*[OpenAIFake.rate_limited() for _ in range(3)])
    with pytest.raises(RateLimitedError):
        request(model_for(P.OPENAI, openai_server.api_base, attempts=3))
    assert len(openai_server.requests) == 3


def test_retry_after_longer_than_allowed_is_not_waited_for(openai_server: OpenAIFake) -> None:
    sleep = Recorder()
    openai_server.enqueue(OpenAIFake.rate_limited(retry_after_seconds=3600))
    with pytest.raises(RateLimitedError, match="asked to wait 3600s"):
        request(model_for(P.OPENAI, openai_server.api_base, sleep=sleep))
    assert sleep.delays == []


def test_bad_request_and_auth_are_not_retried(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(OpenAIFake.error(400, "bad tool schema"))
    with pytest.raises(BadRequestError, match="bad tool schema"):
        request(model_for(P.OPENAI, openai_server.api_base))
    openai_server.api_key = "the-right-key"
    with pytest.raises(AuthenticationError):
        request(model_for(P.OPENAI, openai_server.api_base))
    assert len(openai_server.requests) == 2


def test_read_timeout_is_retried_then_typed(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(OpenAIFake.slow(5), OpenAIFake.slow(5))
    with pytest.raises(ProviderTimeoutError):
        request(model_for(P.OPENAI, openai_server.api_base, attempts=2))
    assert len(openai_server.requests) == 2


def test_timeout_then_success(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(OpenAIFake.slow(5), OpenAIFake.text("late but fine"))
    assert request(model_for(P.OPENAI, openai_server.api_base)).text == "late but fine"


@pytest.mark.parametrize("fixture", ["openai_server", "anthropic_server", "gemini_server"])
def test_malformed_body_is_a_typed_error(fixture: str, request_fixture) -> None:  # type: ignore[no-untyped-def]
    server = request_fixture.getfixturevalue(fixture)
    server.enqueue(server.malformed(), server.malformed(), server.default_reply())
    provider = {
        "openai_server": P.OPENAI,
        "anthropic_server": P.ANTHROPIC,
        "gemini_server": P.GEMINI,
    }[fixture]
    base = server.api_base if isinstance(server, OpenAIFake) else server.base_url
    with pytest.raises(MalformedResponseError, match="not complete JSON"):
        request(model_for(provider, base))
    assert len(server.requests) == 2  # retried once, not more


def test_anthropic_529_overloaded_is_retried(anthropic_server: AnthropicFake) -> None:
    sleep = Recorder()
    anthropic_server.enqueue(
        AnthropicFake.overloaded(), AnthropicFake.rate_limited(1), AnthropicFake.text("ok")
    )
    response = request(model_for(P.ANTHROPIC, anthropic_server.base_url, sleep=sleep))
    assert response.text == "ok"
    assert len(sleep.delays) == 2 and sleep.delays[1] == 1.0


def test_anthropic_persistent_overload_is_typed(anthropic_server: AnthropicFake) -> None:
    anthropic_server.enqueue(*[AnthropicFake.overloaded() for _ in range(2)])
    with pytest.raises(OverloadedError) as caught:
        request(model_for(P.ANTHROPIC, anthropic_server.base_url, attempts=2))
    assert caught.value.status == 529


def test_anthropic_credit_exhausted_is_not_retried(anthropic_server: AnthropicFake) -> None:
    anthropic_server.enqueue(AnthropicFake.credit_balance_too_low())
    with pytest.raises(QuotaExhaustedError):
        request(model_for(P.ANTHROPIC, anthropic_server.base_url))
    assert len(anthropic_server.requests) == 1


def test_gemini_retry_info_is_honoured(gemini_server: GeminiFake) -> None:
    sleep = Recorder()
    gemini_server.enqueue(
        GeminiFake.rate_limited(retry_delay="2s"), GeminiFake.unavailable(), GeminiFake.text("ok")
    )
    response = request(model_for(P.GEMINI, gemini_server.base_url, sleep=sleep))
    assert response.text == "ok"
    assert sleep.delays[0] == 2.0 and len(sleep.delays) == 2


def test_gemini_daily_quota_is_not_retried(gemini_server: GeminiFake) -> None:
    gemini_server.enqueue(GeminiFake.quota_exhausted())
    with pytest.raises(QuotaExhaustedError, match="quota"):
        request(model_for(P.GEMINI, gemini_server.base_url))
    assert len(gemini_server.requests) == 1


def test_gemini_server_error_retried_then_typed(gemini_server: GeminiFake) -> None:
    gemini_server.enqueue(*[GeminiFake.server_error() for _ in range(2)])
    with pytest.raises(OverloadedError):
        request(model_for(P.GEMINI, gemini_server.base_url, attempts=2))
