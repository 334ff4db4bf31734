"""Self-tests: scripting, failures and lifecycle behave the same for all three fakes."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.fakes import AnthropicFake, CapturedRequest, FakeServer, GeminiFake, OpenAIFake, Reply
from tests.fakes.clients import OPENAI_HEADERS, endpoint
from tests.fakes.clients import caller as _caller


@pytest.fixture(
    params=[OpenAIFake, AnthropicFake, GeminiFake], ids=["openai", "anthropic", "gemini"]
)
def any_server(request: pytest.FixtureRequest) -> Iterator[FakeServer]:
    with request.param() as server:
        yield server


# -- behaviour common to all three ------------------------------------------------------------


def test_queue_exhaustion_fails_loudly(any_server: FakeServer) -> None:
    any_server.enqueue(any_server.default_reply())
    call = _caller(any_server)
    assert call().status_code == 200
    response = call()
    assert response.status_code == 500
    assert response.headers["x-fake-script"] == "exhausted"
    assert "script exhausted" in response.text
    assert "request #1" in response.text


def test_delay_triggers_client_read_timeout_and_shutdown_is_fast() -> None:
    started = time.monotonic()
    for fake in (OpenAIFake, AnthropicFake, GeminiFake):
        with fake() as server:
            server.enqueue(server.slow(30))
            with pytest.raises(httpx.ReadTimeout):
                _caller(server)(timeout=httpx.Timeout(5.0, read=0.2))
    assert time.monotonic() - started < 5


def test_slow_reply_arrives_after_its_delay(any_server: FakeServer) -> None:
    any_server.enqueue(any_server.slow(0.3))
    started = time.monotonic()
    assert _caller(any_server)().status_code == 200
    assert time.monotonic() - started >= 0.3


def test_drop_closes_without_response(any_server: FakeServer) -> None:
    any_server.enqueue(Reply.dropped())
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        _caller(any_server)()


def test_silent_never_answers_and_shutdown_is_fast(any_server: FakeServer) -> None:
    any_server.enqueue(any_server.silent())
    with pytest.raises(httpx.ReadTimeout):
        _caller(any_server)(timeout=httpx.Timeout(5.0, read=0.3))
    started = time.monotonic()
    any_server.stop()
    assert time.monotonic() - started < 3


def test_dripping_sends_a_byte_per_interval_and_never_trips_a_read_timeout(
    any_server: FakeServer,
) -> None:
    any_server.enqueue(any_server.dripping(0.05))
    url, headers, body = endpoint(any_server)
    received = b""
    with httpx.stream(
        "POST", url, json=body, headers=headers, timeout=httpx.Timeout(5.0, read=0.5)
    ) as response:
        assert response.status_code == 200
        for chunk in response.iter_raw():
            received += chunk
            if len(received) >= 5:
                break
    assert received == b" " * len(received) and len(received) >= 5
    started = time.monotonic()
    any_server.stop()
    assert time.monotonic() - started < 3


def test_truncated_body_is_a_protocol_error(any_server: FakeServer) -> None:
    any_server.enqueue(any_server.default_reply().truncated(10))
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        _caller(any_server)()


def test_malformed_is_200_but_not_json(any_server: FakeServer) -> None:
    any_server.enqueue(any_server.malformed())
    response = _caller(any_server)()
    assert response.status_code == 200
    with pytest.raises(json.JSONDecodeError):
        response.json()


def test_responder_drives_multi_turn_session(any_server: FakeServer) -> None:
    seen: list[tuple[int, object]] = []

    def respond(request: CapturedRequest, index: int) -> Reply:
        seen.append((index, request.json()))
        return Reply.json_(200, {"turn": index}) if index < 2 else any_server.default_reply()

    any_server.enqueue(Reply.json_(200, {"queued": True}))
    any_server.responder = respond
    call = _caller(any_server)
    assert call(json={"n": 0}).json() == {"queued": True}  # queue goes first
    assert call(json={"n": 1}).json() == {"turn": 1}
    assert call(json={"n": 2}).status_code == 200
    assert seen == [(1, {"n": 1}), (2, {"n": 2})]


def test_responder_exception_becomes_500_and_is_recorded(any_server: FakeServer) -> None:
    def broken(request: CapturedRequest, index: int) -> Reply:
        raise KeyError("boom")

    any_server.responder = broken
    response = _caller(any_server)()
    assert response.status_code == 500
    assert "boom" in response.text
    assert isinstance(any_server.errors[0], KeyError)


def test_keep_alive_client_does_not_block_shutdown() -> None:
    server = OpenAIFake().start()
    server.enqueue(server.text("a"), server.text("b"))
    with httpx.Client(headers=OPENAI_HEADERS, timeout=5.0) as client:
        url = f"{server.api_base}/chat/completions"
        assert client.post(url, json={}).status_code == 200
        assert client.post(url, json={}).status_code == 200
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 2
    server.stop()  # idempotent


def test_reply_helpers() -> None:
    reply = Reply.json_(201, {"a": 1}, {"x-y": "z"})
    assert (reply.status, reply.json(), reply.headers["x-y"]) == (201, {"a": 1}, "z")
    raw = Reply.raw(200, b"<html>", "text/html")
    assert (raw.body, raw.content_type) == (b"<html>", "text/html")
    assert reply.with_delay(1.5).delay == 1.5
    assert reply.with_headers({"b": "c"}).headers == {"x-y": "z", "b": "c"}


def test_chunked_request_body_is_captured(any_server: FakeServer) -> None:
    any_server.enqueue(any_server.default_reply())
    response = _caller(any_server)(json=None, content=iter([b'{"model": ', b'"m"}']))
    assert response.status_code == 200
    assert any_server.last_request.headers["transfer-encoding"] == "chunked"
    assert any_server.last_request.json() == {"model": "m"}
