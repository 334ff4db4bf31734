"""Self-tests: each fake's payloads and rejections match the provider's wire shapes."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.fakes import AnthropicFake, GeminiFake, OpenAIFake
from tests.fakes.clients import ANTHROPIC_HEADERS, GEMINI_HEADERS, GEMINI_PATH, OPENAI_HEADERS
from tests.fakes.clients import caller as _caller

# -- OpenAI -----------------------------------------------------------------------------------


def test_openai_text_roundtrip_and_capture(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(openai_server.text("hello", usage=(20, 3)))
    response = _caller(openai_server)()
    assert response.status_code == 200
    data = response.json()
    assert data["object"] == "chat.completion"
    assert data["id"].startswith("chatcmpl-")
    choice = data["choices"][0]
    assert choice["finish_reason"] == "stop"
    assert choice["message"] == {
        "role": "assistant",
        "content": "hello",
        "refusal": None,
        "annotations": [],
    }
    assert data["usage"]["prompt_tokens"] == 20
    assert data["usage"]["total_tokens"] == 23
    captured = openai_server.last_request
    assert captured.method == "POST"
    assert captured.path == "/v1/chat/completions"
    assert captured.headers["authorization"] == "Bearer sk-test"
    assert captured.json()["model"] == "gpt-4o"


def test_openai_tool_calls_send_arguments_as_json_strings(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(
        openai_server.tool_calls([("call_1", "read_file", '{"path": "a.py"}')]),
        openai_server.tool_calls_invalid_json(),
        openai_server.text("cut", finish_reason="length"),
    )
    call = _caller(openai_server)
    first = call().json()["choices"][0]
    assert first["finish_reason"] == "tool_calls"
    assert first["message"]["content"] is None
    tool_call = first["message"]["tool_calls"][0]
    assert tool_call == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "a.py"}'},
    }
    broken = call().json()["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken)
    assert call().json()["choices"][0]["finish_reason"] == "length"


def test_openai_github_models_prefix(github_models_server: OpenAIFake) -> None:
    github_models_server.enqueue(github_models_server.text("hi"))
    assert github_models_server.api_base.endswith("/inference")
    assert _caller(github_models_server)().status_code == 200
    assert github_models_server.last_request.path == "/inference/chat/completions"
    with OpenAIFake(path_prefix="") as bare:
        bare.enqueue(bare.text("hi"))
        assert (
            httpx.post(
                f"{bare.base_url}/chat/completions", json={}, headers=OPENAI_HEADERS
            ).status_code
            == 200
        )


def test_openai_rejections_use_openai_error_shape(openai_server: OpenAIFake) -> None:
    response = httpx.post(
        f"{openai_server.base_url}/v1/completions", json={}, headers=OPENAI_HEADERS
    )
    assert response.status_code == 404
    assert response.json() == {
        "error": {
            "message": "Invalid URL (POST /v1/completions)",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
    }
    call = _caller(openai_server)
    assert httpx.get(f"{openai_server.api_base}/chat/completions").status_code == 404
    assert call(headers={}).status_code == 401
    assert (
        call(
            content=b"{nope", headers={**OPENAI_HEADERS, "content-type": "application/json"}
        ).status_code
        == 400
    )
    assert openai_server.pending == 0 and len(openai_server.requests) == 4


def test_openai_api_key_and_model_checks() -> None:
    with OpenAIFake(api_key="sk-right", models={"gpt-4o"}) as server:
        call = _caller(server)
        wrong = call(headers={"authorization": "Bearer sk-wrong-key"})
        assert wrong.status_code == 401
        assert wrong.json()["error"]["code"] == "invalid_api_key"
        missing = call(headers={"authorization": "Bearer sk-right"}, json={"model": "gpt-9"})
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "model_not_found"


def test_openai_rate_limit_and_quota(openai_server: OpenAIFake) -> None:
    openai_server.enqueue(
        openai_server.rate_limited(retry_after_seconds=2, retry_after_ms=1500),
        openai_server.rate_limited(),
        openai_server.quota_exhausted(),
        openai_server.server_error(),
        openai_server.github_rate_limited(7),
    )
    call = _caller(openai_server)
    limited = call()
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "2"
    assert limited.headers["retry-after-ms"] == "1500"
    assert limited.json()["error"]["type"] == "requests"
    assert limited.json()["error"]["code"] == "rate_limit_exceeded"
    bare = call()
    assert "retry-after" not in bare.headers and "retry-after-ms" not in bare.headers
    quota = call()
    assert quota.status_code == 429
    assert quota.json()["error"]["code"] == quota.json()["error"]["type"] == "insufficient_quota"
    assert call().json()["error"]["type"] == "server_error"
    github = call()
    assert github.headers["retry-after"] == "7"
    assert github.json()["error"]["code"] == "RateLimitReached"


# -- Anthropic --------------------------------------------------------------------------------


def test_anthropic_text_and_tool_use(anthropic_server: AnthropicFake) -> None:
    anthropic_server.enqueue(
        anthropic_server.text("hello", usage=(30, 4)),
        anthropic_server.tool_use(
            [("toolu_01A", "read_file", {"path": "a.py"})], text="Let me look."
        ),
        anthropic_server.text("partial", stop_reason="max_tokens"),
    )
    call = _caller(anthropic_server)
    first = call().json()
    assert first["id"].startswith("msg_")
    assert (first["type"], first["role"], first["stop_reason"]) == (
        "message",
        "assistant",
        "end_turn",
    )
    assert first["content"] == [{"type": "text", "text": "hello"}]
    assert first["usage"]["input_tokens"] == 30 and first["usage"]["output_tokens"] == 4
    second = call().json()
    assert second["stop_reason"] == "tool_use"
    assert second["content"] == [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_01A", "name": "read_file", "input": {"path": "a.py"}},
    ]
    assert call().json()["stop_reason"] == "max_tokens"


def test_anthropic_header_checks(anthropic_server: AnthropicFake) -> None:
    call = _caller(anthropic_server)
    no_key = call(headers={"anthropic-version": "2023-06-01"})
    assert no_key.status_code == 401
    body = no_key.json()
    assert body["type"] == "error"
    assert body["error"] == {
        "type": "authentication_error",
        "message": "x-api-key header is required",
    }
    assert body["request_id"] == no_key.headers["request-id"]
    no_version = call(headers={"x-api-key": "k"})
    assert no_version.status_code == 400
    assert no_version.json()["error"]["type"] == "invalid_request_error"
    wrong_path = httpx.post(
        f"{anthropic_server.base_url}/v1/complete", json={}, headers=ANTHROPIC_HEADERS
    )
    assert wrong_path.status_code == 404
    assert wrong_path.json()["error"]["type"] == "not_found_error"


def test_anthropic_errors(anthropic_server: AnthropicFake) -> None:
    anthropic_server.enqueue(
        anthropic_server.overloaded(),
        anthropic_server.rate_limited(retry_after_seconds=3),
        anthropic_server.server_error(),
        anthropic_server.invalid_request("messages: field required"),
    )
    call = _caller(anthropic_server)
    overloaded = call()
    assert overloaded.status_code == 529
    assert overloaded.json()["error"]["type"] == "overloaded_error"
    limited = call()
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "3"
    assert limited.headers["anthropic-ratelimit-requests-remaining"] == "0"
    assert limited.json()["error"]["type"] == "rate_limit_error"
    assert call().json()["error"]["type"] == "api_error"
    invalid = call()
    assert invalid.status_code == 400
    assert invalid.json()["error"] == {
        "type": "invalid_request_error",
        "message": "messages: field required",
    }


# -- Gemini -----------------------------------------------------------------------------------


def test_gemini_text_and_function_calls(gemini_server: GeminiFake) -> None:
    gemini_server.enqueue(
        gemini_server.text("hello", usage=(8, 2)),
        gemini_server.function_calls(
            [("read_file", {"path": "a.py"}), ("git_log", {})], thought_signature="c2ln"
        ),
        gemini_server.text(None, finish_reason="MAX_TOKENS"),
    )
    call = _caller(gemini_server)
    first = call()
    assert first.headers["content-type"].startswith("application/json")
    data = first.json()
    candidate = data["candidates"][0]
    assert candidate["content"] == {"parts": [{"text": "hello"}], "role": "model"}
    assert candidate["finishReason"] == "STOP"
    assert data["usageMetadata"]["promptTokenCount"] == 8
    assert data["usageMetadata"]["candidatesTokenCount"] == 2
    assert data["usageMetadata"]["totalTokenCount"] == 10
    assert data["modelVersion"] == "gemini-2.5-flash"
    parts = call().json()["candidates"][0]["content"]["parts"]
    assert parts == [
        {
            "functionCall": {"name": "read_file", "args": {"path": "a.py"}},
            "thoughtSignature": "c2ln",
        },
        {"functionCall": {"name": "git_log", "args": {}}},
    ]
    truncated = call().json()["candidates"][0]
    assert truncated["finishReason"] == "MAX_TOKENS"
    assert "parts" not in truncated["content"]
    assert gemini_server.requested_model(gemini_server.last_request) == "gemini-2.5-flash"


def test_gemini_auth_and_routes(gemini_server: GeminiFake) -> None:
    call = _caller(gemini_server)
    no_key = call(headers={})
    assert no_key.status_code == 403
    assert no_key.json()["error"]["status"] == "PERMISSION_DENIED"
    gemini_server.enqueue(gemini_server.text("ok"))
    url = f"{gemini_server.base_url}{GEMINI_PATH}?key=AIza-query"
    assert httpx.post(url, json={"contents": []}).status_code == 200
    assert gemini_server.last_request.path.endswith("?key=AIza-query")
    stream = f"{gemini_server.base_url}/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    wrong = httpx.post(stream, json={}, headers=GEMINI_HEADERS)
    assert wrong.status_code == 404
    assert wrong.json() == {
        "error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND"}
    }
    with GeminiFake(api_key="AIza-right") as strict:
        bad = _caller(strict)()
        assert bad.status_code == 400
        assert bad.json()["error"]["details"][0]["reason"] == "API_KEY_INVALID"


def test_gemini_errors(gemini_server: GeminiFake) -> None:
    gemini_server.enqueue(
        gemini_server.rate_limited(retry_delay="2s"),
        gemini_server.quota_exhausted(),
        gemini_server.server_error(),
        gemini_server.unavailable(),
    )
    call = _caller(gemini_server)
    limited = call()
    assert limited.status_code == 429
    error = limited.json()["error"]
    assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
    retry = [d for d in error["details"] if d["@type"].endswith("google.rpc.RetryInfo")]
    assert retry == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}]
    quota = call().json()["error"]
    assert quota["status"] == "RESOURCE_EXHAUSTED"
    assert "quota" in quota["message"].lower()
    failure = next(d for d in quota["details"] if d["@type"].endswith("google.rpc.QuotaFailure"))
    assert (
        failure["violations"][0]["quotaId"] == "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
    )
    assert not any(d["@type"].endswith("RetryInfo") for d in quota["details"])
    internal = call()
    assert (internal.status_code, internal.json()["error"]["status"]) == (500, "INTERNAL")
    unavailable = call()
    assert (unavailable.status_code, unavailable.json()["error"]["status"]) == (503, "UNAVAILABLE")
