"""The models a scan runs with, and deciding findings in worker processes.

Part of the scan use case (``thresher.scan.run``): resolving and closing the model per
agent, whether a run may fork workers (no model can take part), and deciding the
findings in them with the journal and offline record written in order here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

from thresher.agents.definition import load_agent
from thresher.agents.registry import DEFAULT_MODEL, agent_model_spec, build_models, describe
from thresher.config.settings import AgentName, Settings
from thresher.findings import Finding
from thresher.llm.model import Model
from thresher.scan.outcome import ScanRequest
from thresher.tribunal.decisions import (
    Decision,
)
from thresher.tribunal.fallbacks import Deadline
from thresher.tribunal.journal import DecisionJournal
from thresher.tribunal.offline import OfflineRecordError
from thresher.tribunal.parallel import Decided, decide_in_workers, offline_only
from thresher.tribunal.tribunal import Tribunal


def resolve_models(
    settings: Settings, environ: Mapping[str, str] | None, *, dry_run: bool
) -> tuple[dict[AgentName, Model], dict[str, str]]:
    """Models per agent; a dry run uses the heuristic for all and reports the real specs."""
    specs = {a: agent_model_spec(a, settings, load_agent(a, settings).model) for a in AgentName}
    for spec in specs.values():
        describe(spec, settings, environ)  # fail fast on an unknown provider
    # One model per provider spec: agents on one provider share its circuit breaker.
    models = build_models(
        {a: DEFAULT_MODEL if dry_run else spec for a, spec in specs.items()}, settings, environ
    )
    return models, {a.value: s for a, s in specs.items()}


def _forked(
    models: Mapping[AgentName, Model], request: ScanRequest, deadline: Deadline | None
) -> bool:
    """Whether the findings may be decided in worker processes: no model can take part,
    and neither a deadline (whose expiry the serial loop reports per finding) nor live
    checks (network calls from forked processes) are asked for."""
    return offline_only(models, request.escalate) and deadline is None and not request.verify_live


def _decide_in_workers(
    tribunal: Tribunal,
    candidates: tuple[Sequence[Finding], Callable[[str], str | None]],
    journal: DecisionJournal,
    record: TextIO,
    workers: int,
    on_decided: Callable[[Decision], None] | None,
    prepare: Callable[[Sequence[Finding]], None],
) -> list[Decision]:
    """The findings decided by worker processes; journal and record written here, in order."""
    redactor = journal.redactor
    known = redactor.known  # what every worker knows when it forks

    def decided(done: Decided) -> None:
        try:
            record.writelines(line + "\n" for line in done.records)
        except OSError as exc:
            raise OfflineRecordError(
                f"cannot write {record.name}: {exc.strerror or exc}",
                hint="check free space and permissions of the run directory",
            ) from exc
        journal.write_redacted(done.decision, done.redacted, done.line, done.exact, known=known)
        if on_decided is not None:
            on_decided(done.decision)

    findings, value_of = candidates
    return decide_in_workers(
        tribunal,
        findings,
        value_of,
        decided,
        workers=workers,
        learn=redactor.add,
        prepare=prepare,
    )


async def close_models(models: Mapping[AgentName, Model]) -> None:
    for model in {id(m): m for m in models.values()}.values():
        await model.aclose()
