"""The offline panel's tool calls (``thresher.tribunal.offline``): run once, numbered.

Split from ``offline.py``: the per-finding memo of redacted tool results, each agent's
ledger ids as its session would number them, and the handlers the panel answers from
its own data (``get_finding``, ``validate_secret``). ``offline.py`` re-exports every
name, so importers are unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from thresher.agents.toolbox import Handler, finding_data
from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.toolspecs import ToolName
from thresher.findings import Finding
from thresher.findings.profile import profile_value
from thresher.heuristic.secret_rules import TOP_FEATURES_CITED, reads_profile
from thresher.scoring.model import Assessment
from thresher.scoring.policy import OfflineCall
from thresher.tribunal.files import SharedReads, context_range
from thresher.tribunal.offline_records import CallRow, plain_items
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


# Every text a value profile holds (``profile_value``: its charset's classes and its
# shape): what redacting a profile can change, and all it can learn from.
PROFILE_WORDS = frozenset(
    {
        *("lower", "upper", "digit", "symbol"),
        *("private-key", "uuid", "digits", "hex", "words", "base64", "alphanumeric", "mixed"),
    }
)
_LATER = object()  # the profile's place, until the offline call says whether it is read


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
    done: dict[tuple[Any, ...], _Call] = field(default_factory=dict)
    # ``Redactor.leaves`` of the redactor ``redact_data`` belongs to; None: every value
    # profile is made and redacted where ``get_finding``'s data is.
    leaves: Callable[[frozenset[str]], bool] | None = None
    # The value and line whose profile ``get_finding`` left out (``profiled_later``):
    # kept here, never in a tool's output.
    profile_later: tuple[str, str | None] | None = None

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
        source = output.data
        deferred = self.profile_later if tool is ToolName.GET_FINDING else None
        if deferred is None:
            data = {k: self.redact_data(source[k]) for k in keys if k in source}
            return _Call(output, data, None)
        return _Call(output, self._finding_data(keys, source, deferred), None)

    def _finding_data(
        self, keys: tuple[str, ...], source: dict[str, Any], deferred: tuple[str, str | None]
    ) -> dict[str, Any]:
        """``get_finding``'s data with the value's profile made only if the rules read it
        (``reads_profile``): a twentieth of a decision's time, and an offline call that
        names a classification comes before every rule that reads it.

        Redacting a profile changes only its words (``PROFILE_WORDS``). Where, at the
        profile's turn, redaction leaves every one of them as it is and learns nothing
        from them (``leaves``), the profile redacted is the profile: it is left out, or
        made after the offline call says the rules read it. Otherwise it is made and
        redacted in its turn, as ``get_finding`` always did."""
        data: dict[str, Any] = {}
        for key in keys:
            if key == "value":
                leaves = self.leaves
                if leaves is not None and leaves(PROFILE_WORDS):
                    data[key] = _LATER
                else:
                    data[key] = self.redact_data(profile_value(*deferred))
            elif key in source:
                data[key] = self.redact_data(source[key])
        if data.get("value") is _LATER:
            if not reads_profile(data.get("offline_call")):
                del data["value"]
                return data
            profile = profile_value(*deferred)
            # A word of a newer profile than ``PROFILE_WORDS`` knows is redacted now.
            words = all(_words(v) for v in profile.values())
            data["value"] = profile if words else self.redact_data(profile)
        return data


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


def _words(value: Any) -> bool:
    """Whether a profile's field holds no text but ``PROFILE_WORDS``."""
    if isinstance(value, str):
        return value in PROFILE_WORDS
    if isinstance(value, list):
        return all(isinstance(v, str) and v in PROFILE_WORDS for v in value)
    return type(value) in (int, float, bool)


def _key(tool: ToolName, arguments: dict[str, Any]) -> tuple[Any, ...]:
    """The memo key of a call: the panel's own arguments are flat strings and numbers.
    Those of plain strings and integers are keyed by their pairs (formatting each was a
    fiftieth of a decision's time), any other by its ``repr``: the second item, a
    tuple or a string, keeps the two apart."""
    items = plain_items(arguments)
    if items is None:
        return (tool.value, *(f"{k}={v!r}" for k, v in sorted(arguments.items())))
    return (tool.value, tuple(sorted(items)))


def _context(path: str, line: int) -> dict[str, Any]:
    """The heuristic's ``read_file`` arguments: the lines around the finding."""
    start, end = context_range(line)
    return {"path": path, "start_line": start, "end_line": end}


def profiled_later(
    value: str | None, line: str | None, offline: tuple[Assessment | None, OfflineCall | None]
) -> tuple[str, str | None] | None:
    """The value and line ``get_finding`` leaves unprofiled for ``_Calls`` to profile if
    the rules read it: where an offline call comes with the data, whose rule comes
    before every rule that reads the profile. None: the profile is made as always."""
    return (value, line) if offline[1] is not None and value is not None else None


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
        # With an offline call the value is profiled only if the rules read it (``_Calls``).
        later = profiled_later(value, line, offline) is not None
        data = finding_data(
            finding, None if later else value, line, offline=(None, call), fields=_OF_FINDING
        )
        if assessment is not None:  # of it the rules read the features they cite
            top = assessment.top_features[:TOP_FEATURES_CITED]
            data["assessment"] = {"top_features": [_feature(f) for f in top]}
        return ToolOutput("", data)

    return handler


def _feature(weight: Any) -> dict[str, Any]:
    """``weight.model_dump(mode="json")`` of a ``FeatureWeight``, built directly where it
    is the same (its two fields; a finite float is written as it is)."""
    contribution = weight.contribution
    if type(contribution) is float and math.isfinite(contribution):
        return {"feature": weight.feature, "contribution": contribution}
    dumped: dict[str, Any] = weight.model_dump(mode="json")
    return dumped


def _validated(value: str | None, validations: Sequence[ValidationResult]) -> Handler:
    """``validate_secret`` answered from the tribunal's own validation of the value, as
    data only: the panel reads nothing else of it (see ``_described``)."""
    results = [r.model_dump(mode="json") for r in validations]

    def handler(arguments: dict[str, Any]) -> ToolOutput:
        if not value:
            raise ToolError("the value of this finding is not available to validate")
        return ToolOutput("", {"results": results})

    return handler
