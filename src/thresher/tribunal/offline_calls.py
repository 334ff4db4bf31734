"""The offline panel's tool calls (``thresher.tribunal.offline``): run once, numbered.

Split from ``offline.py``: the per-finding memo of redacted tool results, each agent's
ledger ids as its session would number them, and the handlers the panel answers from
its own data (``get_finding``, ``validate_secret``). ``offline.py`` re-exports every
name, so importers are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from thresher.agents.toolbox import Handler, finding_data
from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.toolspecs import ToolName
from thresher.findings import Finding
from thresher.heuristic.secret_rules import TOP_FEATURES_CITED
from thresher.scoring.model import Assessment
from thresher.scoring.policy import OfflineCall
from thresher.tribunal.files import SharedReads, context_range
from thresher.tribunal.offline_records import CallRow
from thresher.validators.base import ValidationResult

# What of each tool's data the rules read (``gather_evidence``).
_READ_BY_RULES: dict[ToolName, tuple[str, ...]] = {
    ToolName.GET_FINDING: (
        "locations",
        "value",
        "assessment",
        "offline_call",
        "source",
        "severity",
        "rule_id",
    ),
    ToolName.GIT_LOG: ("commits",),
    ToolName.VALIDATE_SECRET: ("results",),
    ToolName.GET_VULNERABILITY: ("id", "summary", "package"),
    ToolName.FIND_IMPORTS: ("names", "imported", "matches", "files_searched", "complete"),
}


# The finding's own fields among them (``finding_data`` adds the rest).
_OF_FINDING = frozenset(_READ_BY_RULES[ToolName.GET_FINDING]) - {
    "value",
    "assessment",
    "offline_call",
}


@dataclass
class _Call:
    """A tool call made once per finding and shared by every agent that makes it."""

    output: ToolOutput | None
    data: dict[str, Any]
    error: str | None


@dataclass
class _Calls:
    """The per-finding memo of tool results, in the redacted form a session sees."""

    handlers: dict[ToolName, Handler]
    redact_text: Callable[[str], str]
    redact_data: Callable[[Any], Any]
    shared: SharedReads | None = None
    done: dict[tuple[str, ...], _Call] = field(default_factory=dict)

    def call(self, tool: ToolName, arguments: dict[str, Any]) -> _Call:
        key = _key(tool, arguments)
        if key not in self.done:
            self.done[key] = self._run(tool, arguments)
        return self.done[key]

    def _run(self, tool: ToolName, arguments: dict[str, Any]) -> _Call:
        if tool is ToolName.READ_FILE and self.shared is not None:
            path, start = arguments.get("path"), arguments.get("start_line")
            known = isinstance(path, str) and isinstance(start, int)
            if known and self.shared.context_ok(str(path), int(start or 1)):
                return _Call(None, {}, None)  # read once for all the file's findings
        handler = self.handlers.get(tool)
        if handler is None:
            return _Call(None, {}, f"tool '{tool.value}' is not available in this run")
        try:
            output = handler(arguments)
            if not isinstance(output, ToolOutput):  # an async tool: never run offline
                close = getattr(output, "close", None)
                if callable(close):
                    close()
                return _Call(None, {}, f"tool '{tool.value}' is not available offline")
        except ToolError as exc:
            return _Call(None, {}, self.redact_text(str(exc)))
        except Exception as exc:  # as the loop does: one odd input must not end the finding
            detail = self.redact_text(f"{type(exc).__name__}: {exc}")[:500]
            return _Call(None, {}, f"{tool.value} failed: {detail}; check the arguments")
        # As a session sees it, redacted: but only what the rules read (the code around
        # the finding counts as evidence by being read; its lines are never shown).
        keys = _READ_BY_RULES.get(tool, ())
        data = {k: self.redact_data(output.data[k]) for k in keys if k in output.data}
        return _Call(output, data, None)


class _Ledger:
    """One agent's ledger ids, numbered as its session would number them."""

    def __init__(self) -> None:
        self.count = 0
        self.skills: list[str] = []  # loaded first: ``T1``..``Tn``
        self.calls: list[CallRow] = []  # the calls after them
        self.results: list[tuple[str, str | None, dict[str, Any]]] = []

    def skill(self, name: str) -> None:
        self.count += 1
        self.skills.append(name)
        self.results.append((ToolName.SKILL.value, f"T{self.count}", {"skill": name}))

    def record(self, tool: ToolName, arguments: dict[str, Any], call: _Call) -> None:
        self.count += 1
        ledger_id = f"T{self.count}"
        self.calls.append(CallRow(ledger_id, tool.value, arguments, call.error is None, call.error))
        if call.error is None:
            self.results.append((tool.value, ledger_id, call.data))

    def ids(self) -> set[str]:
        return {f"T{number}" for number in range(1, self.count + 1)}

    def evidence_ids(self) -> set[str]:
        """Ids of the successful tool calls that are evidence (not skill loads)."""
        return {c.id for c in self.calls if c.ok and c.tool != ToolName.SKILL.value}


def _key(tool: ToolName, arguments: dict[str, Any]) -> tuple[str, ...]:
    """The memo key of a call: the panel's own arguments are flat strings and numbers."""
    return (tool.value, *(f"{k}={v!r}" for k, v in sorted(arguments.items())))


def _context(path: str, line: int) -> dict[str, Any]:
    """The heuristic's ``read_file`` arguments: the lines around the finding."""
    start, end = context_range(line)
    return {"path": path, "start_line": start, "end_line": end}


def _described(
    finding: Finding,
    value: str | None,
    line: str | None,
    offline: tuple[Assessment | None, OfflineCall | None],
) -> Handler:
    """``get_finding`` as data only: the panel reads nothing else of it, and writing its
    JSON text for every finding cost more than the rules that read the data."""

    assessment, call = offline

    def handler(arguments: dict[str, Any]) -> ToolOutput:
        if arguments.get("finding_id") != finding.id:
            raise ToolError(f"unknown finding id; this panel is about '{finding.id}'")
        data = finding_data(finding, value, line, offline=(None, call), fields=_OF_FINDING)
        if assessment is not None:  # of it the rules read the features they cite
            top = assessment.top_features[:TOP_FEATURES_CITED]
            data["assessment"] = {"top_features": [f.model_dump(mode="json") for f in top]}
        return ToolOutput("", data)

    return handler


def _validated(value: str | None, validations: Sequence[ValidationResult]) -> Handler:
    """``validate_secret`` answered from the tribunal's own validation of the value, as
    data only: the panel reads nothing else of it (see ``_described``)."""
    results = [r.model_dump(mode="json") for r in validations]

    def handler(arguments: dict[str, Any]) -> ToolOutput:
        if not value:
            raise ToolError("the value of this finding is not available to validate")
        return ToolOutput("", {"results": results})

    return handler
