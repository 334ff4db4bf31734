"""The ``offline.jsonl`` record of the offline panel (``thresher.tribunal.offline``).

Split from ``offline.py`` so the schema of what the panel writes -- one compact, redacted
line a finding -- stands apart from the panel's computation; ``offline.py`` re-exports
every name, so importers are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from pydantic import BaseModel, ConfigDict
from pydantic_core import to_json

from thresher.config.settings import AgentName
from thresher.errors import ThresherError
from thresher.redaction.redactor import Redactor, Structural
from thresher.skills.compliance import Compliance

if TYPE_CHECKING:  # only an annotation here: ``offline_calls`` imports this module
    from thresher.tribunal.offline_calls import _Ledger


class OfflineRecordError(ThresherError):
    """``offline.jsonl`` cannot be written."""

    @classmethod
    def writing(cls, path: object, exc: OSError) -> OfflineRecordError:
        """The record at ``path`` could not be written (``exc``): why, and what to check."""
        return cls(
            f"cannot write {path}: {exc.strerror or exc}",
            hint="check free space and permissions of the run directory",
        )


class OfflineCallRecord(BaseModel):
    """One tool call of the offline panel, without its (bulky) result."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Annotated[str, Structural]
    tool: Annotated[str, Structural]
    arguments: dict[str, Any]
    ok: bool
    error: str | None = None


class CallRow(NamedTuple):
    """An ``OfflineCallRecord`` as the panel's ledger keeps it until its line is written
    (``record_line``): a call of every agent of every finding, so built without a model."""

    id: str
    tool: str
    arguments: dict[str, Any]
    ok: bool
    error: str | None


class OfflineAgentRecord(BaseModel):
    """One role: the skills it loaded (ledger ids ``T1``..``Tn``, in this order), the
    calls after them, and its compliance (what its session's transcript would show)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: Annotated[str, Structural]
    skills: Annotated[tuple[str, ...], Structural]
    calls: tuple[OfflineCallRecord, ...]
    compliance: float
    skipped: Annotated[tuple[str, ...], Structural] = ()

    @classmethod
    def of(cls, agent: AgentName, ledger: _Ledger, compliance: Compliance) -> OfflineAgentRecord:
        return cls(
            agent=agent.value,
            skills=tuple(ledger.skills),
            calls=tuple(OfflineCallRecord.model_construct(**c._asdict()) for c in ledger.calls),
            compliance=compliance.score,
            skipped=compliance.skipped,
        )


class OfflineRecord(BaseModel):
    """``offline.jsonl``: what the offline panel did for one finding, in one line.

    The conclusion itself is in ``decisions.jsonl``; this says which evidence the
    reports' ledger ids (``T1``, ``T2``...) point to and how long it took.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    finding_id: Annotated[str, Structural]
    model: Annotated[str, Structural]
    agents: tuple[OfflineAgentRecord, ...]
    milliseconds: float


def record_line(
    finding_id: str,
    model: str,
    agents: Sequence[tuple[AgentName, _Ledger, Compliance]],
    milliseconds: float,
    redactor: Redactor,
) -> str:
    """The ``OfflineRecord`` of these agents as ``offline.jsonl`` writes it -- redacted as
    ``Redactor.model`` redacts the model (only the calls' arguments and errors are
    text, the rest is structure), dumped as
    ``model_dump_json(exclude_defaults=True)`` dumps it -- built without the models:
    constructing, walking and dumping them was an eighth of a decision's time. Same
    serialiser (``pydantic_core``), same field order, same defaults left out, the same
    walk of the arguments (``Redactor.data``);
    ``tests/tribunal/test_offline_records.py`` compares the two."""
    rows: list[dict[str, Any]] = []
    # The agents make the same calls (``get_finding`` three times, and ``validate_secret``
    # with its very arguments): equal arguments are redacted once while the redactor
    # does what it did (``Redactor.version``), a tenth of the record's time.
    redacted: dict[tuple[Any, ...], tuple[int, Any]] = {}
    for agent, ledger, compliance in agents:
        calls: list[dict[str, Any]] = []
        for call in ledger.calls:
            key = plain_items(call.arguments)
            seen = redacted.get(key) if key is not None else None
            if seen is not None and seen[0] == redactor.version:
                arguments = seen[1]
            else:
                version = redactor.version  # read first: values learned meanwhile count
                arguments = redactor.data(call.arguments)
                if key is not None:
                    redacted[key] = (version, arguments)
            row: dict[str, Any] = {
                "id": call.id,
                "tool": call.tool,
                "arguments": arguments,
                "ok": call.ok,
            }
            if call.error is not None:
                row["error"] = redactor.text(call.error)
            calls.append(row)
        one: dict[str, Any] = {
            "agent": agent.value,
            "skills": list(ledger.skills),
            "calls": calls,
            "compliance": float(compliance.score),
        }
        if compliance.skipped:
            one["skipped"] = list(compliance.skipped)
        rows.append(one)
    line = {
        "finding_id": finding_id,
        "model": model,
        "agents": rows,
        "milliseconds": float(milliseconds),
    }
    return to_json(line).decode("utf-8")


def plain_items(arguments: dict[str, Any]) -> tuple[tuple[str, Any], ...] | None:
    """The arguments' pairs, in their order, when every value is a plain string or
    integer (the panel's own: ids, paths, line numbers): equal pairs, equal arguments.
    None for any other."""
    items = tuple(arguments.items())
    for _, value in items:
        if type(value) is not str and type(value) is not int:
            return None
    return items
