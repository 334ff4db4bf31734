"""Deadlines, the circuit breaker and the malformed-answer retry, against loopback fakes
that hang, drip, fail and cut their bodies. Bounds on time are generous: they prove
"does not hang", where these requests used to take minutes or never end."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.fakes.servers import AnthropicFake, FakeServer, GeminiFake, OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply
from tests.llm.harness import ENV, model_for, settings_for
from thresher.agents.registry import build_models
from thresher.config.settings import HttpSettings, ProviderName
from thresher.llm.errors import (
    AuthenticationError,
    MalformedResponseError,
    OverloadedError,
    ProviderTimeoutError,
    ProviderUnavailableError,
)
from thresher.llm.messages import ModelResponse, SystemMessage, UserMessage
from thresher.llm.model import Model

P = ProviderName
ASK = [SystemMessage(text="system"), UserMessage(text="hello")]
# A read timeout that never fires on its own: only the total deadline can end these.
TIGHT = HttpSettings(connect_timeout=2, read_timeout=30, total_timeout=0.5, max_attempts=4)
SERVERS: list[tuple[type[FakeServer], ProviderName]] = [
    (OpenAIFake, P.OPENAI),
    (AnthropicFake, P.ANTHROPIC),
    (GeminiFake, P.GEMINI),
]


def base_of(server: FakeServer) -> str:
    return server.api_base if isinstance(server, OpenAIFake) else server.base_url


def always(reply: Reply) -> Any:
    return lambda request, index: reply


async def ask(model: Model, times: int = 1) -> list[ModelResponse | Exception]:
    """Send ``times`` requests in a row; collect answers and typed failures."""
    from thresher.llm.messages import ModelSettings

    out: list[ModelResponse | Exception] = []
    try:
        for _ in range(times):
            try:
                out.append(await model.request(ASK, [], ModelSettings(max_tokens=64)))
            except Exception as exc:
                out.append(exc)
    finally:
        await model.aclose()
    return out


def one(model: Model) -> ModelResponse | Exception:
    return asyncio.run(ask(model))[0]


# -- total deadline -------------------------------------------------------------------------


@pytest.mark.parametrize(("fake", "provider"), SERVERS, ids=lambda v: str(v))
def test_a_silent_provider_fails_within_the_total_deadline(
    fake: type[FakeServer], provider: ProviderName
) -> None:
    with fake() as server:
        server.responder = always(server.silent())
        started = time.monotonic()
        failure = one(model_for(provider, base_of(server), http=TIGHT))
        elapsed = time.monotonic() - started
    assert isinstance(failure, ProviderTimeoutError)
    assert "deadline" in str(failure)
    assert len(server.requests) == 2  # a timed-out attempt is retried once, not three times
    assert elapsed < 10  # two attempts of 0.5 s, not 4 x the 30 s read timeout


@pytest.mark.parametrize(("fake", "provider"), SERVERS, ids=lambda v: str(v))
def test_a_dripping_provider_is_cut_off_by_the_total_deadline(
    fake: type[FakeServer], provider: ProviderName
) -> None:
    with fake() as server:
        server.responder = always(server.dripping(0.1))  # a byte every 0.1 s, forever
        started = time.monotonic()
        failure = one(model_for(provider, base_of(server), http=TIGHT))
        elapsed = time.monotonic() - started
    assert isinstance(failure, ProviderTimeoutError)
    assert "total deadline (0.5s per attempt, 1s per request" in str(failure)
    assert failure.sent  # it reached the server: usage accounting charges it
    assert elapsed < 10


def test_a_request_and_its_retries_share_one_deadline() -> None:
    """Slow 5xx answers each fit in an attempt's deadline, but the request as a whole
    (attempts and waits) ends at twice the total timeout, however many attempts remain."""
    http = HttpSettings(connect_timeout=2, read_timeout=30, total_timeout=0.5, max_attempts=10)
    with OpenAIFake() as server:
        server.responder = always(OpenAIFake.server_error().with_delay(0.3))
        started = time.monotonic()
        failure = one(model_for(P.OPENAI, server.api_base, attempts=10, http=http))
        elapsed = time.monotonic() - started
    assert isinstance(failure, OverloadedError | ProviderTimeoutError)
    assert "deadline" in str(failure)
    assert 2 <= len(server.requests) < 10
    assert elapsed < 10


def test_read_timeout_comes_from_the_http_settings() -> None:
    http = HttpSettings(connect_timeout=2, read_timeout=0.3, total_timeout=30, max_attempts=1)
    with OpenAIFake() as server:
        server.enqueue(OpenAIFake.slow(5))
        failure = one(model_for(P.OPENAI, server.api_base, attempts=1, http=http))
    assert isinstance(failure, ProviderTimeoutError) and "ReadTimeout" in str(failure)


# -- circuit breaker ------------------------------------------------------------------------


def test_the_circuit_opens_after_k_failed_requests_and_spares_the_server() -> None:
    http = HttpSettings(total_timeout=5, max_attempts=2, breaker_failures=3)
    with OpenAIFake() as server:
        server.responder = always(OpenAIFake.server_error())
        results = asyncio.run(
            ask(model_for(P.OPENAI, server.api_base, attempts=2, http=http), times=6)
        )
        hits = len(server.requests)
    assert [type(r) for r in results[:3]] == [OverloadedError] * 3
    assert hits == 3 * 2  # three requests, each with its retry; nothing after that
    refused = results[3:]
    assert all(isinstance(r, ProviderUnavailableError) for r in refused)
    first = refused[0]
    assert isinstance(first, ProviderUnavailableError)
    assert first.provider == "openai" and not first.sent
    assert "circuit open after 3 consecutive failed requests" in str(first)
    assert "last error" in str(first)


def test_one_answered_request_resets_the_count() -> None:
    http = HttpSettings(total_timeout=5, max_attempts=1, breaker_failures=2)
    with OpenAIFake() as server:
        server.enqueue(
            OpenAIFake.server_error(),
            OpenAIFake.text("fine"),
            OpenAIFake.server_error(),
            OpenAIFake.text("still fine"),
            OpenAIFake.server_error(),
            OpenAIFake.server_error(),
        )
        results = asyncio.run(
            ask(model_for(P.OPENAI, server.api_base, attempts=1, http=http), times=7)
        )
        hits = len(server.requests)
    kinds = [type(r).__name__ for r in results]
    assert kinds == [
        "OverloadedError",
        "ModelResponse",
        "OverloadedError",
        "ModelResponse",
        "OverloadedError",
        "OverloadedError",
        "ProviderUnavailableError",
    ]
    assert hits == 6


def test_an_invalid_key_opens_the_circuit_too() -> None:
    http = HttpSettings(total_timeout=5, breaker_failures=3)
    with AnthropicFake(api_key="the-right-key") as server:
        results = asyncio.run(ask(model_for(P.ANTHROPIC, server.base_url, http=http), times=5))
        hits = len(server.requests)
    assert [type(r) for r in results] == [AuthenticationError] * 3 + [ProviderUnavailableError] * 2
    assert hits == 3  # a 401 is not retried, and the fourth request never left


def test_agents_on_one_provider_share_its_circuit() -> None:
    http = HttpSettings(total_timeout=5, max_attempts=1, breaker_failures=2)
    with OpenAIFake() as server:
        server.responder = always(OpenAIFake.server_error())
        settings = settings_for(P.OPENAI, server.api_base, http)
        models = build_models(
            {
                "analysis": "openai:gpt-a",
                "challenger": "openai:gpt-b",
                "judge": "heuristic:default",
            },
            settings,
            ENV,
        )

        async def go() -> list[ModelResponse | Exception]:
            first = await ask(models["analysis"], times=2)
            return first + await ask(models["challenger"], times=1)

        results = asyncio.run(go())
        hits = len(server.requests)
    assert isinstance(results[2], ProviderUnavailableError)
    assert hits == 2


def test_a_silent_provider_opens_the_circuit_in_bounded_time() -> None:
    """The issue's case: a provider that never answers no longer costs every finding
    attempts x timeout; after K requests the rest are refused at once."""
    http = HttpSettings(connect_timeout=2, read_timeout=30, total_timeout=0.3, breaker_failures=2)
    with GeminiFake() as server:
        server.responder = always(GeminiFake.silent())
        started = time.monotonic()
        results = asyncio.run(ask(model_for(P.GEMINI, server.base_url, http=http), times=10))
        elapsed = time.monotonic() - started
        hits = len(server.requests)
    assert [type(r) for r in results[:2]] == [ProviderTimeoutError] * 2
    assert all(isinstance(r, ProviderUnavailableError) for r in results[2:])
    assert hits == 4
    assert elapsed < 10


# -- malformed answers ----------------------------------------------------------------------


@pytest.mark.parametrize(("fake", "provider"), SERVERS, ids=lambda v: str(v))
def test_truncated_json_is_retried_once_then_answers(
    fake: type[FakeServer], provider: ProviderName
) -> None:
    with fake() as server:
        server.enqueue(server.malformed(), server.default_reply())
        answer = one(model_for(provider, base_of(server)))
        hits = len(server.requests)
    assert isinstance(answer, ModelResponse) and answer.text == "ok"
    assert hits == 2


def test_truncated_json_twice_is_a_malformed_response() -> None:
    with OpenAIFake() as server:
        server.enqueue(OpenAIFake.malformed(), OpenAIFake.malformed(), OpenAIFake.text("late"))
        failure = one(model_for(P.OPENAI, server.api_base))
        hits, pending = len(server.requests), server.pending
    assert isinstance(failure, MalformedResponseError)
    assert "not complete JSON" in str(failure)
    assert (hits, pending) == (2, 1)  # exactly one retry


def odd_shape(request: CapturedRequest, index: int) -> Reply:
    return Reply.json_(200, {"choices": [{"message": "not an object", "finish_reason": "stop"}]})


def test_a_complete_answer_of_the_wrong_shape_is_typed_and_not_retried() -> None:
    with OpenAIFake() as server:
        server.responder = odd_shape
        failure = one(model_for(P.OPENAI, server.api_base))
        hits = len(server.requests)
    assert isinstance(failure, MalformedResponseError)
    assert "unexpected response shape" in str(failure)
    assert hits == 1
