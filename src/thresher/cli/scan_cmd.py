"""``thresher scan``: find candidates, decide each, report, exit by ``--fail-on``."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thresher.errors import UsageError
from thresher.scan.observer import ScanObserver

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
    FormatChoice,
    FormatOption,
    JsonOption,
    MaxRequestsOption,
    MaxTokensOption,
    MaxTokensPerFindingOption,
    RootOption,
    SarifOption,
    TimeoutOption,
    parse_band,
    resolve_paths,
)

if TYPE_CHECKING:
    from thresher.config.settings import Settings
    from thresher.git.history import HistoryIndex
    from thresher.scan.outcome import ScanOutcome, ScanRequest
    from thresher.scoring.beside import AssessedBeside
    from thresher.sources.dependencies import DependencyScan
    from thresher.sources.scan import ScanResult, StartedScan
    from thresher.tribunal.decisions import Decision, RunReport

    from .app import RunState


TABLE_ROWS = 50  # rows of the decisions table without -v; the reports hold them all


class VerifyChoice(StrEnum):
    OFFLINE = "offline"
    LIVE = "live"


def scan_command(
    ctx: typer.Context,
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Files or directories to scan (default: the whole --root)."),
    ] = None,
    root: RootOption = Path(),
    diff: Annotated[
        str | None,
        typer.Option("--diff", metavar="BASE..HEAD", help="Only lines added in this git range."),
    ] = None,
    staged: Annotated[bool, typer.Option(help="Only lines added in the git index.")] = False,
    baseline: Annotated[
        Path | None, typer.Option(help="Skip entries of a detect-secrets baseline file.")
    ] = None,
    escalate: EscalateOption = EscalateChoice.UNCERTAIN,
    escalate_band: Annotated[
        str | None,
        typer.Option(
            "--escalate-band",
            metavar="LOW,HIGH",
            help="Escalate when LOW < P(real) < HIGH (default: the scorer's cross-validated "
            "band, see `thresher eval`).",
        ),
    ] = None,
    analyses: AnalysesOption = 1,
    concurrency: ConcurrencyOption = 4,
    fail_on: Annotated[
        FailOnChoice, typer.Option(help="Exit 1 when a decision is at or above this.")
    ] = FailOnChoice.REAL,
    verify: Annotated[
        VerifyChoice, typer.Option(help="live: read-only calls to the secret's own provider.")
    ] = VerifyChoice.OFFLINE,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Nothing leaves the machine; show what a real run would send."
        ),
    ] = False,
    json_out: JsonOption = None,
    sarif_out: SarifOption = None,
    markdown_out: Annotated[
        Path | None,
        typer.Option("--markdown", help="Write the Markdown summary and per-finding reports."),
    ] = None,
    output_format: FormatOption = None,
    max_requests: MaxRequestsOption = None,
    max_tokens: MaxTokensOption = None,
    max_tokens_per_finding: MaxTokensPerFindingOption = None,
    history_depth: Annotated[
        int,
        typer.Option(
            "--history-depth",
            metavar="COMMITS",
            min=0,
            help="Read at most this many commits of git history for where each value was "
            "added or removed (0: none). The report says how far back the run read.",
        ),
    ] = 10_000,
    timeout: TimeoutOption = None,
    deps: Annotated[
        bool,
        typer.Option(
            "--deps",
            help="Also triage vulnerable dependencies of the lockfiles (see `thresher deps`).",
        ),
    ] = False,
    osv_url: Annotated[str, OSV_URL_OPTION] = DEFAULT_OSV_URL,
    osv_offline: Annotated[Path | None, OSV_OFFLINE_OPTION] = None,
    vex_out: Annotated[Path | None, VEX_OPTION] = None,
) -> None:
    """Scan, triage every candidate, and report decisions you can act on."""
    from thresher.config.trust import is_pull_request
    from thresher.scoring.beside import AssessedBeside
    from thresher.sources.scan import CustomRule, ScanOptions, start_scan

    from .app import state_of

    state = state_of(ctx)
    settings = state.settings(diff=diff).settings
    stack = ExitStack()
    if diff and staged:
        raise UsageError("--diff and --staged cannot be combined", hint="pick one")
    if deps and staged:
        raise UsageError(
            "--deps and --staged cannot be combined",
            hint="lockfiles are read from the work tree or a --diff range, not the index",
        )
    if not root.is_dir():
        raise UsageError(f"--root {root} is not a directory")
    outputs = Outputs(json_out, sarif_out, markdown_out, vex_out)
    outputs.check()
    root = root.resolve()
    resolved = resolve_paths(paths, root)
    if baseline is not None:
        baseline = _trusted_baseline(state, baseline, root, diff, stack)
    band = parse_band(escalate_band) if escalate_band is not None else None
    dependencies = (
        deps_options(tuple(resolved), diff, osv_url, osv_offline, dry_run=dry_run) if deps else None
    )
    custom_rules = tuple(CustomRule.of(rule) for rule in settings.rules)
    honour_pragmas = not is_pull_request(os.environ, diff=diff)
    # Forked while this process is small: the scorer's assessments are made there while
    # this one decides (``scoring.beside``).
    beside = AssessedBeside.start(root)
    if beside is not None:
        stack.callback(beside.close)
    # Every argument is checked: the scan starts on the other cores while this process
    # loads the triage (``sources.scan.start_scan``); the run finishes it.
    started = start_scan(
        ScanOptions(
            root=root,
            paths=tuple(resolved),
            diff=diff,
            staged=staged,
            baseline=baseline,
            custom_rules=custom_rules,
            honour_pragmas=honour_pragmas,
        )
    )
    stack.callback(started.close)
    try:  # until ``execute`` owns the stack, a failure here closes it (and the scan)
        from thresher.scan.outcome import FailOn, ScanRequest
        from thresher.scoring.policy import Escalate

        request = ScanRequest(
            root=root,
            paths=tuple(resolved),
            diff=diff,
            staged=staged,
            baseline=baseline,
            escalate=Escalate(escalate.value),
            band=band,
            analyses=analyses,
            concurrency=concurrency,
            fail_on=FailOn(fail_on.value),
            dry_run=dry_run,
            verify_live=verify is VerifyChoice.LIVE,
            max_requests=max_requests,
            max_tokens=max_tokens,
            max_tokens_per_finding=max_tokens_per_finding
            if max_tokens_per_finding is not None
            else settings.budget.max_tokens_per_finding,
            timeout=timeout,
            history_depth=history_depth,
            honour_pragmas=honour_pragmas,
            custom_rules=custom_rules,
            deps=dependencies,
        )
    except BaseException:
        stack.close()
        raise
    execute(state, request, settings, outputs, output_format, stack, started, beside)


def execute(
    state: RunState,
    request: ScanRequest,
    settings: Settings,
    outputs: Outputs,
    output_format: FormatChoice | None,
    stack: ExitStack,
    started: StartedScan | None = None,
    beside: AssessedBeside | None = None,
) -> None:
    """Run the use case, write the reports, print the table, exit by ``--fail-on``:
    shared by ``scan`` and ``deps`` so both behave the same. ``started``: the secret
    scan of ``request``, already under way (``scan``); ``beside``: the process forked
    to make the scorer's assessments (``scan``)."""
    from thresher.scan.run import run_scan

    progress = _Progress(state, secrets=request.secrets)
    try:
        outcome = run_scan(request, settings, observer=progress, started=started, beside=beside)
    finally:
        progress.stop()
        stack.close()
    _write_outputs(state, outcome, outputs)
    _print(state, outcome, output_format, outputs.json)
    raise typer.Exit(int(outcome.exit_code))


