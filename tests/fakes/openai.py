"""OpenAI Chat Completions (non-streaming) wire payloads, shaped like the 2025 API reference.

Also covers OpenAI-compatible hosts such as GitHub Models (``models.github.ai/inference``),
which answer with the same ``chat.completion`` object.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from tests.fakes.wire import Reply, random_id, seconds_header

DEFAULT_MODEL = "gpt-4o-2024-08-06"

Usage = tuple[int, int] | tuple[int, int, int]
"""``(prompt_tokens, completion_tokens[, cached_tokens])``; ``total_tokens`` is the sum of the
first two. ``prompt_tokens`` includes the cached ones (``prompt_tokens_details.cached_tokens``
is the part of it OpenAI's automatic prompt caching served)."""

ToolCall = tuple[str, str, str | Mapping[str, Any]]
"""``(id, function name, arguments)``; arguments is the JSON *string* OpenAI sends (a mapping
is serialised for convenience)."""


def _headers(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {"x-request-id": random_id("req_", 32), "openai-processing-ms": "321", **(extra or {})}


def usage_block(usage: Usage) -> dict[str, Any]:
    prompt, completion = usage[0], usage[1]
    cached = usage[2] if len(usage) > 2 else 0
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def completion(
    message: Mapping[str, Any],
    *,
    finish_reason: str,
    usage: Usage = (12, 7),
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """A full ``chat.completion`` object around one assistant ``message``."""
    return {
        "id": random_id("chatcmpl-", 29),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": dict(message), "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": usage_block(usage),
        "service_tier": "default",
        "system_fingerprint": "fp_f33640a400",
    }


def text(
    content: str | None,
    usage: Usage = (12, 7),
    *,
    finish_reason: Literal["stop", "length", "content_filter"] = "stop",
    model: str = DEFAULT_MODEL,
) -> Reply:
    """A plain assistant answer (``finish_reason`` "stop", or "length" when cut off)."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "refusal": None,
        "annotations": [],
    }
    body = completion(message, finish_reason=finish_reason, usage=usage, model=model)
    return Reply.json_(200, body, _headers())


def tool_calls(
    calls: Sequence[ToolCall],
    usage: Usage = (12, 7),
    *,
    content: str | None = None,
    finish_reason: Literal["tool_calls", "length", "stop"] = "tool_calls",
    model: str = DEFAULT_MODEL,
) -> Reply:
    """An assistant turn requesting one or more function calls."""
    message = {
        "role": "assistant",
        "content": content,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": arguments
                    if isinstance(arguments, str)
                    else json.dumps(arguments, separators=(",", ":")),
                },
            }
            for call_id, name, arguments in calls
        ],
        "refusal": None,
        "annotations": [],
    }
    body = completion(message, finish_reason=finish_reason, usage=usage, model=model)
    return Reply.json_(200, body, _headers())


def tool_calls_invalid_json(
    name: str = "read_file",
    call_id: str = "call_invalid_args",
    arguments: str = '{"path": "src/app.py", "start_line": ',
    usage: Usage = (12, 7),
    *,
    model: str = DEFAULT_MODEL,
) -> Reply:
    """A tool call whose ``arguments`` string is not valid JSON (models do emit these)."""
    return tool_calls([(call_id, name, arguments)], usage, model=model)


# -- errors: {"error": {"message", "type", "param", "code"}} -----------------------------------


def error(
    status: int,
    message: str,
    type: str = "invalid_request_error",
    code: str | None = None,
    *,
    param: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    body = {"error": {"message": message, "type": type, "param": param, "code": code}}
    return Reply.json_(status, body, _headers(headers))


def rate_limited(
    retry_after_seconds: float | None = None,
    retry_after_ms: int | None = None,
    *,
    kind: Literal["requests", "tokens"] = "requests",
    model: str = DEFAULT_MODEL,
) -> Reply:
    """429 ``rate_limit_exceeded``; the retry headers are only sent when given (as in real
    life, where they are often absent)."""
    wait = retry_after_seconds if retry_after_seconds is not None else 20
    unit = "requests per min (RPM): Limit 500, Used 500, Requested 1"
    if kind == "tokens":
        unit = "tokens per min (TPM): Limit 30000, Used 29500, Requested 1200"
    message = (
        f"Rate limit reached for {model} in organization org-fake0000000000000000000 on "
        f"{unit}. Please try again in {seconds_header(wait)}s. Visit "
        "https://platform.openai.com/account/rate-limits to learn more."
    )
    headers = {
        "x-ratelimit-limit-requests": "500",
        "x-ratelimit-remaining-requests": "0" if kind == "requests" else "499",
        "x-ratelimit-reset-requests": f"{seconds_header(wait)}s",
        "x-ratelimit-limit-tokens": "30000",
        "x-ratelimit-remaining-tokens": "500" if kind == "tokens" else "30000",
        "x-ratelimit-reset-tokens": "1.4s",
    }
    if retry_after_seconds is not None:
        headers["retry-after"] = seconds_header(retry_after_seconds)
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    return error(429, message, kind, "rate_limit_exceeded", headers=headers)


def quota_exhausted() -> Reply:
    """429 ``insufficient_quota``: billing, not a transient limit; retrying will not help."""
    message = (
        "You exceeded your current quota, please check your plan and billing details. For "
        "more information on this error, read the docs: "
        "https://platform.openai.com/docs/guides/error-codes/api-errors."
    )
    return error(429, message, "insufficient_quota", "insufficient_quota")


def server_error(message: str | None = None) -> Reply:
    return error(
        500,
        message or "The server had an error while processing your request. Sorry about that!",
        "server_error",
    )


def overloaded() -> Reply:
    """503 as OpenAI sends it when the engine is overloaded."""
    message = "The engine is currently overloaded, please try again later"
    return error(503, message, "server_error", "engine_overloaded")


def not_found(method: str, path: str) -> Reply:
    return error(404, f"Invalid URL ({method} {path})")


def missing_api_key() -> Reply:
    message = (
        "You didn't provide an API key. You need to provide your API key in an Authorization "
        "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password "
        "field (with blank username) if you're accessing the API from your browser and are "
        "prompted for a username and password. You can obtain an API key from "
        "https://platform.openai.com/account/api-keys."
    )
    return error(401, message)


def invalid_api_key(key: str = "sk-...") -> Reply:
    shown = key if len(key) <= 8 else f"{key[:3]}*****{key[-4:]}"
    message = (
        f"Incorrect API key provided: {shown}. You can find your API key at "
        "https://platform.openai.com/account/api-keys."
    )
    return error(401, message, "invalid_request_error", "invalid_api_key")


def invalid_json_body() -> Reply:
    message = (
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
        "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what "
        "was sent was not valid JSON. If you have trouble figuring out how to fix this, please "
        "contact us through our help center at help.openai.com.)"
    )
    return error(400, message)


def model_not_found(model: str) -> Reply:
    message = f"The model `{model}` does not exist or you do not have access to it."
    return error(404, message, "invalid_request_error", "model_not_found")


def context_length_exceeded(tokens: int = 140_000, limit: int = 128_000) -> Reply:
    message = (
        f"This model's maximum context length is {limit} tokens. However, your messages "
        f"resulted in {tokens} tokens. Please reduce the length of the messages."
    )
    return error(400, message, "invalid_request_error", "context_length_exceeded", param="messages")


def github_rate_limited(
    retry_after_seconds: int = 60, window: str = "UserByModelByMinute", limit: str = "15 per 60s"
) -> Reply:
    """429 as GitHub Models sends it: ``{"error": {"code": "RateLimitReached", ...}}``."""
    message = (
        f"Rate limit of {limit} exceeded for {window}. "
        f"Please wait {retry_after_seconds} seconds before retrying."
    )
    body = {"error": {"code": "RateLimitReached", "message": message, "details": message}}
    return Reply.json_(429, body, {"retry-after": str(retry_after_seconds)})
