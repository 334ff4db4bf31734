"""``thresher skills list|show|validate|new|export``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thresher.errors import ExitCode, UsageError
from thresher.names import AgentName

if TYPE_CHECKING:
    from thresher.skills import Skill, SkillSet

    from .app import RunState

skills_app = typer.Typer(
    help="List, show, validate, scaffold and export methodology skills.", no_args_is_help=True
)

AgentOption = Annotated[AgentName | None, typer.Option("--agent", "-a", help="Only this agent.")]


def _state(ctx: typer.Context) -> RunState:
    from .app import state_of

    return state_of(ctx)


def _load(state: RunState, agent: AgentName) -> SkillSet:
    from thresher.skills import SkillLoader

    settings = state.settings().settings
    return SkillLoader().load(agent, settings.agent_skills(agent))


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _row(skill: Skill) -> dict[str, object]:
    return {
        "name": skill.name,
        "agent": skill.agent.value,
        "phase": skill.phase,
        "required": skill.required,
        "secret_type": [t.value for t in skill.secret_types],
        "kind": [k.value for k in skill.kinds],
        "source": skill.origin.value,
        "path": str(skill.path),
        "enabled": skill.enabled,
        "hidden": skill.hidden,
        "description": skill.description,
    }


@skills_app.command("list")
def list_skills(
    ctx: typer.Context,
    agent: AgentOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """List skills with agent, phase, required, secret type, source and enabled."""
    state = _state(ctx)
    agents = [agent] if agent else list(AgentName)
    skills = [skill for name in agents for skill in _load(state, name).skills]
    if as_json:
        typer.echo(json.dumps([_row(s) for s in skills], indent=2))
        return
    from rich.table import Table

    table = Table(title=None, show_lines=False)
    for column in ("name", "agent", "phase", "required", "secret-type", "source", "enabled"):
        table.add_column(column, overflow="fold")
    for skill in skills:
        table.add_row(
            skill.name,
            skill.agent.value,
            skill.phase or "-",
            "yes" if skill.required else "no",
            skill.secret_type_label or "-",
            skill.origin.value if skill.origin.value == "bundled" else _display(skill.path),
            "hidden" if skill.hidden else ("yes" if skill.enabled else "disabled"),
        )
    state.console(stderr=False).print(table)


@skills_app.command("show")
def show_skill(ctx: typer.Context, name: str, agent: AgentOption = None) -> None:
    """Print one skill's metadata and body."""
    state = _state(ctx)
    agents = [agent] if agent else list(AgentName)
    matches = [s for a in agents for s in _load(state, a).skills if s.name == name]
    if not matches:
        raise UsageError(f"no skill named '{name}'", hint="see 'thresher skills list'")
    if len(matches) > 1:
        owners = ", ".join(s.agent.value for s in matches)
        raise UsageError(
            f"skill '{name}' exists for several agents ({owners})", hint="pass --agent"
        )
    skill = matches[0]
    typer.echo(f"name: {skill.name}")
    typer.echo(f"agent: {skill.agent.value}")
    typer.echo(f"phase: {skill.phase or '-'}")
    typer.echo(f"required: {'true' if skill.required else 'false'}")
    typer.echo(f"secret-type: {skill.secret_type_label or '-'}")
    typer.echo(f"kind: {skill.kind_label}")
    typer.echo(f"enabled: {'true' if skill.enabled else 'false'}")
    typer.echo(f"path: {skill.path}")
    typer.echo(f"description: {skill.description}")
    if skill.references:
        typer.echo("references: " + ", ".join(skill.references))
    typer.echo("")
    typer.echo(skill.body.strip())


@skills_app.command("validate")
def validate_skills(
    ctx: typer.Context,
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Skill files, skill directories or trees; default: everything thresher loads."
        ),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Only Agent Skills standard keys at the top level.")
    ] = False,
) -> None:
    """Check skills; print each problem as path:line: message; exit 1 if any."""
    from thresher.skills import SkillLoader
    from thresher.skills.validate import validate_configured, validate_paths

    state = _state(ctx)
    loader = SkillLoader()
    if paths:
        count, problems = validate_paths(loader, paths, strict=strict)
    else:
        count, problems = validate_configured(loader, state.settings().settings, strict=strict)
    for problem in problems:
        typer.echo(str(problem))
    mode = "strict" if strict else "standard"
    state.info(f"{count} skill(s) checked ({mode}): {len(problems)} problem(s)")
    if problems:
        raise typer.Exit(int(ExitCode.FINDINGS))


@skills_app.command("new")
def new_skill(
    ctx: typer.Context,
    name: str,
    agent: Annotated[AgentName, typer.Option("--agent", "-a", help="The agent it is for.")],
    phase: Annotated[str | None, typer.Option(help="Phase directory, e.g. 3-verification.")] = None,
    required: Annotated[bool, typer.Option("--required", help="Mark it required.")] = False,
    directory: Annotated[Path, typer.Option("--dir", help="Root of your skill tree.")] = Path(
        "skills"
    ),
) -> None:
    """Scaffold a skill that passes strict validation."""
    from thresher.skills.scaffold import scaffold_skill

    state = _state(ctx)
    path = scaffold_skill(directory, name, agent, phase=phase, required=required)
    typer.echo(str(path))
    state.info(
        f"created {path}; mount it with [tool.thresher.skills.{agent.value}] "
        f'directories = ["{directory}/{agent.value}"]'
    )


@skills_app.command("export")
def export(
    ctx: typer.Context,
    agent: Annotated[AgentName, typer.Option("--agent", "-a", help="Whose skills to export.")],
    to: Annotated[Path, typer.Option("--to", help="Target directory, e.g. .claude/skills.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing skills.")] = False,
) -> None:
    """Copy an agent's enabled skills into another tool's skills directory."""
    from thresher.skills.scaffold import export_skills

    state = _state(ctx)
    written = export_skills(_load(state, agent), to, force=force)
    for path in written:
        typer.echo(str(path))
    state.info(f"exported {len(written)} {agent.value} skill(s) to {to}")
