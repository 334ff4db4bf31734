"""Provider-neutral message types (DESIGN §5).

Every wire adapter translates to and from these, so a transcript can be written
as JSONL, read back equal, and replayed against any provider. Tool results
carry ``data`` for code (the heuristic model, reports) that adapters never send.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextPart(_Frozen):
    kind: Literal["text"] = "text"
    text: str


class ToolCallPart(_Frozen):
    """A tool call from the model.

    ``arguments_error`` holds why the arguments could not be read (a provider
    that sends arguments as a JSON string may send invalid JSON); the loop then
    answers with an error result instead of calling the tool. ``provider_data``
    keeps opaque values a provider needs back unchanged (Gemini thought signatures).
    """

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    arguments_error: str | None = None
    provider_data: dict[str, Any] = Field(default_factory=dict)


AssistantPart = Annotated[TextPart | ToolCallPart, Field(discriminator="kind")]


class SystemMessage(_Frozen):
    role: Literal["system"] = "system"
    text: str


class UserMessage(_Frozen):
    role: Literal["user"] = "user"
    text: str


class AssistantMessage(_Frozen):
    role: Literal["assistant"] = "assistant"
    parts: tuple[AssistantPart, ...] = ()
    provider_data: dict[str, Any] = Field(default_factory=dict)

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


class ToolResultPart(_Frozen):
    call_id: str
    name: str
    content: str
    is_error: bool = False
    ledger_id: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class ToolResultsMessage(_Frozen):
    role: Literal["tool"] = "tool"
    results: tuple[ToolResultPart, ...]


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultsMessage,
    Field(discriminator="role"),
]
MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)


def message_to_json(message: Message) -> str:
    return message.model_dump_json()


def message_from_json(line: str) -> Message:
    return MESSAGE_ADAPTER.validate_json(line)


class StopReason(StrEnum):
    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    CONTENT_FILTER = "content_filter"
    OTHER = "other"


class Usage(_Frozen):
    """What requests cost. ``input_tokens`` counts every input token, those a provider's
    prompt cache served included; ``cached_input_tokens`` is that served part (billed at
    a fraction), so the two compare across providers whatever each one's usage calls them."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            requests=self.requests + other.requests,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
        )


class ModelResponse(_Frozen):
    parts: tuple[AssistantPart, ...]
    stop_reason: StopReason
    usage: Usage
    model: str
    provider_data: dict[str, Any] = Field(default_factory=dict)

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    def to_message(self) -> AssistantMessage:
        return AssistantMessage(parts=self.parts, provider_data=self.provider_data)


class ToolDefinition(_Frozen):
    name: str
    description: str
    parameters: dict[str, Any]


class SessionInfo(_Frozen):
    """What the loop knows about the session; real providers ignore it, the
    heuristic and function models use it (like pydantic-ai's AgentInfo)."""

    agent: str
    finding_id: str
    submit_tool: str
    required_skills: tuple[str, ...] = ()
    # The finding's kind ("secret" or "dependency"): what question the session answers.
    kind: str = "secret"
    context: dict[str, Any] = Field(
        default_factory=dict,
        description="structured copy of what the task prompt shows (reports, challenges)",
    )


class ModelSettings(_Frozen):
    """Per-request settings. The timeouts are overrides: ``None`` (the default) uses
    the provider's own, which come from the ``http`` settings table, so a run's
    configuration is the one place that says how long a request may take."""

    max_tokens: int = Field(default=4096, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    connect_timeout: float | None = Field(default=None, gt=0)
    read_timeout: float | None = Field(default=None, gt=0)
    total_timeout: float | None = Field(default=None, gt=0)
    session: SessionInfo | None = None


_BYTES_PER_TOKEN = 4


def estimate_input_tokens(messages: Sequence[Message], tools: Sequence[ToolDefinition]) -> int:
    """A deliberately rough, tokenizer-free estimate of a request's input tokens.

    UTF-8 bytes of the serialized messages and tool specs over four, rounded up:
    about right for English and JSON, an overestimate for most other scripts. It
    exists so a budget can refuse a request *before* it is sent, and so a request
    that failed without a usage report is still charged for what it carried.
    """
    size = sum(len(message_to_json(m).encode("utf-8")) for m in messages)
    size += sum(len(t.model_dump_json().encode("utf-8")) for t in tools)
    return -(-size // _BYTES_PER_TOKEN)
