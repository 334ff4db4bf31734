"""Neutral messages round-trip through JSONL; responses convert to messages."""

from __future__ import annotations

from pathlib import Path

from thresher.agents.transcript import TranscriptWriter, read_messages
from thresher.llm.messages import (
    AssistantMessage,
    Message,
    ModelResponse,
    StopReason,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolResultsMessage,
    Usage,
    UserMessage,
    message_from_json,
    message_to_json,
)
from thresher.redaction.redactor import Redactor

CONVERSATION: list[Message] = [
    SystemMessage(text="You are the analysis agent."),
    UserMessage(text="Analyse finding f-1 ünïcode ✓"),
    AssistantMessage(
        parts=(
            TextPart(text="Loading skills."),
            ToolCallPart(id="c1", name="skill", arguments={"name": "finding-intake"}),
            ToolCallPart(
                id="c2",
                name="grep",
                arguments={},
                arguments_error="bad JSON",
                provider_data={"raw_arguments": "{oops"},
            ),
            ToolCallPart(
                id="c3",
                name="get_finding",
                arguments={"finding_id": "f-1"},
                provider_data={"thought_signature": "c2lnbmF0dXJl"},
            ),
        )
    ),
    ToolResultsMessage(
        results=(
            ToolResultPart(call_id="c1", name="skill", content="<skill_content>…", ledger_id="T1"),
            ToolResultPart(
                call_id="c2",
                name="grep",
                content="error",
                is_error=True,
                ledger_id="T2",
                data={"why": ["x"]},
            ),
        )
    ),
]


def test_every_message_round_trips_through_json() -> None:
    for message in CONVERSATION:
        assert message_from_json(message_to_json(message)) == message


def test_transcript_jsonl_reads_back_equal(tmp_path: Path) -> None:
    writer = TranscriptWriter(tmp_path / "t.jsonl", Redactor())
    writer.event("session", agent="analysis")
    for message in CONVERSATION:
        writer.message(message)
    writer.close()
    assert read_messages(tmp_path / "t.jsonl") == CONVERSATION


def test_response_to_message_and_accessors() -> None:
    response = ModelResponse(
        parts=(TextPart(text="a"), ToolCallPart(id="x", name="n"), TextPart(text="b")),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(requests=1, input_tokens=3, output_tokens=4),
        model="m",
    )
    assert response.text == "ab"
    assert [c.id for c in response.tool_calls] == ["x"]
    assert response.to_message().tool_calls == response.tool_calls
    assert (response.usage + response.usage).total_tokens == 14
