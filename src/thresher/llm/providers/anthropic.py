"""Anthropic Messages API: top-level ``system``, required ``max_tokens``,
``tool_use`` blocks, and ``tool_result`` blocks first in the next user turn.

Anthropic caches a prompt's prefix only where a ``cache_control`` breakpoint asks
(at most four per request). A session resends its whole conversation on every turn, so
every request marks the stable prefix -- the tools, the system prompt -- and the growing
conversation twice: the end of the previous user turn (what the last request stored, so
this one reads it exactly) and the end of the last one (stored for the next request).
``input_tokens`` in Anthropic's usage excludes the tokens read from and written to the
cache; ``Usage.input_tokens`` counts them all, ``cached_input_tokens`` the part read."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

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

API_VERSION = "2023-06-01"
MAX_BREAKPOINTS = 4  # Anthropic refuses a request with more cache_control blocks
_EPHEMERAL = {"type": "ephemeral"}
_STOP = {
    "end_turn": StopReason.END_TURN,
    "stop_sequence": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "refusal": StopReason.CONTENT_FILTER,
}


def anthropic_headers(key: SecretStr | None) -> dict[str, str]:
    headers = {"anthropic-version": API_VERSION}
    if key:
        headers["x-api-key"] = key.get_secret_value()
    return headers


class AnthropicModel(HttpModel):
    async def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        settings: ModelSettings,
    ) -> ModelResponse:
        system = "\n\n".join(m.text for m in messages if isinstance(m, SystemMessage))
        payload: dict[str, Any] = {
            "model": self.model_name,
            "max_tokens": settings.max_tokens,
            "messages": mark_conversation(to_turns(messages)),
        }
        if system:
            payload["system"] = [{"type": "text", "text": system, "cache_control": _EPHEMERAL}]
        if settings.temperature is not None:
            payload["temperature"] = min(settings.temperature, 1.0)
        if tools:
            payload["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in tools
            ]
            payload["tools"][-1]["cache_control"] = _EPHEMERAL
        return await self.http.post_json(
            "v1/messages", payload, settings, classify=self._classify, parse=self._parse
        )

    def _parse(self, data: dict[str, Any]) -> ModelResponse:
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise MalformedResponseError(
                "no content blocks in the response",
                provider=self.provider,
                body=json.dumps(data)[:500],
            )
        parts: list[AssistantPart] = []
        for block in blocks:
            match block.get("type"):
                case "text":
                    if block.get("text"):
                        parts.append(TextPart(text=str(block["text"])))
                case "tool_use":
                    raw = block.get("input")
                    parts.append(
                        ToolCallPart(
                            id=str(block.get("id", "")),
                            name=str(block.get("name", "")),
                            arguments=raw if isinstance(raw, dict) else {},
                            arguments_error=None
                            if isinstance(raw, dict)
                            else "tool input must be a JSON object",
                        )
                    )
                case _:
                    continue  # thinking and other blocks carry nothing the loop uses
        return ModelResponse(
            parts=tuple(parts),
            stop_reason=_STOP.get(str(data.get("stop_reason")), StopReason.OTHER),
            usage=_usage(data),
            model=str(data.get("model") or self.model_name),
        )

    def _classify(self, response: httpx.Response) -> ProviderError:
        info, message, args = self.error_parts(response)
        kind = str(info.get("type") or "")
        status = response.status_code
        if status == 429:
            return RateLimitedError(message, **args)
        if status == 529 or kind == "overloaded_error" or status >= 500:
            return OverloadedError(message, **args)
        if status in (401, 403):
            return AuthenticationError(message, hint="check ANTHROPIC_API_KEY", **args)
        if "credit balance" in message.lower() or kind == "billing_error":
            return QuotaExhaustedError(message, hint="add credit to the Anthropic account", **args)
        return BadRequestError(message, **args)


def _usage(data: dict[str, Any]) -> Usage:
    """All input tokens: Anthropic's ``input_tokens`` are only those after the last
    breakpoint; the cache reads and writes are reported beside them."""
    usage = data.get("usage") or {}
    read = int(usage.get("cache_read_input_tokens") or 0)
    written = int(usage.get("cache_creation_input_tokens") or 0)
    return Usage(
        requests=1,
        input_tokens=int(usage.get("input_tokens") or 0) + read + written,
        output_tokens=int(usage.get("output_tokens") or 0),
        cached_input_tokens=read,
    )


def mark_conversation(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Breakpoints on the last block of the last two user turns (two of the four; the
    tools and the system prompt hold the others). The blocks are copies: the caller's
    turns stay unmarked."""
    users = [i for i, turn in enumerate(turns) if turn["role"] == "user"][-2:]
    for index in users:
        blocks = list(turns[index]["content"])
        if blocks:
            blocks[-1] = {**blocks[-1], "cache_control": _EPHEMERAL}
        turns[index] = {**turns[index], "content": blocks}
    return turns


def to_turns(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Neutral messages -> alternating turns; consecutive user content is merged,
    tool results first, as the Messages API requires."""
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for message in messages:
        match message:
            case SystemMessage():
                continue
            case UserMessage(text=text):
                add("user", [{"type": "text", "text": text}])
            case ToolResultsMessage(results=results):
                add(
                    "user",
                    [
                        {
                            "type": "tool_result",
                            "tool_use_id": r.call_id,
                            "content": r.content,
                            **({"is_error": True} if r.is_error else {}),
                        }
                        for r in results
                    ],
                )
            case AssistantMessage(parts=parts):
                blocks: list[dict[str, Any]] = []
                for part in parts:
                    if isinstance(part, TextPart):
                        blocks.append({"type": "text", "text": part.text})
                    else:
                        blocks.append(
                            {
                                "type": "tool_use",
                                "id": part.id,
                                "name": part.name,
                                "input": part.arguments,
                            }
                        )
                add("assistant", blocks or [{"type": "text", "text": "(no content)"}])
    for turn in turns:
        if turn["role"] == "user":
            turn["content"].sort(key=lambda block: block["type"] != "tool_result")
    return turns
