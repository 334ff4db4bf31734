"""``thresher report merge``: one report from the shards of a triage matrix.

Exit codes: 0 merged; 2 an input cannot be read, is not a triage report, or does
not belong with the others (the message names the file, and the field); 3 an
output cannot be written. Pydantic and the report models are imported inside the
command so ``thresher --help`` stays light.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from thresher.triage.report import TriageReport

report_app = typer.Typer(help="Work with thresher's reports.", no_args_is_help=True)


@report_app.callback()
def _report() -> None:
    """Work with thresher's reports."""


@report_app.command("merge")
def merge_command(
    inputs: Annotated[
        list[Path],
        typer.Argument(metavar="REPORT.json", help="Triage JSON reports (one per shard)."),
    ],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the merged JSON report here.")
    ] = None,
    markdown_out: Annotated[
        Path | None, typer.Option("--markdown", help="Write the Markdown summary here.")
    ] = None,
    summary: Annotated[
        bool,
        typer.Option("--summary", help="Append the Markdown summary to $GITHUB_STEP_SUMMARY."),
    ] = False,
) -> None:
    """Merge the shards' triage reports into one JSON report, Markdown and job summary.

    With no output option the merged JSON goes to stdout.
    """
    from thresher.reports.io import check_output_path, write_atomic
    from thresher.triage.report import merge, render_markdown

    step_summary = step_summary_path() if summary else None
    for path, flag in ((json_out, "--json"), (markdown_out, "--markdown")):
        if path is not None:
            check_output_path(path, flag)
    merged = merge([load_report(path) for path in inputs], names=[str(p) for p in inputs])
    text = merged.model_dump_json(indent=2) + "\n"
    markdown = render_markdown(merged)
    if json_out is not None:
        write_atomic(json_out, text)
    if markdown_out is not None:
        write_atomic(markdown_out, markdown)
    if step_summary is not None:
        _append(step_summary, markdown)
    if json_out is None and markdown_out is None and not summary:
        typer.echo(text, nl=False)


def load_report(path: Path) -> TriageReport:
    """A triage report from ``path``; a clear error naming the file and the field."""
    from pydantic import ValidationError

    from thresher.errors import UsageError
    from thresher.triage.report import TRIAGE_REPORT_SCHEMA_VERSION, TriageReport

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        report = TriageReport.model_validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        if first["type"] == "json_invalid":
            raise UsageError(
                f"{path}: not JSON: {first['msg']}",
                hint="give the JSON report that thresher triage --json wrote",
            ) from exc
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise UsageError(
            f"{path}: field '{where or '(top level)'}': {first['msg']}{more}",
            hint="give the JSON report that thresher triage --json wrote",
        ) from exc
    if _major(report.schema_version) != _major(TRIAGE_REPORT_SCHEMA_VERSION):
        raise UsageError(
            f"{path}: field 'schema_version': {report.schema_version} is not readable by "
            f"this thresher (reads {TRIAGE_REPORT_SCHEMA_VERSION})",
            hint="merge with the thresher version that wrote the reports",
        )
    return report


def _major(version: str) -> str:
    return version.partition(".")[0]


def step_summary_path() -> Path:
    """``$GITHUB_STEP_SUMMARY``, for ``--summary``; a usage error outside Actions."""
    from thresher.errors import UsageError

    path = os.environ.get("GITHUB_STEP_SUMMARY", "")
    if not path:
        raise UsageError(
            "--summary: GITHUB_STEP_SUMMARY is not set",
            hint="use it in a GitHub Actions step, or write a file with --markdown",
        )
    return Path(path)


def append_summary(markdown: str) -> None:
    """Append to the job summary (see ``step_summary_path``)."""
    _append(step_summary_path(), markdown)


def _append(path: Path, text: str) -> None:
    from thresher.reports.io import ReportWriteError

    try:
        with path.open("a", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as exc:
        raise ReportWriteError(
            f"cannot append to GITHUB_STEP_SUMMARY {path}: {exc.strerror or exc}"
        ) from exc
