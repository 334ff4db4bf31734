"""Anthropic Messages API (non-streaming) wire payloads, shaped like the 2025 API reference.

Errors are ``{"type": "error", "error": {"type", "message"}, "request_id"}`` with a matching
``request-id`` header.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from tests.fakes.wire import Reply, random_id, seconds_header

DEFAULT_MODEL = "claude-sonnet-4-5-20250929"

Usage = tuple[int, int] | tuple[int, int, int, int]
"""``(input_tokens, output_tokens[, cache_read_input_tokens, cache_creation_input_tokens])``.
As in the API, ``input_tokens`` counts only the input after the last cache breakpoint: the
tokens read from and written to the cache are reported beside it, not in it."""

ToolUse = tuple[str, str, Mapping[str, Any]]
"""``(id, tool name, input object)``; ids look like ``toolu_01...``."""

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal"]


def tool_use_id() -> str:
    return random_id("toolu_01", 22)


def _headers(request_id: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {"request-id": request_id, **(extra or {})}


def message(
    content: Sequence[Mapping[str, Any]],
    *,
    stop_reason: str,
    usage: Usage = (12, 7),
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """A full ``message`` object with these content blocks."""
    input_tokens, output_tokens = usage[0], usage[1]
    cache_read, cache_creation = (usage[2], usage[3]) if len(usage) > 2 else (0, 0)
    return {
        "id": random_id("msg_01", 22),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [dict(block) for block in content],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": cache_creation,
            "cache_read_input_tokens": cache_read,
            "output_tokens": output_tokens,
            "service_tier": "standard",
        },
    }


def text(
    text: str,
    usage: Usage = (12, 7),
    *,
    stop_reason: StopReason = "end_turn",
    model: str = DEFAULT_MODEL,
) -> Reply:
    """A plain answer (``stop_reason`` "end_turn", or "max_tokens" when cut off)."""
    body = message(
        [{"type": "text", "text": text}], stop_reason=stop_reason, usage=usage, model=model
    )
    return Reply.json_(200, body, _headers(random_id("req_011C", 20)))


def tool_use(
    calls: Sequence[ToolUse],
    text: str | None = None,
    usage: Usage = (12, 7),
    *,
    stop_reason: StopReason = "tool_use",
    model: str = DEFAULT_MODEL,
) -> Reply:
    """An assistant turn with optional leading text and one ``tool_use`` block per call."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text is not None else []
    blocks += [
        {"type": "tool_use", "id": call_id, "name": name, "input": dict(arguments)}
        for call_id, name, arguments in calls
    ]
    body = message(blocks, stop_reason=stop_reason, usage=usage, model=model)
    return Reply.json_(200, body, _headers(random_id("req_011C", 20)))


# -- errors -----------------------------------------------------------------------------------


def error(
    status: int, error_type: str, message: str, headers: Mapping[str, str] | None = None
) -> Reply:
    request_id = random_id("req_011C", 20)
    body = {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": request_id,
    }
    return Reply.json_(status, body, _headers(request_id, headers))


def overloaded(retry_after_seconds: float | None = None) -> Reply:
    headers = (
        {} if retry_after_seconds is None else {"retry-after": seconds_header(retry_after_seconds)}
    )
    return error(529, "overloaded_error", "Overloaded", headers)


def rate_limited(retry_after_seconds: float | None = 1) -> Reply:
    """429 ``rate_limit_error`` with ``retry-after`` and the anthropic-ratelimit-* headers."""
    wait = retry_after_seconds if retry_after_seconds is not None else 1
    reset = (datetime.now(UTC) + timedelta(seconds=wait)).strftime("%Y-%m-%dT%H:%M:%SZ")
    headers = {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": reset,
    }
    if retry_after_seconds is not None:
        headers["retry-after"] = seconds_header(retry_after_seconds)
    message = (
        "This request would exceed the rate limit for your organization "
        "(00000000-0000-0000-0000-000000000000) of 50 requests per minute. For details, refer "
        "to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for "
        "current usage. Please reduce the prompt length or the maximum tokens requested, or try "
        "again later. You may also contact sales at https://www.anthropic.com/contact-sales to "
        "discuss your options for a rate limit increase."
    )
    return error(429, "rate_limit_error", message, headers)


def server_error(message: str = "Internal server error") -> Reply:
    return error(500, "api_error", message)


def invalid_request(message: str) -> Reply:
    return error(400, "invalid_request_error", message)


def credit_balance_too_low() -> Reply:
    """400 sent when the account has no credit left (not retryable)."""
    message = (
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits."
    )
    return invalid_request(message)


def authentication_error(message: str = "invalid x-api-key") -> Reply:
    return error(401, "authentication_error", message)


def missing_api_key() -> Reply:
    return authentication_error("x-api-key header is required")


def missing_version() -> Reply:
    """The real API answers 400 ``invalid_request_error`` (not 401) for this."""
    return invalid_request("anthropic-version: header is required")


def not_found(message: str = "Not Found") -> Reply:
    return error(404, "not_found_error", message)


def model_not_found(model: str) -> Reply:
    return not_found(f"model: {model}")
