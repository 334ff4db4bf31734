"""Gemini ``generateContent``: ``systemInstruction``, ``functionDeclarations``,
``functionCall`` / ``functionResponse`` parts, thought signatures returned
unchanged, and ``RetryInfo`` in error bodies."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import SecretStr

from thresher.llm.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedResponseError,
    OverloadedError,
    ProviderError,
    QuotaExhaustedError,
    RateLimitedError,
)
from thresher.llm.http import error_json, retry_after_seconds
from thresher.llm.messages import (
    AssistantMessage,
    AssistantPart,
    Message,
    ModelResponse,
    ModelSettings,
    StopReason,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolDefinition,
    ToolResultsMessage,
    Usage,
    UserMessage,
)
from thresher.llm.providers.base import HttpModel

_STOP = {
    "STOP": StopReason.END_TURN,
    "MAX_TOKENS": StopReason.MAX_TOKENS,
    "SAFETY": StopReason.CONTENT_FILTER,
    "RECITATION": StopReason.CONTENT_FILTER,
    "PROHIBITED_CONTENT": StopReason.CONTENT_FILTER,
}
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"
_QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure"
# Keywords of the OpenAPI 3.0 schema subset that functionDeclarations accept.
_SCHEMA_KEYS = {
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
}


def gemini_headers(key: SecretStr | None) -> dict[str, str]:
    return {"x-goog-api-key": key.get_secret_value()} if key else {}


class GeminiModel(HttpModel):
    async def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        settings: ModelSettings,
    ) -> ModelResponse:
        system = "\n\n".join(m.text for m in messages if isinstance(m, SystemMessage))
        config: dict[str, Any] = {"maxOutputTokens": settings.max_tokens}
        if settings.temperature is not None:
            config["temperature"] = settings.temperature
        payload: dict[str, Any] = {"contents": to_contents(messages), "generationConfig": config}
        if system:
            payload["systemInstruction"] = {"parts": [{"text": system}]}
        if tools:
            payload["tools"] = [
                {
                    "functionDeclarations": [
                        {
                            "name": t.name,
                            "description": t.description,
                            "parameters": gemini_schema(t.parameters),
                        }
                        for t in tools
                    ]
                }
            ]
        path = f"v1beta/models/{quote(self.model_name, safe='')}:generateContent"
        return await self.http.post_json(
            path,
            payload,
            settings,
            classify=self._classify,
            delay_hint=retry_delay,
            parse=self._parse,
        )

    def _parse(self, data: dict[str, Any]) -> ModelResponse:
        candidates = data.get("candidates")
        if not isinstance(candidates, list) or not candidates:
            feedback = data.get("promptFeedback") or {}
            if feedback.get("blockReason"):
                return ModelResponse(
                    parts=(),
                    stop_reason=StopReason.CONTENT_FILTER,
                    usage=_usage(data),
                    model=self.model_name,
                )
            raise MalformedResponseError(
                "no candidates in the response", provider=self.provider, body=json.dumps(data)[:500]
            )
        candidate = candidates[0]
        parts: list[AssistantPart] = []
        raw_parts = (candidate.get("content") or {}).get("parts") or []
        for index, part in enumerate(raw_parts):
            if "functionCall" in part:
                call = part["functionCall"] or {}
                args = call.get("args")
                extra = (
                    {"thought_signature": part["thoughtSignature"]}
                    if "thoughtSignature" in part
                    else {}
                )
                parts.append(
                    ToolCallPart(
                        id=str(call.get("id") or f"gemini_call_{index}_{call.get('name', '')}"),
                        name=str(call.get("name", "")),
                        arguments=args if isinstance(args, dict) else {},
                        arguments_error=None
                        if isinstance(args, dict | None)
                        else "function arguments must be an object",
                        provider_data=extra,
                    )
                )
            elif "text" in part and not part.get("thought"):
                parts.append(TextPart(text=str(part["text"])))
        stop = _STOP.get(str(candidate.get("finishReason")), StopReason.OTHER)
        if stop is StopReason.END_TURN and any(isinstance(p, ToolCallPart) for p in parts):
            stop = StopReason.TOOL_USE
        return ModelResponse(
            parts=tuple(parts),
            stop_reason=stop,
            usage=_usage(data),
            model=str(data.get("modelVersion") or self.model_name),
        )

    def _classify(self, response: httpx.Response) -> ProviderError:
        info, message, args = self.error_parts(response)
        status = response.status_code
        if status == 429:
            if _daily_quota(info):
                return QuotaExhaustedError(
                    message,
                    hint="the daily quota is used up; wait for the reset or raise the quota",
                    **args,
                )
            return RateLimitedError(message, **args)
        if status in (401, 403):
            return AuthenticationError(message, hint="check GEMINI_API_KEY", **args)
        if status >= 500:
            return OverloadedError(message, **args)
        return BadRequestError(message, **args)


def _daily_quota(info: dict[str, Any]) -> bool:
    """Per-minute limits carry a RetryInfo and are worth waiting for; per-day
    quotas (or a QuotaFailure without RetryInfo) are not."""
    details = [d for d in info.get("details") or [] if isinstance(d, dict)]
    failures = [d for d in details if d.get("@type") == _QUOTA_FAILURE]
    quota_ids = [
        str(v.get("quotaId", ""))
        for f in failures
        for v in f.get("violations") or []
        if isinstance(v, dict)
    ]
    if any("perday" in q.lower() for q in quota_ids):
        return True
    has_retry = any(d.get("@type") == _RETRY_INFO for d in details)
    return bool(failures) and not has_retry


def retry_delay(response: httpx.Response) -> float | None:
    """``RetryInfo.retryDelay`` ("2s", "0.5s") from the error body, else Retry-After."""
    error = error_json(response).get("error")
    for detail in (error or {}).get("details") or [] if isinstance(error, dict) else []:
        if isinstance(detail, dict) and detail.get("@type") == _RETRY_INFO:
            match = re.fullmatch(r"\s*([0-9.]+)s\s*", str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return retry_after_seconds(response)


def _usage(data: dict[str, Any]) -> Usage:
    meta = data.get("usageMetadata") or {}
    output = int(meta.get("candidatesTokenCount") or 0) + int(meta.get("thoughtsTokenCount") or 0)
    # promptTokenCount includes the implicitly or explicitly cached part.
    return Usage(
        requests=1,
        input_tokens=int(meta.get("promptTokenCount") or 0),
        output_tokens=output,
        cached_input_tokens=int(meta.get("cachedContentTokenCount") or 0),
    )


def to_contents(messages: Sequence[Message]) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = []

    def add(role: str, parts: list[dict[str, Any]]) -> None:
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts})

    for message in messages:
        match message:
            case SystemMessage():
                continue
            case UserMessage(text=text):
                add("user", [{"text": text}])
            case ToolResultsMessage(results=results):
                add(
                    "user",
                    [
                        {
                            "functionResponse": {
                                "name": r.name,
                                "response": {"error": r.content}
                                if r.is_error
                                else {"content": r.content},
                            }
                        }
                        for r in results
                    ],
                )
            case AssistantMessage(parts=parts):
                wire: list[dict[str, Any]] = []
                for part in parts:
                    if isinstance(part, TextPart):
                        wire.append({"text": part.text})
                    else:
                        item: dict[str, Any] = {
                            "functionCall": {"name": part.name, "args": part.arguments}
                        }
                        if "thought_signature" in part.provider_data:
                            item["thoughtSignature"] = part.provider_data["thought_signature"]
                        wire.append(item)
                add("model", wire or [{"text": "(no content)"}])
    return contents


def gemini_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema (pydantic output) -> the OpenAPI subset Gemini accepts:
    ``$ref`` inlined, ``anyOf [X, null]`` -> nullable X, unknown keywords dropped."""
    definitions = schema.get("$defs", {})

    def convert(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            name = str(node["$ref"]).rsplit("/", 1)[-1]
            merged = {**definitions.get(name, {}), **{k: v for k, v in node.items() if k != "$ref"}}
            return convert(merged)
        if "anyOf" in node:
            options = [o for o in node["anyOf"] if o != {"type": "null"}]
            nullable = len(options) < len(node["anyOf"])
            base = convert(options[0]) if options else {"type": "string"}
            if nullable:
                base["nullable"] = True
            if "description" in node:
                base["description"] = node["description"]
            return base
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key not in _SCHEMA_KEYS:
                continue
            if key == "properties":
                out[key] = {name: convert(prop) for name, prop in value.items()}
            elif key == "items":
                out[key] = convert(value)
            else:
                out[key] = value
        if out.get("type") == "object" and "properties" not in out:
            out["properties"] = {}
        return out

    result = convert(schema)
    return result if isinstance(result, dict) else {"type": "object", "properties": {}}