class _Progress(ScanObserver):
    """What a scan shows while it runs, on stderr: the secret scan's and the dependency
    scan's lines, the history read, and a progress bar for long runs (silent with -q or
    off a terminal)."""

    def __init__(self, state: RunState, *, secrets: bool) -> None:
        self.state = state
        self.secrets = secrets  # `thresher deps` reads no history: no line for it
        self._bar: object | None = None
        self._task: object | None = None

    def candidates_found(self, scan: ScanResult) -> None:
        findings = scan.findings
        self.state.info(scan.describe(verbose=self.state.verbose > 0))
        console = self.state.console()
        if self.state.quiet or len(findings) < 20 or not console.is_terminal:
            return
        from rich.progress import Progress

        bar = Progress(console=console, transient=True)
        bar.start()
        self._task = bar.add_task("triaging", total=len(findings))
        self._bar = bar

    def dependencies_read(self, dependencies: DependencyScan) -> None:
        """What the dependency scan read; an unreadable lockfile goes to stderr even with -q."""
        self.state.info(dependencies.describe())
        for notice in dependencies.notices:
            self.state.info(f"thresher: {notice}")
        for error in dependencies.errors:
            self.state.console().print(f"thresher: lockfile not read: {error}")

    def history_read(self, history: HistoryIndex) -> None:
        if self.secrets:
            self.state.info(history.stats.describe())

    def decided(self, decision: Decision) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)  # type: ignore[attr-defined]

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Outputs:
    """The report files a run writes (``--json``, ``--sarif``, ``--markdown``, ``--vex``)."""

    json: Path | None = None
    sarif: Path | None = None
    markdown: Path | None = None
    vex: Path | None = None

    def check(self) -> None:
        from thresher.reports import check_output_path

        for flag, out in (
            ("--json", self.json),
            ("--sarif", self.sarif),
            ("--markdown", self.markdown),
            ("--vex", self.vex),
        ):
            if out is not None:
                check_output_path(out, flag)


