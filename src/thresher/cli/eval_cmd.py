"""``thresher eval CORPUS`` and ``thresher schema report``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thresher.errors import UsageError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .app import RunState

# The CLI's own copy of the policy names: importing thresher.scoring.policy here would pull
# pydantic into `thresher --help`.
from .run_options import EscalateChoice, EscalateOption, parse_band


class CorpusKind(StrEnum):
    """Which findings the corpus labels; ``auto`` tells them apart by layout."""

    AUTO = "auto"
    SECRETS = "secrets"
    DEPS = "deps"


# The dependency corpus layout (thresher.evaluation.depcorpus), spelled here so that telling the
# two layouts apart does not import pydantic at start.
_DEPS_MARKERS = ("labels.json", "projects")


def corpus_kind(corpus: Path, kind: CorpusKind) -> CorpusKind:
    """``kind``, or with ``auto`` the one the layout says: labels.json + projects/ is a
    dependency corpus, anything else the secret corpus (whose loader names what is
    missing)."""
    if kind is not CorpusKind.AUTO:
        return kind
    labels, projects = (corpus / name for name in _DEPS_MARKERS)
    return CorpusKind.DEPS if labels.is_file() and projects.is_dir() else CorpusKind.SECRETS


def eval_command(
    ctx: typer.Context,
    corpus: Annotated[
        Path,
        typer.Argument(
            help="A corpus directory: files/<owner>__<repo>/ + labels.jsonl (secrets), or "
            "projects/<name>/ + osv/<Ecosystem>/ + labels.json (dependencies)."
        ),
    ],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the scores as JSON.")
    ] = None,
    html_out: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write the evaluation as one self-contained HTML page: the figures, the "
            "precision-recall curve and reliability diagram of P(real), the tables (with "
            "--clean: bars per repository). Secret corpora only.",
        ),
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
    escalate: EscalateOption = EscalateChoice.UNCERTAIN,
    escalate_band: Annotated[
        str | None,
        typer.Option(
            "--escalate-band", metavar="LOW,HIGH", help="Escalate when LOW < P(real) < HIGH."
        ),
    ] = None,
    analyses: Annotated[int, typer.Option(min=1, max=5)] = 1,
    concurrency: Annotated[int, typer.Option(min=1, max=64)] = 4,
    kind: Annotated[
        CorpusKind,
        typer.Option(help="Which corpus: secrets, deps (dependencies), or auto by layout."),
    ] = CorpusKind.AUTO,
    clean: Annotated[
        bool,
        typer.Option(
            "--clean",
            help="CORPUS is a directory of whole repository trees with no live credential "
            "(files/<owner>__<repo>/, or the trees directly): count false 'real' calls and "
            "escalations per repository.",
        ),
    ] = False,
) -> None:
    """Precision, recall and F1 for 'real' (secrets) or 'affected' (dependencies) per
    root; the escalation rate and the oracle ceiling; for secrets also by rule and file
    kind, calibration, and per fold with --folds."""
    if not corpus.is_dir():
        raise UsageError(f"corpus directory not found: {corpus}")
    outputs = Outputs(json_out, html_out)
    if clean:
        if folds is not None:
            raise UsageError(
                "--folds with --clean: clean trees carry no labels to train fold scorers on",
                hint="benchmarks/train_scorer.py --wild DIR cross-validates with the trees "
                "held out per fold",
            )
        if kind is CorpusKind.DEPS:
            raise UsageError("--clean with --kind deps: clean trees are scanned for secrets")
        _eval_clean(ctx, corpus, outputs, escalate, escalate_band)
        return
    if corpus_kind(corpus, kind) is CorpusKind.DEPS:
        if folds is not None:
            raise UsageError(
                "--folds: a dependency corpus has no trained scorer to cross-validate",
                hint="drop --folds; the dependency heuristic has no parameters fitted on data",
            )
        if escalate_band is not None:
            raise UsageError(
                "--escalate-band: dependency findings have no P(real) to band",
                hint="a dependency escalates when the heuristic cannot settle it",
            )
        if html_out is not None:
            raise UsageError(
                "--html: the page draws P(real), which dependency findings do not have",
                hint="drop --html; --json writes the dependency figures",
            )
        _eval_deps(ctx, corpus, json_out, escalate, analyses, concurrency)
        return
    from thresher.evaluation.secrets import EvalOptions, evaluate
    from thresher.evaluation.secrets_text import render_text
    from thresher.scoring.policy import Escalate

    from .app import state_of

    state = state_of(ctx)
    outputs.check()
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
    page = None
    if outputs.html is not None:
        from thresher.evaluation.page import render_html

        page = render_html(result)
    _emit(state, render_text(result), outputs, result, page)


@dataclass(frozen=True)
class Outputs:
    """The files an evaluation writes besides its text: ``--json`` and ``--html``."""

    json: Path | None = None
    html: Path | None = None

    def check(self) -> None:
        """Refuse paths that can never be written before minutes of scanning, and one
        path for both files (the second would silently replace the first)."""
        from thresher.reports import check_output_path

        if self.json is not None:
            check_output_path(self.json, "--json")
        if self.html is not None:
            check_output_path(self.html, "--html")
        if (
            self.json is not None
            and self.html is not None
            and self.json.resolve() == self.html.resolve()
        ):
            raise UsageError(
                f"--html {self.html}: the same file as --json",
                hint="give the page its own path, e.g. eval.html",
            )


def _emit(
    state: RunState, text: str, outputs: Outputs, result: BaseModel, page: str | None = None
) -> None:
    """Print an evaluation's text, write its JSON where ``--json`` says and its page
    (``page``, rendered by the caller only when ``--html`` was given) where ``--html``
    says."""
    from thresher.reports import write_atomic

    typer.echo(text)
    if outputs.json is not None:
        write_atomic(outputs.json, result.model_dump_json(indent=2) + "\n")
        state.info(f"wrote {outputs.json}")
    if outputs.html is not None and page is not None:
        write_atomic(outputs.html, page)
        state.info(f"wrote {outputs.html}")


def _eval_clean(
    ctx: typer.Context,
    corpus: Path,
    outputs: Outputs,
    escalate: EscalateChoice,
    escalate_band: str | None,
) -> None:
    """False `real` calls and escalations on clean trees (``thresher.evaluation.clean``)."""
    from thresher.evaluation.clean import CleanOptions, evaluate_clean, render_clean
    from thresher.scoring.policy import Escalate

    from .app import state_of

    state = state_of(ctx)
    outputs.check()
    result = evaluate_clean(
        corpus,
        state.settings().settings,
        CleanOptions(
            escalate=Escalate(escalate.value),
            band=parse_band(escalate_band) if escalate_band is not None else None,
            runs_dir=Path(".thresher/runs"),
        ),
        on_repo=(lambda r: state.info(f"scanning {r}")) if state.verbose else None,
    )
    page = None
    if outputs.html is not None:
        from thresher.evaluation.page import render_clean_html

        page = render_clean_html(result)
    _emit(state, render_clean(result), outputs, result, page)


def _eval_deps(
    ctx: typer.Context,
    corpus: Path,
    json_out: Path | None,
    escalate: EscalateChoice,
    analyses: int,
    concurrency: int,
) -> None:
    """The dependency eval (``thresher.evaluation.deps``), printed and written as JSON."""
    from thresher.evaluation.deps import DepsEvalOptions, evaluate_deps
    from thresher.evaluation.deps_text import render_deps_text
    from thresher.reports import check_output_path
    from thresher.scoring.policy import Escalate

    from .app import state_of

    state = state_of(ctx)
    if json_out is not None:
        check_output_path(json_out, "--json")
    result = evaluate_deps(
        corpus,
        state.settings().settings,
        DepsEvalOptions(
            escalate=Escalate(escalate.value),
            analyses=analyses,
            concurrency=concurrency,
            runs_dir=Path(".thresher/runs"),
        ),
        on_project=(lambda p: state.info(f"deciding {p}")) if state.verbose else None,
    )
    _emit(state, render_deps_text(result), Outputs(json_out), result)


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
