"""``thresher eval CORPUS`` and ``thresher schema report``."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from thresher.errors import UsageError

# The CLI's own copy of the policy names: importing thresher.scoring.policy here would pull
# pydantic into `thresher --help`.
from .scan_cmd import EscalateChoice, parse_band


def eval_command(
    ctx: typer.Context,
    corpus: Annotated[
        Path, typer.Argument(help="A corpus directory: files/<owner>__<repo>/ + labels.jsonl.")
    ],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the scores as JSON.")
    ] = None,
    folds: Annotated[
        int | None,
        typer.Option(
            min=2,
            max=20,
            help="Grouped K-fold cross-validation by repository: each fold is decided by a "
            "scorer trained on the other folds only (needs numpy).",
        ),
    ] = None,
    escalate: Annotated[
        EscalateChoice, typer.Option(help="When to ask the LLM tribunal.")
    ] = EscalateChoice.UNCERTAIN,
    escalate_band: Annotated[
        str | None,
        typer.Option(
            "--escalate-band", metavar="LOW,HIGH", help="Escalate when LOW < P(real) < HIGH."
        ),
    ] = None,
    analyses: Annotated[int, typer.Option(min=1, max=5)] = 1,
    concurrency: Annotated[int, typer.Option(min=1, max=64)] = 4,
) -> None:
    """Precision, recall and F1 for 'real' per repository root; by rule and file kind;
    calibration; escalation rate and oracle ceiling; per fold with --folds."""
    from thresher.evaluation import EvalOptions, evaluate
    from thresher.evaluation_text import render_text
    from thresher.reports import check_output_path, write_atomic
    from thresher.scoring.policy import Escalate

    from .app import state_of

    state = state_of(ctx)
    if not corpus.is_dir():
        raise UsageError(f"corpus directory not found: {corpus}")
    if json_out is not None:
        check_output_path(json_out, "--json")
    options = EvalOptions(
        escalate=Escalate(escalate.value),
        analyses=analyses,
        concurrency=concurrency,
        folds=folds,
        band=parse_band(escalate_band) if escalate_band is not None else None,
        runs_dir=Path(".thresher/runs"),
    )
    result = evaluate(
        corpus,
        state.settings().settings,
        options,
        on_repo=(lambda r: state.info(f"scanning {r}")) if state.verbose else None,
    )
    typer.echo(render_text(result))
    if json_out is not None:
        write_atomic(json_out, result.model_dump_json(indent=2) + "\n")
        state.info(f"wrote {json_out}")


class SchemaName(StrEnum):
    REPORT = "report"


def schema_command(
    name: Annotated[SchemaName, typer.Argument(help="Which schema.")] = SchemaName.REPORT,
) -> None:
    """Print a published JSON schema (the JSON report's)."""
    from thresher.reports import report_schema

    match name:
        case SchemaName.REPORT:
            typer.echo(json.dumps(report_schema(), indent=2))