def _write_outputs(state: RunState, outcome: ScanOutcome, outputs: Outputs) -> None:
    from thresher.reports import render_sarif, write_atomic
    from thresher.reports.vex import render_vex

    report = outcome.report
    if outputs.json is not None:  # the run's report.json, byte for byte
        write_atomic(outputs.json, outcome.report_bytes())
        state.info(f"wrote {outputs.json}")
    for path, render in (
        (outputs.sarif, render_sarif),
        (outputs.markdown, render_markdown),
    ):
        if path is not None:
            write_atomic(path, render(report))
            state.info(f"wrote {path}")
    if outputs.vex is not None:
        vex = render_vex(report)
        if vex is None:
            state.info(
                f"no dependency decisions: OpenVEX needs at least one statement, "
                f"{outputs.vex} not written"
            )
        else:
            write_atomic(outputs.vex, vex)
            state.info(f"wrote {outputs.vex}")
    state.info(f"transcripts and decisions: {outcome.run_dir}")


def _run_json(outcome: ScanOutcome) -> Callable[[RunReport], str]:
    """``render_json`` of the outcome's report, as the run already wrote it for report.json."""
    return lambda _report: outcome.report_json


def _print(
    state: RunState,
    outcome: ScanOutcome,
    output_format: FormatChoice | None,
    json_out: Path | None = None,
) -> None:
    from thresher.reports import render_sarif

    report = outcome.report
    _errors(state, report)
    if not state.quiet:
        reports = [outcome.run_dir / "report.json", *([json_out] if json_out else [])]
        _table(state, report, reports)
        for plan in outcome.plan:
            state.info(plan.describe())
        s = report.summary
        state.info(
            f"{s.findings} finding(s): {s.true_positive} true positive, "
            f"{s.inconclusive} inconclusive, {s.false_positive} false positive; "
            f"{s.decided_without_model} decided without a model call; "
            f"exit {int(outcome.exit_code)}"
        )
    if output_format is not None:
        render = {
            FormatChoice.JSON: _run_json(outcome),
            FormatChoice.SARIF: render_sarif,
            FormatChoice.MARKDOWN: render_markdown,
        }[output_format]
        typer.echo(render(report))


