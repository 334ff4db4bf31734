"""The models a scan runs with: one per agent, closed once the run is decided, and
whether a run may fork worker processes (no model can take part)."""

from __future__ import annotations

from collections.abc import Mapping

from thresher.agents.definition import load_agent
from thresher.agents.registry import DEFAULT_MODEL, agent_model_spec, build_models, describe
from thresher.config.settings import AgentName, Settings
from thresher.llm.model import Model
from thresher.scan.outcome import ScanRequest
from thresher.tribunal.fallbacks import Deadline
from thresher.tribunal.parallel import offline_only


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


def may_fork(
    models: Mapping[AgentName, Model], request: ScanRequest, deadline: Deadline | None
) -> bool:
    """Whether the findings may be decided in worker processes: no model can take part,
    and neither a deadline (whose expiry the serial loop reports per finding) nor live
    checks (network calls from forked processes) are asked for."""
    return offline_only(models, request.escalate) and deadline is None and not request.verify_live


async def close_models(models: Mapping[AgentName, Model]) -> None:
    for model in {id(m): m for m in models.values()}.values():
        await model.aclose()
