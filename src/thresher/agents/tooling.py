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
        """The entries as the challenger reads them: skill loads keep their id, names and
        outcome but not the skill text, which is methodology, not evidence (no evidence
        item may cite it), and would be resent on each of the challenger's requests."""
        return [
            entry.model_dump(mode="json")
            if entry.tool != "skill" or entry.is_error
            else entry.model_copy(update={"result": _SKILL_TEXT_LEFT_OUT}).model_dump(mode="json")
            for entry in self.entries
        ]


_SKILL_TEXT_LEFT_OUT = "(skill text loaded; left out of this copy: it is method, not evidence)"
