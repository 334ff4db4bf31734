"""``thresher deps``: vulnerable dependencies of the lockfiles, triaged like secrets.

Lockfiles -> OSV -> one finding per (package, version, advisory) -> the same tribunal,
journal, reports and exit codes as ``thresher scan`` (``scan_cmd.execute``): ``--fail-on
real`` fails on an ``affected`` dependency. An unreadable lockfile is reported and the
others are still triaged; the run then exits 3.
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer

from thresher.errors import UsageError

from .deps_options import (
    DEFAULT_OSV_URL,
    OSV_OFFLINE_OPTION,
    OSV_URL_OPTION,
    VEX_OPTION,
    deps_options,
)
from .run_options import (
    AnalysesOption,
    ConcurrencyOption,
    EscalateChoice,
    EscalateOption,
    FailOnChoice,
    FormatOption,
    JsonOption,
    MaxRequestsOption,
    MaxTokensOption,
    MaxTokensPerFindingOption,
    RootOption,
    SarifOption,
    TimeoutOption,
    resolve_paths,
)
from .scan_cmd import Outputs, execute


def deps_command(
    ctx: typer.Context,
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Lockfiles or directories to read (default: the whole --root)."),
    ] = None,
    root: RootOption = Path(),
    diff: Annotated[
        str | None,
        typer.Option(
            "--diff",
            metavar="BASE..HEAD",
            help="Only dependencies the range adds or changes (a new package or version).",
        ),
    ] = None,
    osv_url: Annotated[str, OSV_URL_OPTION] = DEFAULT_OSV_URL,
    osv_offline: Annotated[Path | None, OSV_OFFLINE_OPTION] = None,
    escalate: EscalateOption = EscalateChoice.UNCERTAIN,
    analyses: AnalysesOption = 1,
    concurrency: ConcurrencyOption = 4,
    fail_on: Annotated[
        FailOnChoice,
        typer.Option(help="Exit 1 when a decision is at or above this (real: affected)."),
    ] = FailOnChoice.REAL,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="No model is called; show what a real run would send."),
    ] = False,
    json_out: JsonOption = None,
    sarif_out: SarifOption = None,
    markdown_out: Annotated[
        Path | None, typer.Option("--markdown", help="Write the Markdown summary.")
    ] = None,
    vex_out: Annotated[Path | None, VEX_OPTION] = None,
    output_format: FormatOption = None,
    max_requests: MaxRequestsOption = None,
    max_tokens: MaxTokensOption = None,
    max_tokens_per_finding: MaxTokensPerFindingOption = None,
    timeout: TimeoutOption = None,
) -> None:
    """Triage the vulnerable dependencies of the project's lockfiles (OSV)."""
    from thresher.config.trust import is_pull_request
    from thresher.scan.outcome import FailOn, ScanRequest
    from thresher.scoring.policy import Escalate

    from .app import state_of

    state = state_of(ctx)
    settings = state.settings(diff=diff).settings
    if not root.is_dir():
        raise UsageError(f"--root {root} is not a directory")
    outputs = Outputs(json_out, sarif_out, markdown_out, vex_out)
    outputs.check()
    root = root.resolve()
    resolved = tuple(resolve_paths(paths, root))
    request = ScanRequest(
        root=root,
        paths=resolved,
        diff=diff,
        escalate=Escalate(escalate.value),
        analyses=analyses,
        concurrency=concurrency,
        fail_on=FailOn(fail_on.value),
        dry_run=dry_run,
        max_requests=max_requests,
        max_tokens=max_tokens,
        max_tokens_per_finding=max_tokens_per_finding
        if max_tokens_per_finding is not None
        else settings.budget.max_tokens_per_finding,
        timeout=timeout,
        honour_pragmas=not is_pull_request(os.environ, diff=diff),
        history_depth=0,  # no secret values: nothing to look for in the history
        secrets=False,
        deps=deps_options(resolved, diff, osv_url, osv_offline, dry_run=dry_run),
    )
    execute(state, request, settings, outputs, output_format, ExitStack())
