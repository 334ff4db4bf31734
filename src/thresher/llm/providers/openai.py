"""OpenAI Chat Completions, also spoken by GitHub Models, Ollama, vLLM, llama.cpp,
LM Studio and OpenRouter (any OpenAI-compatible base URL ending in ``/v1``)."""

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
from thresher.llm.http import HttpProvider
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
    "stop": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.CONTENT_FILTER,
}


def bearer(key: SecretStr | None) -> dict[str, str]:
    return {"authorization": f"Bearer {key.get_secret_value()}"} if key else {}


class OpenAIChatModel(HttpModel):
    """One model behind a Chat Completions endpoint.

    ``max_tokens_field`` is ``max_completion_tokens`` for OpenAI itself and
    ``max_tokens`` for the many compatible servers that only know the old name.
    """

    def __init__(
        self,
        provider: HttpProvider,
        model_name: str,
        *,
        max_tokens_field: str = "max_completion_tokens",
    ) -> None:
        super().__init__(provider, model_name)
        self.max_tokens_field = max_tokens_field

    async def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        settings: ModelSettings,
    ) -> ModelResponse:
        payload: dict[str, Any] = {
            "model": self.model_name,
            "messages": [wire for message in messages for wire in _to_wire(message)],
            self.max_tokens_field: settings.max_tokens,
        }
        if settings.temperature is not None:
            payload["temperature"] = settings.temperature
        if tools:
            payload["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in tools
            ]
        return await self.http.post_json(
            "chat/completions", payload, settings, classify=self._classify, parse=self._parse
        )

    def _parse(self, data: dict[str, Any]) -> ModelResponse:
        try:
            choice = data["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise MalformedResponseError(
                "no choices[0].message in the response",
                provider=self.provider,
                body=json.dumps(data)[:500],
            ) from None
        parts: list[AssistantPart] = []
        if isinstance(message.get("content"), str) and message["content"]:
            parts.append(TextPart(text=message["content"]))
        for index, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") or {}
            raw = function.get("arguments") or "{}"
            arguments: dict[str, Any] = {}
            problem: str | None = None
            try:
                decoded = json.loads(raw) if isinstance(raw, str) else raw
                if isinstance(decoded, dict):
                    arguments = decoded
                else:
                    problem = "tool arguments must be a JSON object"
            except json.JSONDecodeError as exc:
                problem = f"tool arguments are not valid JSON: {exc.msg} at position {exc.pos}"
            parts.append(
                ToolCallPart(
                    id=str(call.get("id") or f"call_{index}"),
                    name=str(function.get("name", "")),
                    arguments=arguments,
                    arguments_error=problem,
                    provider_data={"raw_arguments": raw} if problem else {},
                )
            )
        stop = _STOP.get(str(choice.get("finish_reason")), StopReason.OTHER)
        return ModelResponse(
            parts=tuple(parts),
            stop_reason=stop,
            usage=_usage(data),
            model=str(data.get("model") or self.model_name),
        )

    def _classify(self, response: httpx.Response) -> ProviderError:
        info, message, args = self.error_parts(response)
        code = str(info.get("code") or "")
        kind = str(info.get("type") or "")
        status = response.status_code
        if status == 429 and "insufficient_quota" in (code, kind):
            return QuotaExhaustedError(message, hint="add credit or raise the quota", **args)
        if status == 429:
            return RateLimitedError(message, **args)
        if status in (401, 403):
            return AuthenticationError(message, hint="check the API key for this provider", **args)
        if status >= 500:
            return OverloadedError(message, **args)
        return BadRequestError(message, **args)


def _usage(data: dict[str, Any]) -> Usage:
    """``prompt_tokens`` includes what automatic prompt caching served, which
    ``prompt_tokens_details.cached_tokens`` reports (absent on many compatible servers)."""
    usage = data.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    return Usage(
        requests=1,
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        cached_input_tokens=int(details.get("cached_tokens") or 0)
        if isinstance(details, dict)
        else 0,
    )


def _to_wire(message: Message) -> list[dict[str, Any]]:
    match message:
        case SystemMessage(text=text):
            return [{"role": "system", "content": text}]
        case UserMessage(text=text):
            return [{"role": "user", "content": text}]
        case AssistantMessage():
            wire: dict[str, Any] = {"role": "assistant", "content": message.text or None}
            calls = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": call.provider_data.get("raw_arguments")
                        or json.dumps(call.arguments),
                    },
                }
                for call in message.tool_calls
            ]
            if calls:
                wire["tool_calls"] = calls
            return [wire]
        case ToolResultsMessage(results=results):
            return [
                {"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in results
            ]
