"""``thresher rules list|show``: the detection rules a scan runs, as data.

The built-in rules ship in the package; custom rules come from configuration
(``[[rules]]``) in the same format. Both are printed from what the scanner loads, so
what a user reads is what runs.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from thresher.errors import ExitCode

if TYPE_CHECKING:
    from thresher.findings.rules.book import Rule

    from .app import RunState

rules_app = typer.Typer(
    help="Show the detection rules: thresher's built-in ones and your custom ones.",
    no_args_is_help=True,
)


def _state(ctx: typer.Context) -> RunState:
    from .app import state_of

    return state_of(ctx)


def _rules(ctx: typer.Context) -> list[tuple[Rule, str]]:
    """Every rule with where it comes from: ``built-in`` or ``custom``."""
    from thresher.findings.rules.book import builtin_rules

    custom = _state(ctx).settings().settings.rules
    return [(rule, "built-in") for rule in builtin_rules()] + [(rule, "custom") for rule in custom]


@rules_app.command("list")
def list_rules(
    ctx: typer.Context,
    provider: Annotated[
        str | None, typer.Option("--provider", "-p", help="Only this provider's rules.")
    ] = None,
) -> None:
    """Each rule: id, provider, kind, severity, origin and the validator that confirms it."""
    from rich.table import Table

    rows = [(r, o) for r, o in _rules(ctx) if provider is None or r.provider == provider]
    table = Table()
    for column in ("id", "provider", "kind", "severity", "origin", "validator"):
        table.add_column(column, overflow="fold")
    for rule, origin in rows:
        table.add_row(
            rule.id,
            rule.provider,
            rule.kind.value,
            rule.severity.value,
            origin,
            rule.validator or "-",
        )
    state = _state(ctx)
    state.console(stderr=False).print(table)
    providers = len({rule.provider for rule, _ in rows})
    state.info(f"{len(rows)} rule(s) from {providers} provider(s)")


@rules_app.command("show")
def show_rule(
    ctx: typer.Context,
    rule_id: Annotated[str, typer.Argument(metavar="ID", help="The rule's id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the rule as JSON.")] = False,
) -> None:
    """Every field of one rule: its pattern, keywords, value checks and validator."""
    found = [(rule, origin) for rule, origin in _rules(ctx) if rule.id == rule_id]
    if not found:
        typer.echo(f"thresher: error: no rule {rule_id!r}", err=True)
        typer.echo("  hint: `thresher rules list` shows every rule's id", err=True)
        raise typer.Exit(int(ExitCode.USAGE))
    rule, origin = found[0]
    data = {"origin": origin, **rule.model_dump(mode="json")}
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    for key, value in data.items():
        if value in (None, (), [], ""):
            continue
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        typer.echo(f"{key + ':':<14} {shown}")
