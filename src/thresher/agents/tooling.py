"""Tool results and the ledger.

A tool returns text for the model and structured data for code. A failing tool
raises ``ToolError``; the loop turns it into an error result the model sees, so a
bad path or a bad regex never ends a session. Every call gets a ledger id
(``T1``, ``T2``, ...) that evidence items cite and deterministic checks verify.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ToolError(Exception):
    """A tool could not do what was asked; the message goes back to the model."""


@dataclass(frozen=True)
class ToolOutput:
    text: str
    data: dict[str, Any] = field(default_factory=dict)


class LedgerEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: str
    is_error: bool = False
    data: dict[str, Any] = Field(default_factory=dict)
    duration_ms: float = 0.0


class Ledger:
    """The ordered record of one session's tool calls."""

    def __init__(self) -> None:
        self.entries: list[LedgerEntry] = []

    def next_id(self) -> str:
        return f"T{len(self.entries) + 1}"

    def record(self, entry: LedgerEntry) -> None:
        self.entries.append(entry)

    def ids(self) -> set[str]:
        return {entry.id for entry in self.entries}

    def for_review(self) -> list[dict[str, Any]]:
        """The entries as the challenger reads them in its task prompt, resent on each of
        its requests, so only what a citation audit needs: id, tool, arguments, the result
        text the analysis saw and whether it failed. Left out: ``data`` (the same result
        structured for code) and timings, and the text of skill loads, which is
        methodology, not evidence (no evidence item may cite it)."""
        return [
            {
                "id": entry.id,
                "tool": entry.tool,
                "arguments": entry.arguments,
                "result": _SKILL_TEXT_LEFT_OUT
                if entry.tool == "skill" and not entry.is_error
                else entry.result,
                **({"is_error": True} if entry.is_error else {}),
            }
            for entry in self.entries
        ]


_SKILL_TEXT_LEFT_OUT = "(skill text loaded; left out of this copy: it is method, not evidence)"
