"""Budgets that hold, against a loopback OpenAI server: a request is reserved at its
estimated size before it is sent, and the run meter's ``usage`` is what was really
sent -- the request that made the run stop and the requests that failed included."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import pytest

from tests.fakes.servers import OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply
from tests.llm.harness import analysis_script, make_finding, model_for, settings_for
from thresher.agents.budget import UsageLimits, UsageMeter
from thresher.agents.loop import AgentSession
from thresher.agents.sessions import SessionFactory
from thresher.config.settings import AgentName, HttpSettings, ProviderName
from thresher.llm.errors import (
    BudgetExceeded,
    OverloadedError,
    ProviderConnectionError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from thresher.llm.messages import (
    ModelSettings,
    SystemMessage,
    Usage,
    UserMessage,
    estimate_input_tokens,
)
from thresher.redaction.redactor import Redactor

MAX_OUTPUT = 64


def session_on(
    server: OpenAIFake,
    meter: UsageMeter,
    http: HttpSettings | None = None,
    attempts: int = 4,
) -> AgentSession[Any]:
    finding, secret = make_finding()
    factory = SessionFactory(
        settings=settings_for(ProviderName.OPENAI, server.api_base, http),
        redactor=Redactor([secret]),
        run_meter=meter,
        model_settings=ModelSettings(max_tokens=MAX_OUTPUT),
    )
    model = model_for(ProviderName.OPENAI, server.api_base, attempts=attempts, http=http)
    return factory.build(AgentName.ANALYSIS, model, finding, secret)


def first_estimate(session: AgentSession[Any]) -> int:
    """What the session's first request is reserved at (its input estimate)."""
    opening = [SystemMessage(text=session.system_prompt), UserMessage(text=session.task_prompt)]
    return estimate_input_tokens(opening, session.toolbox.definitions())


async def drive(session: AgentSession[Any]) -> None:
    try:
        await session.run()
    finally:
        await session.model.aclose()


def test_max_tokens_10_sends_no_request(openai_server: OpenAIFake) -> None:
    meter = UsageMeter(UsageLimits(max_total_tokens=10), "run")
    session = session_on(openai_server, meter)
    with pytest.raises(BudgetExceeded, match=r"run token limit reached: 0 used of 10") as caught:
        asyncio.run(drive(session))
    assert caught.value.needed > 10
    assert openai_server.requests == []
    assert meter.usage == Usage() and session.usage == Usage()


def test_usage_reports_the_request_that_made_the_run_stop(openai_server: OpenAIFake) -> None:
    probe = session_on(openai_server, UsageMeter(UsageLimits(), "run"))
    estimate = first_estimate(probe)
    limit = estimate + MAX_OUTPUT + 100  # the first request fits, as estimated
    reported = (estimate * 3, 40)  # ... but the provider bills far more than estimated
    openai_server.enqueue(
        OpenAIFake.tool_calls([("c1", "get_finding", {"finding_id": "f-gh-1"})], usage=reported)
    )
    meter = UsageMeter(UsageLimits(max_total_tokens=limit), "run")
    session = session_on(openai_server, meter)
    with pytest.raises(BudgetExceeded, match="run token limit"):
        asyncio.run(drive(session))
    assert len(openai_server.requests) == 1
    truth = Usage(requests=1, input_tokens=reported[0], output_tokens=reported[1])
    assert meter.usage == truth and session.usage == truth
    assert (meter.in_flight, meter.reserved_tokens) == (0, 0)


def test_a_request_that_failed_is_counted_as_sent(openai_server: OpenAIFake) -> None:
    openai_server.responder = lambda request, index: OpenAIFake.server_error()
    http = HttpSettings(max_attempts=2, breaker_failures=5)
    meter = UsageMeter(UsageLimits(), "run")
    session = session_on(openai_server, meter, http, attempts=2)
    with pytest.raises(OverloadedError):
        asyncio.run(drive(session))
    assert len(openai_server.requests) == 2  # one request, retried once
    charged = Usage(requests=1, input_tokens=first_estimate(session))
    assert meter.usage == charged and session.usage == charged
    assert (meter.in_flight, meter.reserved_tokens) == (0, 0)