def _trusted_baseline(
    state: RunState, baseline: Path, root: Path, diff: str | None, stack: ExitStack
) -> Path | None:
    """The baseline as the base commit has it, in a pull-request job (see ``baseline_at_base``)."""
    import tempfile

    from .repo import baseline_at_base

    content, notice = baseline_at_base(baseline, root, diff=diff)
    if notice is not None:
        state.info(f"thresher: {notice}")
    if content is None:
        return None if notice is not None else baseline
    directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="thresher-")))
    copy = directory / baseline.name
    copy.write_bytes(content)
    return copy


def _errors(state: RunState, report: RunReport) -> None:
    """Failures go to stderr even with ``-q``: the exit code says 3, this says why."""
    from thresher.reports.views import location_text

    if not report.errors:
        return
    console = state.console()
    console.print(f"thresher: {len(report.errors)} kind(s) of error in this run (exit 3):")
    for error in report.errors:
        console.print(f"  {error.stage}: {error.error}: {error.message}")
    for decision in report.decisions:
        place = location_text(decision.finding.locations[0])
        for error in decision.errors:
            console.print(f"  {place}: {error.stage}: {error.error}: {error.message}")


def render_markdown(report: RunReport) -> str:
    """The summary, then one report per escalated finding."""
    from thresher.reports import render_finding, render_summary

    parts = [render_summary(report)]
    parts += [render_finding(d) for d in report.decisions if d.escalated]
    return "\n\n".join(part.rstrip() for part in parts) + "\n"


def _needs_action(decision: Decision) -> int:
    """Rows first that someone must act on: true positives, then what is still open
    (inconclusive, or what the policy would send to a model that did not see it)."""
    from thresher.findings.results import Verdict

    match decision.verdict:
        case Verdict.TRUE_POSITIVE:
            return 0
        case Verdict.INCONCLUSIVE:
            return 1
        case Verdict.FALSE_POSITIVE:
            escalation = decision.escalation
            open_ = escalation is not None and escalation.would_escalate and not decision.escalated
            return 2 if open_ else 3


def _table(state: RunState, report: RunReport, reports: list[Path]) -> None:
    """The decisions, those needing action first; without ``-v`` at most ``TABLE_ROWS``.

    A run over a large tree decides thousands of findings, mostly false positives: a
    terminal cannot show them and rendering them took seconds. The reports hold every
    decision; the note under a cut table names them and the flag that prints all rows.
    """
    from rich.table import Table

    from thresher.reports.views import location_text

    if not report.decisions:
        return
    table = Table(title="thresher decisions")
    columns = ("verdict", "class", "P(real)", "escalate", "rule", "location", "value", "decided by")
    for column in columns:
        table.add_column(column, overflow="fold")
    ordered = sorted(report.decisions, key=_needs_action)
    shown = ordered if state.verbose else ordered[:TABLE_ROWS]
    for d in shown:
        more = len(d.finding.locations) - 1
        table.add_row(
            d.verdict.value,
            d.classification.value,
            f"{d.assessment.p_real:.2f}" if d.assessment else "-",
            ("yes" if d.escalation.would_escalate else "no") if d.escalation else "-",
            d.finding.rule_id,
            location_text(d.finding.locations[0]) + (f" (+{more})" if more else ""),
            d.finding.redacted,
            d.decided_by.value,
        )
    console = state.console()
    console.print(table)
    hidden = ordered[len(shown) :]
    if hidden:
        counts = Counter(d.verdict.value.lower().replace("_", " ") for d in hidden)
        kinds = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
        names = " and ".join(str(p) for p in reports)
        console.print(
            f"{len(hidden)} more decision(s) not shown ({kinds}); every decision is in "
            f"{names}; -v prints all rows",
            markup=False,
            highlight=False,
        )
