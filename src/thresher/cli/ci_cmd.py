"""``thresher ci``: one command for a GitHub Actions step (see :mod:`thresher.ci`).

It reads the documented runner environment (``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH``,
``GITHUB_REPOSITORY``, ``GITHUB_API_URL``, ``GITHUB_SHA``, ``GITHUB_WORKSPACE``, and
``GITHUB_TOKEN``, ``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``), scans what the event adds,
and writes SARIF, annotations, step outputs, the job summary and one sticky comment.
In a pull request the configuration comes from the base commit: the repository's
``thresher.toml`` / ``pyproject.toml`` always, and a ``--config`` file inside the
checkout too, since the pull request could have rewritten it.

While it runs, workflow commands are stopped (``::stop-commands::``): a file name or
message from the repository printed in the log cannot become a command. They resume
for thresher's own annotations at the end.
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from thresher.errors import ConfigError, UsageError

from .deps_options import (
    DEFAULT_OSV_URL,
    OSV_OFFLINE_OPTION,
    OSV_URL_OPTION,
    VEX_OPTION,
    deps_options,
)
from .run_options import EscalateChoice, EscalateOption, FailOnChoice

if TYPE_CHECKING:
    from thresher.ci.comment import CommentApi
    from thresher.ci.event import CiEvent, RunnerEnv
    from thresher.ci.scope import Scope

_CATEGORY = re.compile(r"[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*")


def ci_command(
    ctx: typer.Context,
    fail_on: Annotated[
        FailOnChoice, typer.Option(help="Exit 1 when a decision is at or above this.")
    ] = FailOnChoice.REAL,
    escalate: EscalateOption = EscalateChoice.UNCERTAIN,
    comment: Annotated[
        bool,
        typer.Option(
            "--comment/--no-comment",
            help="Keep one sticky comment on the pull request (needs pull-requests: write).",
        ),
    ] = True,
    sarif_out: Annotated[
        Path, typer.Option("--sarif", help="Write SARIF 2.1.0 here, for upload-sarif.")
    ] = Path("thresher.sarif"),
    category: Annotated[
        str,
        typer.Option(help="Code-scanning category (SARIF runs[].automationDetails.id)."),
    ] = "thresher/secrets",
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the JSON report.")] = None,
    markdown_out: Annotated[
        Path | None, typer.Option("--markdown", help="Write the job summary's Markdown.")
    ] = None,
    paths: Annotated[
        list[str] | None,
        typer.Option(
            "--paths",
            help="Only these files or directories, relative to the workspace (repeatable; "
            "one value may hold several, one per line or comma-separated).",
        ),
    ] = None,
    deps: Annotated[
        bool,
        typer.Option(
            "--deps",
            help="Also triage the vulnerable dependencies the event adds or changes (OSV).",
        ),
    ] = False,
    osv_url: Annotated[str, OSV_URL_OPTION] = DEFAULT_OSV_URL,
    osv_offline: Annotated[Path | None, OSV_OFFLINE_OPTION] = None,
    vex_out: Annotated[Path | None, VEX_OPTION] = None,
) -> None:
    """Scan what a GitHub Actions event adds; report as SARIF, summary, annotations and comment."""
    from thresher.ci.event import RunnerEnv, read_event
    from thresher.ci.runner import CiRequest, run_ci
    from thresher.ci.scope import resolve_scope
    from thresher.config.trust import is_pull_request
    from thresher.reports import check_output_path
    from thresher.scan.outcome import FailOn
    from thresher.scoring.policy import Escalate

    from .app import state_of

    state = state_of(ctx)
    environ = os.environ
    if not _CATEGORY.fullmatch(category):
        raise UsageError(
            f"--category {category!r}: use letters, digits, '.', '_', '-' and '/' separators",
            hint="for example --category thresher/secrets",
        )
    runner = RunnerEnv.from_environ(environ)
    # Nothing printed from here on is read as a workflow command: file names and
    # messages come from the repository. Commands resume for thresher's own annotations.
    resume = f"thresher-{secrets.token_hex(16)}"
    typer.echo(f"::stop-commands::{resume}")
    event = read_event(runner)
    scope = resolve_scope(event, runner.workspace)
    state.info(f"thresher: scanning {scope.description}")
    if vex_out is not None and not deps:
        raise UsageError("--vex needs --deps: OpenVEX states what is known of dependencies")
    for flag, out in (
        ("--sarif", sarif_out),
        ("--json", json_out),
        ("--markdown", markdown_out),
        ("--vex", vex_out),
    ):
        if out is not None:
            check_output_path(out, flag)
    selected = _paths(paths or [], runner.workspace)
    with ExitStack() as stack:
        config = _trusted_config(state.config_path, environ, runner, scope, event, stack)
        repo = None
        if scope.config_commit is not None:
            from .repo import repo_config_at

            repo = repo_config_at(
                scope.config_commit, runner.workspace, trusted=state.trust_repo_config
            )
        settings = state.settings(
            diff=scope.diff, cwd=runner.workspace, config_path=config, repo=repo
        )
        pull_request = event.name.is_pull_request or is_pull_request(environ, diff=scope.diff)
        request = CiRequest(
            fail_on=FailOn(fail_on.value),
            escalate=Escalate(escalate.value),
            comment=comment,
            sarif=sarif_out,
            category=category,
            json_out=json_out,
            markdown_out=markdown_out,
            vex_out=vex_out,
            paths=selected,
            honour_pragmas=not pull_request,
            deps=deps_options(selected, scope.diff, osv_url, osv_offline, pull_request=pull_request)
            if deps
            else None,
        )
        outcome = run_ci(
            request,
            runner,
            event,
            scope,
            settings.settings,
            info=state.info,
            comment_client=_client,
        )
    typer.echo(f"::{resume}::")
    for line in outcome.annotation_lines:
        typer.echo(line)
    s = outcome.report.summary
    state.info(
        f"thresher: {s.findings} finding(s): {s.true_positive} true positive, "
        f"{s.inconclusive} inconclusive, {s.false_positive} false positive; "
        f"comment {outcome.comment.action.value}; exit {int(outcome.exit_code)}"
    )
    raise typer.Exit(int(outcome.exit_code))


def _client(runner: RunnerEnv) -> CommentApi:
    from thresher.github.client import GitHubClient

    return GitHubClient.from_environ({"GITHUB_TOKEN": runner.token or ""}, api_url=runner.api_url)


def _paths(values: list[str], root: Path) -> tuple[Path, ...]:
    """``--paths`` values, split on newlines and commas, each inside the workspace."""
    out: list[Path] = []
    for value in values:
        for part in re.split(r"[\n,]", value):
            name = part.strip()
            if not name:
                continue
            full = (root / name).resolve()
            if not full.is_relative_to(root):
                raise UsageError(f"--paths {name!r} is outside the workspace {root}")
            if not full.exists():
                raise UsageError(f"--paths {name!r}: no such file or directory in {root}")
            out.append(full)
    return tuple(out)


def _trusted_config(
    explicit: Path | None,
    environ: Mapping[str, str],
    runner: RunnerEnv,
    scope: Scope,
    event: CiEvent,
    stack: ExitStack,
) -> Path | None:
    """In a pull request, a ``--config`` (or ``THRESHER_CONFIG``) file inside the checkout
    is read as the base commit has it; the pull request's edit of it does not count."""
    from thresher.config.files import parse_toml, thresher_table
    from thresher.config.trust import check_no_paths
    from thresher.git.scope import git

    variable = environ.get("THRESHER_CONFIG")
    path = explicit or (Path(variable) if variable else None)
    commit = scope.config_commit
    if path is None or not event.name.is_pull_request or commit is None:
        return path
    full = (Path.cwd() / path).resolve()
    if not full.is_relative_to(runner.workspace):
        return path  # outside the checkout: the operator's own file
    relative = full.relative_to(runner.workspace).as_posix()
    proc = git(runner.workspace, "show", f"{commit}:{relative}")
    if proc.returncode != 0:
        raise ConfigError(
            f"--config {path}: {relative} does not exist at the base commit "
            f"{commit[:12]}; a configuration the pull request adds is not used",
            hint="merge the configuration into the base branch first, or name a file "
            "outside the checkout",
        )
    where = f"{relative} at {commit[:12]}"
    table, label = thresher_table(full.name, parse_toml(proc.stdout, where), where)
    check_no_paths(table, where, label)  # they would resolve into the pull request's checkout
    directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="thresher-")))
    copy = directory / full.name
    copy.write_bytes(proc.stdout)
    return copy
