"""The ``offline.jsonl`` record of the offline panel (``thresher.tribunal.offline``).

Split from ``offline.py`` so the schema of what the panel writes -- one compact, redacted
line a finding -- stands apart from the panel's computation; ``offline.py`` re-exports
every name, so importers are unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict

from thresher.config.settings import AgentName
from thresher.errors import ThresherError
from thresher.redaction.redactor import Structural
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
            calls=tuple(ledger.calls),
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
