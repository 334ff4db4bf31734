"""Google Gemini API ``generateContent`` (non-streaming) wire payloads, 2025 shape.

Errors use Google's ``{"error": {"code", "message", "status", "details": [...]}}`` with
``google.rpc`` detail objects (``RetryInfo``, ``QuotaFailure``, ``ErrorInfo``, ``Help``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from tests.fakes.wire import Reply, random_id

DEFAULT_MODEL = "gemini-2.5-flash"
CONTENT_TYPE = "application/json; charset=UTF-8"
RPC = "type.googleapis.com/google.rpc."

Usage = tuple[int, int] | tuple[int, int, int]
"""``(promptTokenCount, candidatesTokenCount[, cachedContentTokenCount])``; the prompt count
includes the cached tokens (implicit caching), which are reported beside it."""

FunctionCall = tuple[str, Mapping[str, Any]]
"""``(function name, args object)``."""

FinishReason = Literal["STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "MALFORMED_FUNCTION_CALL"]


def usage_metadata(usage: Usage, thoughts_tokens: int = 0) -> dict[str, Any]:
    prompt, candidates = usage[0], usage[1]
    cached = usage[2] if len(usage) > 2 else 0
    metadata: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates + thoughts_tokens,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
    }
    if cached:
        metadata["cachedContentTokenCount"] = cached
        metadata["cacheTokensDetails"] = [{"modality": "TEXT", "tokenCount": cached}]
    if thoughts_tokens:
        metadata["thoughtsTokenCount"] = thoughts_tokens
    return metadata


def response(
    parts: Sequence[Mapping[str, Any]],
    *,
    finish_reason: str = "STOP",
    usage: Usage = (12, 7),
    thoughts_tokens: int = 0,
    model: str = DEFAULT_MODEL,
) -> dict[str, Any]:
    """A full ``GenerateContentResponse``; with no parts, ``content`` has only its role (as
    the API sends when ``MAX_TOKENS`` is hit while thinking)."""
    content: dict[str, Any] = {"role": "model"}
    if parts:
        content = {"parts": [dict(part) for part in parts], "role": "model"}
    return {
        "candidates": [{"content": content, "finishReason": finish_reason, "index": 0}],
        "usageMetadata": usage_metadata(usage, thoughts_tokens),
        "modelVersion": model,
        "responseId": random_id("", 22),
    }


def _ok(body: Mapping[str, Any]) -> Reply:
    return Reply.json_(200, body, content_type=CONTENT_TYPE)


def text(
    text: str | None,
    usage: Usage = (12, 7),
    *,
    finish_reason: FinishReason = "STOP",
    thought_signature: str | None = None,
    thoughts_tokens: int = 0,
    model: str = DEFAULT_MODEL,
) -> Reply:
    """A plain answer; ``text=None`` gives a candidate without parts."""
    parts: list[dict[str, Any]] = []
    if text is not None:
        parts.append({"text": text})
        if thought_signature is not None:
            parts[0]["thoughtSignature"] = thought_signature
    body = response(
        parts,
        finish_reason=finish_reason,
        usage=usage,
        thoughts_tokens=thoughts_tokens,
        model=model,
    )
    return _ok(body)


def function_calls(
    calls: Sequence[FunctionCall],
    thought_signature: str | None = None,
    usage: Usage = (12, 7),
    *,
    text: str | None = None,
    finish_reason: FinishReason = "STOP",
    thoughts_tokens: int = 0,
    model: str = DEFAULT_MODEL,
) -> Reply:
    """``functionCall`` parts (finishReason stays "STOP"); ``thought_signature`` goes on the
    first function-call part, as Gemini does for parallel calls."""
    parts: list[dict[str, Any]] = [{"text": text}] if text is not None else []
    for position, (name, args) in enumerate(calls):
        part: dict[str, Any] = {"functionCall": {"name": name, "args": dict(args)}}
        if position == 0 and thought_signature is not None:
            part["thoughtSignature"] = thought_signature
        parts.append(part)
    body = response(
        parts,
        finish_reason=finish_reason,
        usage=usage,
        thoughts_tokens=thoughts_tokens,
        model=model,
    )
    return _ok(body)


def blocked(reason: str = "PROHIBITED_CONTENT") -> Reply:
    """200 without candidates: the prompt itself was blocked."""
    body = {
        "promptFeedback": {"blockReason": reason},
        "usageMetadata": usage_metadata((12, 0)),
        "modelVersion": DEFAULT_MODEL,
        "responseId": random_id("", 22),
    }
    return _ok(body)


# -- errors -----------------------------------------------------------------------------------


def error(
    code: int,
    status: str,
    message: str,
    details: Sequence[Mapping[str, Any]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Reply:
    inner: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        inner["details"] = [dict(detail) for detail in details]
    return Reply.json_(code, {"error": inner}, headers, content_type=CONTENT_TYPE)


def retry_info(retry_delay: str) -> dict[str, Any]:
    return {"@type": f"{RPC}RetryInfo", "retryDelay": retry_delay}


def quota_failure(quota_id: str, model: str = DEFAULT_MODEL, value: str = "10") -> dict[str, Any]:
    metric = "generativelanguage.googleapis.com/generate_content_free_tier_requests"
    return {
        "@type": f"{RPC}QuotaFailure",
        "violations": [
            {
                "quotaMetric": metric,
                "quotaId": quota_id,
                "quotaDimensions": {"location": "global", "model": model},
                "quotaValue": value,
            }
        ],
    }


def _help() -> dict[str, Any]:
    return {
        "@type": f"{RPC}Help",
        "links": [
            {
                "description": "Learn more about Gemini API quotas",
                "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
            }
        ],
    }


def _quota_message(model: str, value: str, retry_delay: str | None) -> str:
    message = (
        "You exceeded your current quota, please check your plan and billing details. For more "
        "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. "
        "To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \n"
        "* Quota exceeded for metric: "
        "generativelanguage.googleapis.com/generate_content_free_tier_requests, "
        f"limit: {value}, model: {model}"
    )
    if retry_delay is not None:
        message += f"\nPlease retry in {retry_delay}."
    return message


def rate_limited(
    retry_delay: str = "2s",
    *,
    quota_id: str | None = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
    model: str = DEFAULT_MODEL,
) -> Reply:
    """429 RESOURCE_EXHAUSTED with ``RetryInfo.retryDelay``. Like the real API, it also carries
    a per-*minute* ``QuotaFailure`` violation unless ``quota_id=None``."""
    details = [quota_failure(quota_id, model)] if quota_id is not None else []
    details += [_help(), retry_info(retry_delay)]
    return error(429, "RESOURCE_EXHAUSTED", _quota_message(model, "10", retry_delay), details)


def quota_exhausted(
    *,
    quota_id: str = "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
    retry_delay: str | None = None,
    model: str = DEFAULT_MODEL,
) -> Reply:
    """429 RESOURCE_EXHAUSTED for a daily quota (``QuotaFailure``, ``PerDay`` quotaId). The real
    API often adds a short ``RetryInfo`` even here: pass ``retry_delay`` to reproduce that."""
    details = [quota_failure(quota_id, model, "250"), _help()]
    if retry_delay is not None:
        details.append(retry_info(retry_delay))
    return error(429, "RESOURCE_EXHAUSTED", _quota_message(model, "250", retry_delay), details)


def server_error(
    message: str = "An internal error has occurred. Please retry or report in "
    "https://developers.generativeai.google/guide/troubleshooting",
) -> Reply:
    return error(500, "INTERNAL", message)


def unavailable(message: str = "The model is overloaded. Please try again later.") -> Reply:
    return error(503, "UNAVAILABLE", message)


def invalid_argument(message: str) -> Reply:
    return error(400, "INVALID_ARGUMENT", message)


def invalid_json_body(detail: str = "Unexpected token.") -> Reply:
    return invalid_argument(f'Invalid JSON payload received. {detail}\n{{"contents":\n^')


def not_found(message: str = "Requested entity was not found.") -> Reply:
    return error(404, "NOT_FOUND", message)


def model_not_found(model: str, api_version: str = "v1beta") -> Reply:
    return not_found(
        f"models/{model} is not found for API version {api_version}, or is not supported for "
        "generateContent. Call ListModels to see the list of available models and their "
        "supported methods."
    )


def missing_api_key() -> Reply:
    message = (
        "Method doesn't allow unregistered callers (callers without established identity). "
        "Please use API Key or other form of API consumer identity to call this API."
    )
    return error(403, "PERMISSION_DENIED", message)


def invalid_api_key() -> Reply:
    details: list[dict[str, Any]] = [
        {
            "@type": f"{RPC}ErrorInfo",
            "reason": "API_KEY_INVALID",
            "domain": "googleapis.com",
            "metadata": {"service": "generativelanguage.googleapis.com"},
        },
        {
            "@type": f"{RPC}LocalizedMessage",
            "locale": "en-US",
            "message": "API key not valid. Please pass a valid API key.",
        },
    ]
    return error(
        400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", details
    )
