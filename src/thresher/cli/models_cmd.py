"""``thresher models list|check``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from thresher.errors import ExitCode
from thresher.names import AgentName

if TYPE_CHECKING:
    from .app import RunState

models_app = typer.Typer(help="Show and check the model behind each agent.", no_args_is_help=True)


def _state(ctx: typer.Context) -> RunState:
    from .app import state_of

    return state_of(ctx)


def _specs(state: RunState, agents: list[AgentName]) -> dict[AgentName, str]:
    from thresher.agents.definition import load_agent
    from thresher.agents.registry import agent_model_spec

    settings = state.settings().settings
    return {a: agent_model_spec(a, settings, load_agent(a, settings).model) for a in agents}


@models_app.command("list")
def list_models(ctx: typer.Context) -> None:
    """Each agent -> provider:model, base URL, and whether its key is present."""
    from rich.table import Table

    from thresher.agents.registry import describe

    state = _state(ctx)
    settings = state.settings().settings
    table = Table()
    for column in ("agent", "model", "base url", "key"):
        table.add_column(column, overflow="fold")
    for agent, spec in _specs(state, list(AgentName)).items():
        info = describe(spec, settings, agent=agent)
        if not info.key_required and not info.key_present:
            key = "not needed"
        else:
            key = f"{info.key_env}: {'present' if info.key_present else 'MISSING'}"
        table.add_row(agent.value, spec, info.base_url or "-", key)
    state.console(stderr=False).print(table)


@models_app.command("check")
def check(
    ctx: typer.Context,
    agent: Annotated[
        AgentName | None, typer.Option("--agent", "-a", help="Only this agent.")
    ] = None,
) -> None:
    """Send one minimal tool-calling request per agent; exit 3 if any fails."""
    from thresher.agents.check import check_models

    state = _state(ctx)
    specs = _specs(state, [agent] if agent else list(AgentName))
    results = check_models(specs, state.settings().settings)
    for result in results:
        mark = "ok  " if result.ok else "FAIL"
        typer.echo(
            f"{mark} {result.agent.value:<10} {result.spec}: {result.detail}"
            f" ({result.seconds:.1f}s)"
        )
    if not all(r.ok for r in results):
        raise typer.Exit(int(ExitCode.RUNTIME))
