"""Deterministic test models shipped in the package (pydantic-ai's idea).

``ScriptedModel`` replays a queue of responses and records what it was sent;
``FunctionModel`` computes each response from the conversation. Both run
offline, so user test suites can drive thresher's loop without a provider.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from thresher.errors import ThresherError
from thresher.llm.messages import (
    AssistantPart,
    Message,
    ModelResponse,
    ModelSettings,
    StopReason,
    TextPart,
    ToolCallPart,
    ToolDefinition,
    Usage,
)
from thresher.llm.model import Model


@dataclass(frozen=True)
class RecordedRequest:
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...]
    settings: ModelSettings


class ScriptExhausted(ThresherError):
    """A scripted model was asked for more responses than it was given."""


def text_response(text: str, *, usage: Usage | None = None) -> ModelResponse:
    return ModelResponse(
        parts=(TextPart(text=text),),
        stop_reason=StopReason.END_TURN,
        usage=usage or Usage(requests=1, input_tokens=10, output_tokens=5),
        model="scripted",
    )


def tool_response(
    *calls: tuple[str, dict[str, Any]],
    text: str = "",
    usage: Usage | None = None,
    id_prefix: str = "call",
) -> ModelResponse:
    parts: list[AssistantPart] = [TextPart(text=text)] if text else []
    parts += [
        ToolCallPart(id=f"{id_prefix}_{index}", name=name, arguments=args)
        for index, (name, args) in enumerate(calls)
    ]
    return ModelResponse(
        parts=tuple(parts),
        stop_reason=StopReason.TOOL_USE,
        usage=usage or Usage(requests=1, input_tokens=10, output_tokens=5),
        model="scripted",
    )


class _Recording(Model):
    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []

    @property
    def offline(self) -> bool:
        return True

    def _record(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> RecordedRequest:
        recorded = RecordedRequest(tuple(messages), tuple(tools), settings)
        self.requests.append(recorded)
        return recorded


class ScriptedModel(_Recording):
    """Returns the given responses in order; raises ``ScriptExhausted`` after."""

    provider = "scripted"

    def __init__(self, responses: Iterable[ModelResponse], model_name: str = "default") -> None:
        super().__init__()
        self._responses = list(responses)
        self.model_name = model_name

    async def request(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        self._record(messages, tools, settings)
        if not self._responses:
            raise ScriptExhausted(
                f"scripted model ran out of responses after {len(self.requests) - 1}"
            )
        return self._responses.pop(0)


ResponseFunction = Callable[[RecordedRequest], ModelResponse]


class FunctionModel(_Recording):
    """Calls ``function`` with everything sent and returns its response."""

    provider = "function"

    def __init__(self, function: ResponseFunction, model_name: str = "default") -> None:
        super().__init__()
        self._function = function
        self.model_name = model_name

    async def request(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        return self._function(self._record(messages, tools, settings))
