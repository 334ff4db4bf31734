"""Root typer app, global options and the single error boundary.

Heavy libraries (pydantic, jinja2, PyYAML, httpx) are imported inside commands,
so ``thresher --help`` stays close to bare interpreter start-up
(``benchmarks/startup.py`` measures it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from thresher import __version__
from thresher.errors import ExitCode, SkillError, ThresherError

if TYPE_CHECKING:
    from rich.console import Console

    from thresher.config.settings import LoadedSettings
    from thresher.config.trust import RepoConfig


@dataclass
class RunState:
    """Per-invocation state filled by the root callback (never module-global)."""

    config_path: Path | None = None
    verbose: int = 0
    quiet: bool = False
    no_color: bool = False
    models: tuple[str, ...] = ()
    trust_repo_config: bool = False
    _loaded: LoadedSettings | None = field(default=None, repr=False)

    def settings(
        self,
        *,
        diff: str | None = None,
        cwd: Path | None = None,
        config_path: Path | None = None,
        repo: RepoConfig | None = None,
    ) -> LoadedSettings:
        """Load settings once; ``--no-color`` is the flag layer of the precedence.

        ``diff`` is the scan's ``--diff`` range: in a pull-request job the repository's
        configuration is read from its base (``thresher.config.trust``). ``cwd`` is the
        repository (default: the working directory); ``config_path`` replaces
        ``--config`` (``thresher ci`` passes the base commit's copy of it); ``repo``
        replaces the repository mode ``diff`` implies.
        """
        if self._loaded is None:
            from thresher.config.settings import load_settings

            from .repo import repo_config_for

            overrides: dict[str, Any] = {"color": False} if self.no_color else {}
            agents = model_overrides(self.models)
            if agents:
                overrides["agents"] = agents
            where = cwd or Path.cwd()
            if repo is None:
                repo = repo_config_for(diff=diff, cwd=where, trusted=self.trust_repo_config)
            self._loaded = load_settings(
                config_path=config_path or self.config_path,
                cwd=where,
                overrides=overrides,
                repo=repo,
            )
            for notice in self._loaded.notices:
                self.info(f"thresher: {notice}")
            if self.verbose:
                for source in self._loaded.sources:
                    self.info(f"thresher: configuration from {source}")
        return self._loaded

    def console(self, *, stderr: bool = True) -> Console:
        from rich.console import Console

        color = not self.no_color
        if self._loaded is not None:
            color = self._loaded.settings.color
        stream = sys.stderr if stderr else sys.stdout
        # Piped output (CI logs, files) is not cut to 80 columns.
        width = None if stream.isatty() or "COLUMNS" in os.environ else 200
        return Console(
            file=stream,
            no_color=not color,
            highlight=False,
            soft_wrap=True,
            width=width,
            markup=False,  # paths and values are data, never rich markup
            emoji=False,
        )

    def info(self, message: str) -> None:
        if not self.quiet:
            self.console().print(message)


class ThresherGroup(TyperGroup):
    """The root command group and the CLI's single error boundary.

    Every failure leaves through ``main`` as a one-line message, a hint and a
    documented exit code (README, "Exit codes"); ``-v`` adds the traceback. Typer's
    test runner calls this same ``main``, so tests see exactly what users see.
    """

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        state = extra.setdefault("obj", RunState())
        try:
            result = super().main(
                args=list(args) if args is not None else sys.argv[1:],
                prog_name=prog_name or "thresher",
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
            code = result if isinstance(result, int) else int(ExitCode.OK)
        except ThresherError as exc:
            _report(state, exc)
            code = int(exc.exit_code)
        except TyperException as exc:  # bad flags and arguments: click's usage errors
            show = getattr(exc, "show", None)
            if callable(show):
                show()
            else:
                typer.echo(f"thresher: error: {exc.format_message()}", err=True)
            code = int(ExitCode.USAGE)
        except typer.Abort:
            typer.echo("thresher: aborted", err=True)
            code = int(ExitCode.RUNTIME)
        except Exception as exc:  # a bug: one line, the trace only with -v
            if state.verbose:
                traceback.print_exc()
            typer.echo(f"thresher: internal error: {type(exc).__name__}: {exc}", err=True)
            typer.echo("  hint: rerun with -v for a traceback and report it", err=True)
            code = int(ExitCode.RUNTIME)
        if not standalone_mode:
            return code
        sys.exit(code)


app = typer.Typer(
    cls=ThresherGroup,
    name="thresher",
    help="Separate real leaked credentials from secret-scanner noise, with evidence.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"thresher {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="thresher.toml or pyproject.toml to read settings from."),
    ] = None,
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, help="More detail; tracebacks.")
    ] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only errors on stderr.")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain output.")] = False,
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            "-m",
            metavar="AGENT=PROVIDER:MODEL",
            help="AGENT=provider:model (repeatable), or provider:model for every agent.",
        ),
    ] = None,
    trust_repo_config: Annotated[
        bool,
        typer.Option(
            "--trust-repo-config",
            help="Let the repository's own thresher.toml set provider hosts and key "
            "variables (see the README's Security model).",
        ),
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    state = ctx.ensure_object(RunState)
    state.config_path = config
    state.verbose = verbose
    state.quiet = quiet
    state.no_color = no_color
    state.models = tuple(model or ())
    state.trust_repo_config = trust_repo_config


def model_overrides(values: Sequence[str]) -> dict[str, dict[str, str]]:
    """``--model`` values -> the flag layer of ``agents.<agent>.model``."""
    from thresher.errors import UsageError
    from thresher.names import AgentName

    agents: dict[str, dict[str, str]] = {}
    for value in values:
        agent, sep, spec = value.partition("=")
        if sep:
            if agent not in {a.value for a in AgentName}:
                raise UsageError(
                    f"--model {value}: unknown agent '{agent}'",
                    hint="use analysis=, challenger= or judge=",
                )
            agents[agent] = {"model": spec}
        else:
            for name in AgentName:
                agents.setdefault(name.value, {"model": value})
    return agents


def state_of(ctx: typer.Context) -> RunState:
    return ctx.ensure_object(RunState)


def _register() -> None:
    from thresher.cli.agents_cmd import agents_app
    from thresher.cli.ci_cmd import ci_command
    from thresher.cli.deps_cmd import deps_command
    from thresher.cli.eval_cmd import eval_command, schema_command
    from thresher.cli.models_cmd import models_app
    from thresher.cli.report_cmd import report_app
    from thresher.cli.rules_cmd import rules_app
    from thresher.cli.scan_cmd import scan_command
    from thresher.cli.skills_cmd import skills_app
    from thresher.cli.triage_cmd import triage_command

    app.add_typer(skills_app, name="skills")
    app.add_typer(agents_app, name="agents")
    app.add_typer(models_app, name="models")
    app.add_typer(report_app, name="report")
    app.add_typer(rules_app, name="rules")
    app.command("scan")(scan_command)
    app.command("deps")(deps_command)
    app.command("triage")(triage_command)
    app.command("ci")(ci_command)
    app.command("eval")(eval_command)
    app.command("schema")(schema_command)


_register()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point; the error boundary lives in ``ThresherGroup.main``.

    Run as the command (``argv`` None: the console script, ``python -m thresher``), the
    process ends as soon as the command returns its exit code: every output is written
    and closed by then (temporary directories too, by the command's own exit stack), and
    the interpreter's teardown of a scan's heap -- hundreds of thousands of objects,
    freed one by one -- took a quarter of a second of every scan. Called with ``argv``
    (tests, embedding) it exits as it always did."""
    command = typer.main.get_command(app)
    if argv is not None:
        command.main(args=argv, prog_name="thresher")
        return
    code = command.main(args=None, prog_name="thresher", standalone_mode=False)
    _end(code if isinstance(code, int) else int(ExitCode.OK))


def _end(code: int) -> NoReturn:
    """Flush what is buffered and the logs, then end the process without a teardown."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    logging.shutdown()
    os._exit(code)


def _report(state: RunState, exc: ThresherError) -> None:
    if state.verbose:
        traceback.print_exc()
    typer.echo(f"thresher: error: {exc.message}", err=True)
    if isinstance(exc, SkillError):
        for problem in exc.problems[1:]:
            typer.echo(f"  {problem}", err=True)
    if exc.hint:
        typer.echo(f"  hint: {exc.hint}", err=True)
