"""``thresher agents list|show|render``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thresher.names import AgentName

if TYPE_CHECKING:
    from .app import RunState

agents_app = typer.Typer(
    help="Inspect agent definitions and what they would receive.", no_args_is_help=True
)


def _state(ctx: typer.Context) -> RunState:
    from .app import state_of

    return state_of(ctx)


@agents_app.command("list")
def list_agents(ctx: typer.Context) -> None:
    """Each agent with its model, tools and definition file."""
    from rich.table import Table

    from thresher.agents.definition import load_agent

    state = _state(ctx)
    settings = state.settings().settings
    table = Table()
    for column in ("agent", "model", "tools", "definition", "description"):
        table.add_column(column, overflow="fold")
    for name in AgentName:
        agent = load_agent(name, settings)
        table.add_row(
            name.value, agent.model, str(len(agent.tools)), str(agent.path), agent.description
        )
    state.console(stderr=False).print(table)


@agents_app.command("show")
def show_agent(ctx: typer.Context, name: AgentName) -> None:
    """One agent's definition: model, tools and system prompt."""
    from thresher.agents.definition import load_agent

    agent = load_agent(name, _state(ctx).settings().settings)
    typer.echo(f"name: {agent.name.value}")
    typer.echo(f"model: {agent.model}")
    typer.echo(f"tools: {', '.join(t.value for t in agent.tools)}")
    typer.echo(f"definition: {agent.path}")
    typer.echo(f"description: {agent.description}")
    typer.echo("")
    typer.echo(agent.system_prompt.rstrip())


@agents_app.command("render")
def render_agent(
    ctx: typer.Context,
    name: AgentName,
    finding: Annotated[Path, typer.Option("--finding", help="A finding as JSON.")],
    report: Annotated[
        list[Path] | None,
        typer.Option(
            "--report", help="An analysis report JSON for the challenger or judge (repeatable)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Print exactly what the agent would receive. Sends nothing anywhere."""
    from thresher.agents.definition import load_agent
    from thresher.agents.prompts import PromptRenderer
    from thresher.agents.render import build_input, load_finding, load_report
    from thresher.skills import SkillLoader

    settings = _state(ctx).settings().settings
    definition = load_agent(name, settings)
    skills = SkillLoader().load(name, settings.agent_skills(name))
    rendered = build_input(
        definition,
        skills,
        load_finding(finding),
        PromptRenderer.from_settings(settings),
        reports=[load_report(path) for path in report or []],
    )
    if as_json:
        typer.echo(json.dumps(rendered.to_dict(), indent=2))
        return
    typer.echo(f"=== agent: {rendered.agent.value} (model {rendered.model}; not sent) ===")
    typer.echo("\n=== system prompt ===")
    typer.echo(rendered.system_prompt.rstrip())
    typer.echo("\n=== task prompt (includes the skill catalog) ===")
    typer.echo(rendered.task_prompt.rstrip())
    typer.echo("\n=== tools ===")
    for tool in rendered.tools:
        typer.echo(f"- {tool.name.value}: {tool.description}")
        typer.echo("  parameters: " + json.dumps(tool.parameters, sort_keys=True))
