"""Session transcripts as JSONL: written as the session goes, so a crash keeps
what happened; every line is redacted before it is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from thresher.agents.tooling import LedgerEntry
from thresher.llm.messages import MESSAGE_ADAPTER, Message, message_from_json
from thresher.redaction.redactor import Redactor


class TranscriptWriter:
    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self.redactor = redactor
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = path.open("w", encoding="utf-8")

    def _write(self, kind: str, fields: dict[str, Any]) -> None:
        # The record type is structure: a candidate value equal to "message" must not
        # rename it, or ``read_messages`` would skip the line.
        record = {"type": kind, **fields}
        line = json.dumps(record, ensure_ascii=False, sort_keys=True)
        self._handle.write(line + "\n")
        self._handle.flush()

    def event(self, kind: str, **fields: Any) -> None:
        """A record of ``fields``; pass models as models, not dumped.

        A model is redacted with ``Redactor.model`` before it is dumped, so its
        structural fields (enums, names) survive a candidate value equal to one;
        a dumped dict no longer says which strings are structure.
        """
        self._write(kind, {name: self._clean(value) for name, value in fields.items()})

    def _clean(self, value: Any) -> Any:
        if isinstance(value, BaseModel):
            return self.redactor.model(value).model_dump(mode="json")
        return self.redactor.data(value)

    def message(self, message: Message) -> None:
        # Redacted as a model, so its role and part kinds stay valid for ``read_messages``.
        clean = self.redactor.model(message)
        self._write("message", {"message": MESSAGE_ADAPTER.dump_python(clean, mode="json")})

    def ledger(self, entry: LedgerEntry) -> None:
        self._write("ledger", {"entry": self._clean(entry)})

    def close(self) -> None:
        self._handle.close()


def read_messages(path: Path) -> list[Message]:
    """The messages of a transcript, in order (other records are skipped)."""
    messages: list[Message] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "message":
            messages.append(message_from_json(json.dumps(record["message"])))
    return messages
