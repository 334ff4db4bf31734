"""``thresher triage``: decide GitHub secret-scanning alerts, and with ``--apply`` resolve them."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thresher.errors import UsageError

if TYPE_CHECKING:
    from thresher.triage.report import AlertOutcome, RepoHistory
    from thresher.triage.runner import TriageOutcome

    from .app import RunState

DEFAULT_API_URL = "https://api.github.com"


class AlertStateChoice(StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"
    ALL = "all"


class ValidityChoice(StrEnum):
    ACTIVE = "active"
    INACTIVE = "inactive"
    UNKNOWN = "unknown"


class TriageEscalate(StrEnum):
    NEVER = "never"
    UNCERTAIN = "uncertain"
    ALWAYS = "always"


def triage_command(
    ctx: typer.Context,
    repo: Annotated[
        list[str] | None,
        typer.Option("--repo", metavar="OWNER/NAME", help="A repository (repeatable)."),
    ] = None,
    org: Annotated[
        str | None,
        typer.Option("--org", metavar="ORG", help="Every repository of an organisation."),
    ] = None,
    state: Annotated[
        AlertStateChoice, typer.Option("--state", help="Which alerts, by their state.")
    ] = AlertStateChoice.OPEN,
    secret_type: Annotated[
        list[str] | None,
        typer.Option(
            "--secret-type", metavar="TYPE", help="Only this GitHub secret type (repeatable)."
        ),
    ] = None,
    validity: Annotated[
        list[ValidityChoice] | None,
        typer.Option("--validity", help="Only alerts GitHub rates so (repeatable)."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since", metavar="DATE", help="Only alerts created or updated on or after (ISO 8601)."
        ),
    ] = None,
    api_url: Annotated[
        str | None,
        typer.Option(
            "--api-url",
            metavar="URL",
            help="GitHub API (GitHub Enterprise Server: https://HOST/api/v3). "
            "Default: $GITHUB_API_URL, else https://api.github.com.",
        ),
    ] = None,
    app_id: Annotated[
        int | None, typer.Option("--app-id", help="Authenticate as this GitHub App.")
    ] = None,
    app_key: Annotated[
        Path | None, typer.Option("--app-key", metavar="PEM", help="The GitHub App's private key.")
    ] = None,
    app_installation: Annotated[
        int | None,
        typer.Option("--app-installation", help="The App installation (default: looked up)."),
    ] = None,
    apply: Annotated[
        bool,
        typer.Option("--apply", help="Resolve what the policy allows (default: a dry run)."),
    ] = False,
    apply_min_confidence: Annotated[
        float,
        typer.Option(
            "--apply-min-confidence", min=0, max=10, help="Resolve only at or above (0-10)."
        ),
    ] = 8.0,
    max_apply: Annotated[
        int | None, typer.Option("--max-apply", min=0, help="At most this many resolutions.")
    ] = None,
    state_db: Annotated[
        Path,
        typer.Option("--state-db", metavar="PATH", help="The state store (SQLite, WAL)."),
    ] = Path(".thresher/state.db"),
    shard: Annotated[
        str | None,
        typer.Option("--shard", metavar="K/N", help="Only this shard of the repositories."),
    ] = None,
    max_rate_wait: Annotated[
        float,
        typer.Option(
            "--max-rate-wait",
            metavar="SECONDS",
            min=0,
            help="Wait out a GitHub rate limit up to this long; a longer one stops the run "
            "(exit 3, state kept: run the same command again to continue).",
        ),
    ] = 60.0,
    wait: Annotated[
        float,
        typer.Option(
            "--wait",
            metavar="SECONDS",
            min=0,
            help="If another thresher run holds the state database, wait up to this long "
            "for it to finish; then stop without doing anything (exit 4).",
        ),
    ] = 0.0,
    escalate: Annotated[
        TriageEscalate, typer.Option(help="When to ask the LLM tribunal.")
    ] = TriageEscalate.UNCERTAIN,
    concurrency: Annotated[int, typer.Option(min=1, max=64, help="Alerts decided at once.")] = 4,
    clone: Annotated[
        bool,
        typer.Option(
            "--clone",
            help="Read each repository's git history (when a value was added, whether it "
            "was removed) from a partial clone (bare, files over 1 MB left out), made once "
            "per run in a private temporary directory and deleted after it. The token "
            "goes to git as an http.extraheader set through its environment, never in a "
            "URL or an argument; it needs `contents: read`. Default: no clone, only the "
            "file at each alert's commit.",
        ),
    ] = False,
    history_depth: Annotated[
        int | None,
        typer.Option(
            "--history-depth",
            metavar="COMMITS",
            min=0,
            help="With --clone: read at most this many commits of each repository's "
            "history (0: none, and no clone; default: 10000, as for scan). The report "
            "says how far back each read got.",
        ),
    ] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the JSON report.")] = None,
    markdown_out: Annotated[
        Path | None,
        typer.Option(
            "--markdown",
            help="Write the Markdown summary here.",
        ),
    ] = None,
    summary: Annotated[
        bool,
        typer.Option("--summary", help="Append the Markdown summary to $GITHUB_STEP_SUMMARY."),
    ] = False,
) -> None:
    """Triage GitHub secret-scanning alerts; with --apply, resolve the proven false positives."""
    from thresher.findings import AlertState, AlertValidity
    from thresher.git.history import DEFAULT_HISTORY_DEPTH
    from thresher.github.client import AppCredentials
    from thresher.github.models import RepoRef
    from thresher.reports import check_output_path
    from thresher.scoring.policy import Escalate
    from thresher.triage.report import TriageFilters
    from thresher.triage.runlock import Holder, StateBusy
    from thresher.triage.runner import TriageRequest, run_triage
    from thresher.triage.shard import ShardSpec

    from .app import state_of

    run = state_of(ctx)
    settings = run.settings().settings
    if bool(repo) == bool(org):
        raise UsageError("pass --repo OWNER/NAME (repeatable) or --org ORG, not both or neither")
    repos = tuple(RepoRef.parse(r).full_name for r in repo or [])
    if (app_id is None) != (app_key is None):
        raise UsageError("--app-id and --app-key go together", hint="pass both, or neither")
    if history_depth is not None and not clone:
        raise UsageError("--history-depth needs --clone", hint="without a clone no history is read")
    for flag, out in (("--json", json_out), ("--markdown", markdown_out)):
        if out is not None:
            check_output_path(out, flag)
    request = TriageRequest(
        repos=repos,
        org=org,
        filters=TriageFilters(
            states=tuple(AlertState)
            if state is AlertStateChoice.ALL
            else (AlertState(state.value),),
            secret_types=tuple(secret_type or ()),
            validities=tuple(AlertValidity(v.value) for v in validity or ()),
            since=_since(since),
        ),
        api_url=(api_url or os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        app=(
            AppCredentials(
                app_id=app_id, private_key_path=app_key, installation_id=app_installation
            )
            if app_id is not None and app_key is not None
            else None
        ),
        apply=apply,
        min_confidence=apply_min_confidence,
        max_apply=max_apply,
        state_path=state_db,
        shard=ShardSpec.parse(shard) if shard is not None else None,
        escalate=Escalate(escalate.value),
        concurrency=concurrency,
        clone=clone,
        history_depth=DEFAULT_HISTORY_DEPTH if history_depth is None else history_depth,
        max_rate_wait_s=max_rate_wait,
        wait_s=wait,
    )
    if summary:
        from thresher.cli.report_cmd import step_summary_path

        step_summary_path()  # fails now, not after the run, when it is not set
    progress = _Progress(run)

    def waiting(holder: Holder | None) -> None:
        who = holder.describe() if holder is not None else "a run that is just starting"
        typer.echo(
            f"thresher: state database {state_db} is in use by {who}; waiting up to "
            f"{wait:g} s for it",
            err=True,
        )

    try:
        outcome = run_triage(
            request, settings, environ=os.environ, on_alert=progress.alert, on_wait=waiting
        )
    except StateBusy as busy:
        # Not an error: another run is doing this job. Said on stderr (even with -q, it
        # is why nothing happened), no report written (it would overwrite the other's).
        typer.echo(f"thresher: not started: {busy.message}", err=True)
        if busy.hint:
            typer.echo(f"  hint: {busy.hint}", err=True)
        raise typer.Exit(int(busy.exit_code)) from None
    finally:
        progress.stop()
    _write(run, outcome, json_out, markdown_out, summary)
    raise typer.Exit(int(outcome.exit_code))


def _since(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            f"--since {text!r} is not a date", hint="use ISO 8601: 2026-01-31 or 2026-01-31T12:00"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class _Progress:
    """A bar on a terminal for long runs; one line per alert with -v."""

    def __init__(self, state: RunState) -> None:
        self.state = state
        self._bar: object | None = None
        self._task: object | None = None
        console = state.console()
        if not state.quiet and console.is_terminal:
            from rich.progress import Progress

            bar = Progress(console=console, transient=True)
            bar.start()
            self._task = bar.add_task("triaging alerts", total=None)
            self._bar = bar

    def alert(self, outcome: AlertOutcome) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)  # type: ignore[attr-defined]
        if self.state.verbose:
            self.state.info(_line(outcome))

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()  # type: ignore[attr-defined]


def _line(outcome: AlertOutcome) -> str:
    decision = outcome.decision
    verdict = (
        f"{decision.verdict.value} {decision.classification.value} {decision.confidence:.1f}/10"
        if decision is not None
        else "not decided"
    )
    action = outcome.action
    what = (
        f"{'resolved' if outcome.applied else 'would resolve'} as {action.resolution.value}"
        if action.resolution is not None
        else f"held: {action.hold.value if action.hold else 'no action'}"
    )
    error = f" ({outcome.error})" if outcome.error else ""
    return f"{outcome.repo}#{outcome.number} {outcome.secret_type}: {verdict}; {what}{error}"


def _write(
    state: RunState,
    outcome: TriageOutcome,
    json_out: Path | None,
    markdown_out: Path | None,
    summary: bool,
) -> None:
    from thresher.reports.io import write_atomic
    from thresher.triage.report import render_markdown

    report = outcome.report
    markdown = render_markdown(report)
    if json_out is not None:
        write_atomic(json_out, report.model_dump_json(indent=2) + "\n")
    if markdown_out is not None:
        write_atomic(markdown_out, markdown)
    if summary:
        from thresher.cli.report_cmd import append_summary

        append_summary(markdown)
    run_dir = outcome.run_dir
    if run_dir.exists():
        write_atomic(run_dir / "triage.json", report.model_dump_json(indent=2) + "\n")
    totals = report.summary
    acted = (
        f"resolved {totals.resolved}"
        if not report.dry_run
        else f"would resolve {totals.would_resolve} (a dry run: --apply to act)"
    )
    state.info(
        f"{totals.alerts} alert(s): {acted}; held {sum(totals.held.values())}; "
        f"not decided {totals.undecided}; errors {totals.alert_errors + totals.run_errors}"
    )
    for history in report.histories:
        state.info(_history_line(history))
    if report.stopped:
        state.info(f"thresher: stopped early: {report.stopped}")
    for error in report.errors:
        state.info(f"thresher: {error.stage}: {error.message}")


def _history_line(history: RepoHistory) -> str:
    """``--clone``: how far back one repository's history was read, or why not."""
    read = history.history
    if read is None or history.error:
        return f"history of {history.repo}: not read ({history.error})"
    text = f"history of {history.repo}: read {read.commits_read} commit(s)"
    if read.stopped_at_depth:
        text += f"; stopped at --history-depth {read.depth}, older commits not searched"
    if read.timed_out:
        text += "; timed out, older commits not searched"
    if history.omitted_paths:
        text += f"; {history.omitted_paths} path(s) with files over 1 MB not searched"
    return text