def test_a_request_that_timed_out_is_counted_as_sent(openai_server: OpenAIFake) -> None:
    openai_server.responder = lambda request, index: OpenAIFake.dripping(0.1)
    http = HttpSettings(read_timeout=30, total_timeout=0.3)
    meter = UsageMeter(UsageLimits(), "run")
    session = session_on(openai_server, meter, http)
    with pytest.raises(ProviderTimeoutError):
        asyncio.run(drive(session))
    assert meter.usage.requests == 1 and meter.usage.input_tokens == first_estimate(session)


def test_a_request_refused_by_an_open_circuit_costs_nothing(openai_server: OpenAIFake) -> None:
    openai_server.responder = lambda request, index: OpenAIFake.server_error()
    http = HttpSettings(max_attempts=1, breaker_failures=1)
    meter = UsageMeter(UsageLimits(), "run")
    finding, secret = make_finding()
    factory = SessionFactory(
        settings=settings_for(ProviderName.OPENAI, openai_server.api_base, http),
        redactor=Redactor([secret]),
        run_meter=meter,
    )
    model = model_for(ProviderName.OPENAI, openai_server.api_base, attempts=1, http=http)

    async def two_sessions() -> list[BaseException | None]:
        outcomes: list[BaseException | None] = []
        for _ in range(2):
            try:
                await factory.build(AgentName.ANALYSIS, model, finding, secret).run()
                outcomes.append(None)
            except Exception as exc:
                outcomes.append(exc)
        await model.aclose()
        return outcomes

    failed, refused = asyncio.run(two_sessions())
    assert isinstance(failed, OverloadedError) and isinstance(refused, ProviderUnavailableError)
    assert len(openai_server.requests) == 1
    assert meter.usage.requests == 1  # the refused request never left


def without_usage(request: CapturedRequest, index: int, inner: Any) -> Reply:
    body = json.loads(inner(request, index).body)
    body.pop("usage")
    return Reply.json_(200, body)


def test_a_provider_that_reports_no_usage_is_charged_the_estimate(
    openai_server: OpenAIFake,
) -> None:
    meter = UsageMeter(UsageLimits(), "run")
    session = session_on(openai_server, meter)
    script = analysis_script(openai_server, list(session.info.required_skills))
    openai_server.responder = lambda request, index: without_usage(request, index, script)
    asyncio.run(drive(session))
    assert meter.usage.requests == 2
    assert meter.usage.input_tokens > first_estimate(session)  # two requests' estimates
    assert meter.usage == session.usage


def test_requests_in_flight_hold_their_reservation(openai_server: OpenAIFake) -> None:
    """Two sessions at once: the second cannot spend what the first has reserved."""
    probe = session_on(openai_server, UsageMeter(UsageLimits(), "run"))
    limit = first_estimate(probe) + MAX_OUTPUT + 10
    openai_server.responder = lambda request, index: OpenAIFake.server_error().with_delay(0.3)
    meter = UsageMeter(UsageLimits(max_total_tokens=limit), "run")
    http = HttpSettings(max_attempts=1)
    first, second = (session_on(openai_server, meter, http, attempts=1) for _ in range(2))

    async def both() -> list[BaseException | None]:
        return await asyncio.gather(drive(first), drive(second), return_exceptions=True)

    outcomes = asyncio.run(both())
    assert sorted(type(o).__name__ for o in outcomes) == ["BudgetExceeded", "OverloadedError"]
    assert len(openai_server.requests) == 1
    assert meter.usage.requests == 1 and meter.usage.total_tokens <= limit


def test_a_request_that_never_connected_costs_nothing() -> None:
    with socket.socket() as probe:  # a loopback port with nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = OpenAIFake()
    closed.base_url = f"http://127.0.0.1:{port}"
    meter = UsageMeter(UsageLimits(), "run")
    session = session_on(closed, meter, HttpSettings(max_attempts=2), attempts=2)
    with pytest.raises(ProviderConnectionError) as caught:
        asyncio.run(drive(session))
    assert not caught.value.sent
    assert meter.usage == Usage() and session.usage == Usage()
