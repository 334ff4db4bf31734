"""The scan use case: candidates -> tribunal -> decisions -> run report.

The CLI builds a frozen ``ScanRequest`` and calls ``run_scan`` once; everything
it needs to print or write comes back in a ``ScanOutcome``. Decisions are
appended to ``decisions.jsonl`` in the run directory as they are made, so a run
that fails half-way keeps what it decided.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TextIO

from thresher import __version__
from thresher.agents.budget import UsageLimits, UsageMeter
from thresher.agents.definition import load_agent
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config import AgentName, Settings
from thresher.decisions import (
    Decision,
    DecisionError,
    DependencySummary,
    HistorySummary,
    IgnoredAdvisory,
    LockfileProblem,
    RunReport,
    RunSummary,
    RunUsage,
    ScanSummary,
)
from thresher.deps.run import DependencyScan, DepsOptions, scan_dependencies
from thresher.detection import Detector
from thresher.errors import ExitCode, ThresherError
from thresher.findings import Finding, FindingKind
from thresher.findings.gitscope import OWN_OUTPUT_DIR
from thresher.findings.profile import PLACEHOLDER_WORDS
from thresher.findings.scan import CustomRule, ScanOptions, ScanResult, scan
from thresher.findings.sources.detect_secrets import ScanStats
from thresher.findings.vault import SecretVault
from thresher.history import DEFAULT_HISTORY_DEPTH, HISTORY_TIMEOUT_S, HistoryIndex
from thresher.journal import DecisionJournal, dumped
from thresher.llm.model import Model
from thresher.llm.registry import DEFAULT_MODEL, agent_model_spec, build_models, describe
from thresher.redaction import Redactor
from thresher.resources import public_vocabulary
from thresher.results import Classification, Verdict
from thresher.scoring.context import scan_contexts
from thresher.scoring.model import Assessment, Scorer, shipped_scorer
from thresher.scoring.policy import Band, Escalate
from thresher.tribunal.fallbacks import Deadline
from thresher.tribunal.offline import OfflineRecordError
from thresher.tribunal.parallel import Decided, decide_in_workers, offline_only, workers_for
from thresher.tribunal.tribunal import Tribunal, TribunalOptions
from thresher.validators import ValidatorRegistry

# Requests a session usually needs (skills + evidence + submit), for dry-run estimates.
_REQUESTS_PER_SESSION = 4


class RunDirError(ThresherError):
    """The run directory (transcripts, decisions, report) cannot be written."""


class FailOn(StrEnum):
    REAL = "real"
    UNCERTAIN = "uncertain"
    ANY = "any"
    NEVER = "never"


@dataclass(frozen=True)
class ScanRequest:
    root: Path
    paths: tuple[Path, ...] = ()
    diff: str | None = None
    staged: bool = False
    baseline: Path | None = None
    escalate: Escalate = Escalate.UNCERTAIN
    analyses: int = 1
    concurrency: int = 4
    fail_on: FailOn = FailOn.REAL
    dry_run: bool = False
    verify_live: bool = False
    max_requests: int | None = None
    max_tokens: int | None = None
    runs_dir: Path = Path(".thresher/runs")
    custom_rules: tuple[CustomRule, ...] = ()
    band: Band | None = None  # the escalation band; None: the scorer's own
    timeout: float | None = None  # --timeout: seconds for the whole run
    honour_pragmas: bool = True  # False in a pull-request job (see findings.engine)
    history_depth: int = DEFAULT_HISTORY_DEPTH  # --history-depth: commits; 0 reads none
    secrets: bool = True  # False: `thresher deps`, which scans no file for secrets
    deps: DepsOptions | None = None  # `thresher deps` / `scan --deps`: lockfiles too


@dataclass(frozen=True)
class AgentPlan:
    """What a real run would send for one agent (``--dry-run``)."""

    agent: AgentName
    model: str
    findings: int
    estimated_requests: int


@dataclass
class ScanOutcome:
    report: RunReport
    exit_code: ExitCode
    run_dir: Path
    scan: ScanResult
    # ``report`` as ``report.json`` holds it, which is what ``render_json`` writes: the
    # CLI's ``--json`` reuses it rather than serialise thousands of decisions again.
    report_json: str
    plan: list[AgentPlan] = field(default_factory=list)
    dependencies: DependencyScan | None = None


def exit_code_for(
    decisions: list[Decision], fail_on: FailOn, *, incomplete: bool = False
) -> ExitCode:
    """3 when anything failed; else 1 at or above ``--fail-on``; else 0.

    Anything failed: an LLM session, a provider (its circuit opened), the run budget
    or the run deadline stopped a finding from being decided the way the policy asked,
    or (``incomplete``) a lockfile could not be read, so its dependencies were never
    looked at. Such a run never exits 0, whatever ``--fail-on`` says: its decisions are
    the offline ones, INCONCLUSIVE or missing, and whoever reads the exit code must know.
    """
    if incomplete or any(d.errors for d in decisions):
        return ExitCode.RUNTIME
    hit = any(at_or_above(d, fail_on) for d in decisions)
    return ExitCode.FINDINGS if hit else ExitCode.OK


def at_or_above(decision: Decision, fail_on: FailOn) -> bool:
    """Whether this one decision fails the run under ``--fail-on`` (CI annotates it as an
    error; what is below the line but not a false positive is a warning)."""
    match fail_on:
        case FailOn.REAL:  # a real secret, or an affected dependency
            return decision.verdict is Verdict.TRUE_POSITIVE
        case FailOn.UNCERTAIN:
            # Uncertain includes what the policy would escalate but no model looked at.
            escalation = decision.escalation
            return decision.verdict is not Verdict.FALSE_POSITIVE or (
                escalation is not None and escalation.would_escalate and not decision.escalated
            )
        case FailOn.ANY:
            return True
        case FailOn.NEVER:
            return False


def summarise(decisions: list[Decision]) -> RunSummary:
    def count(test: Callable[[Decision], bool]) -> int:
        return sum(1 for d in decisions if test(d))

    return RunSummary(
        findings=len(decisions),
        true_positive=count(lambda d: d.verdict is Verdict.TRUE_POSITIVE),
        false_positive=count(lambda d: d.verdict is Verdict.FALSE_POSITIVE),
        inconclusive=count(lambda d: d.verdict is Verdict.INCONCLUSIVE),
        real=count(lambda d: d.classification is Classification.REAL),
        test=count(lambda d: d.classification is Classification.TEST),
        not_secret=count(lambda d: d.classification is Classification.NOT_SECRET),
        decided_without_model=count(lambda d: not d.escalated),
        errors=count(lambda d: bool(d.errors)),
    )


def resolve_models(
    settings: Settings, environ: Mapping[str, str] | None, *, dry_run: bool
) -> tuple[dict[AgentName, Model], dict[str, str]]:
    """Models per agent; a dry run uses the heuristic for all and reports the real specs."""
    specs = {a: agent_model_spec(a, settings, load_agent(a, settings).model) for a in AgentName}
    for spec in specs.values():
        describe(spec, settings, environ)  # fail fast on an unknown provider
    # One model per provider spec: agents on one provider share its circuit breaker.
    models = build_models(
        {a: DEFAULT_MODEL if dry_run else spec for a, spec in specs.items()}, settings, environ
    )
    return models, {a.value: s for a, s in specs.items()}


def run_scan(
    request: ScanRequest,
    settings: Settings,
    *,
    environ: Mapping[str, str] | None = None,
    on_scanned: Callable[[ScanResult], None] | None = None,
    on_decided: Callable[[Decision], None] | None = None,
    scorer: Scorer | None = None,
    on_history: Callable[[HistoryIndex], None] | None = None,
    offline_workers: int | None = None,
    on_dependencies: Callable[[DependencyScan], None] | None = None,
) -> ScanOutcome:
    """Scan, decide every finding, and build the run report (see the module docstring).

    ``scorer`` replaces the shipped offline scorer (``thresher eval --folds`` passes one
    trained without the repositories it scores). A run no model can take part in
    decides its findings in worker processes (``thresher.tribunal.parallel``);
    ``offline_workers`` sets how many (0: in this process; None: by size and cores).
    """
    started_at = datetime.now(UTC)
    clock = time.perf_counter()
    deadline = Deadline.after(request.timeout) if request.timeout is not None else None
    # Built first: a custom rule RE2 cannot run for redaction stops the run before it starts.
    detector = Detector([(r.id, r.pattern) for r in request.custom_rules], is_public=is_public_word)
    models, specs = resolve_models(settings, environ, dry_run=request.dry_run)
    run_id = started_at.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    run_dir = (
        Path.cwd() / request.runs_dir / run_id
        if not request.runs_dir.is_absolute()
        else request.runs_dir / run_id
    )
    try:
        result = _scan_secrets(request)
        if on_scanned is not None and request.secrets:
            on_scanned(result)
        deps = (
            scan_dependencies(request.root, request.deps, diff=request.diff)
            if request.deps is not None
            else None
        )
        if on_dependencies is not None and deps is not None:
            on_dependencies(deps)
        findings = result.findings + (deps.findings if deps is not None else ())
        value_of = _values(result.vault, deps)
        history = build_history(result, request)
        if on_history is not None:
            on_history(history)
        scorer = scorer or shipped_scorer()
        # Decided in worker processes, each finding is assessed by the worker that
        # decides it: the scorer's contexts are a second pass over every finding.
        forked = _forked(models, request, deadline)
        workers = workers_for(len(findings), offline_workers) if forked else 0
        assessments = {} if workers else assess(result, request.root, scorer)
        journal = open_journal(
            run_dir, relative_to=None if request.runs_dir.is_absolute() else Path.cwd()
        )
    except BaseException:
        asyncio.run(close_models(models))  # the triage that would close them never starts
        raise
    run_meter = UsageMeter(
        UsageLimits(max_requests=request.max_requests, max_total_tokens=request.max_tokens), "run"
    )
    redactor = Redactor(
        (v for v in result.vault.values() if not is_public_word(v)), detector=detector
    )
    factory = SessionFactory(
        settings=settings,
        redactor=redactor,
        run_meter=run_meter,
        validators=ValidatorRegistry.default(live=request.verify_live and not request.dry_run),
        workspace=Workspace(
            request.root, value_for=result.vault.get, redact=redactor.text, history=history
        ),
        transcripts_dir=run_dir / "transcripts",
        catalog=deps.catalog if deps is not None else None,
    )
    tribunal = Tribunal(
        factory,
        models,
        TribunalOptions(
            escalate=request.escalate,
            analyses=request.analyses,
            concurrency=request.concurrency,
            band=request.band,
            deadline=deadline,
        ),
        assessments=assessments,
        scorer=scorer,
        offline_record=run_dir / "offline.jsonl",
    )

    decisions_journal = DecisionJournal(journal, redactor)

    def decided(decision: Decision) -> None:
        decisions_journal.write(decision)
        if on_decided is not None:
            on_decided(decision)

    async def triage() -> list[Decision]:
        try:
            return await tribunal.decide_all(findings, value_of, decided)
        finally:
            await close_models(models)

    record = _offline_record(run_dir / "offline.jsonl") if workers else None
    try:
        if record is not None:
            try:

                def prepare(share: Sequence[Finding]) -> None:
                    secrets_ = [f for f in share if f.kind is FindingKind.SECRET]
                    tribunal.assessments.update(assess(result, request.root, scorer, secrets_))

                decisions = _decide_in_workers(
                    tribunal,
                    (findings, value_of),
                    decisions_journal,
                    record,
                    workers,
                    on_decided,
                    prepare,
                )
            finally:
                record.close()
                asyncio.run(close_models(models))
        else:
            if workers:  # the record cannot be opened: the serial loop reports it per finding
                tribunal.assessments.update(assess(result, request.root, scorer))
            decisions = asyncio.run(triage())
    finally:
        journal.close()
    plan = _plan(decisions, specs, request) if request.dry_run else []
    usage = run_meter.usage  # every request sent, also those that failed or stopped the run
    report = RunReport(
        tool_version=__version__,
        run_id=run_id,
        started_at=started_at,
        finished_at=datetime.now(UTC),
        dry_run=request.dry_run,
        escalate=request.escalate.value,
        analyses=request.analyses,
        models=dict(sorted(specs.items())),  # as render_json orders them
        summary=summarise(decisions),
        usage=RunUsage(
            requests=usage.requests,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            wall_seconds=round(time.perf_counter() - clock, 3),
        ),
        decisions=(),
        errors=_run_errors(decisions, deadline) + _lockfile_errors(deps),
        scan=ScanSummary.of(result.stats),
        history=HistorySummary.of(history.stats),
        dependencies=dependency_summary(deps, request.diff) if deps is not None else None,
    )
    # Redacted once: report.json and every renderer work from this one copy. Each
    # decision was redacted for the journal already; that copy is reused unless it may
    # hold a value learned after it was made (see thresher.journal).
    report = redactor.model(report).model_copy(
        update={"decisions": decisions_journal.redacted(decisions)}
    )
    report_json = dumped(report, indent=2)[0] + "\n"
    try:
        (run_dir / "report.json").write_text(report_json, encoding="utf-8")
    except OSError as exc:
        raise RunDirError(
            f"cannot write {run_dir / 'report.json'}: {exc.strerror or exc}",
            hint="check free space and permissions of the run directory",
        ) from exc
    return ScanOutcome(
        report=report,
        exit_code=exit_code_for(
            decisions, request.fail_on, incomplete=deps is not None and bool(deps.errors)
        ),
        run_dir=run_dir,
        scan=result,
        plan=plan,
        dependencies=deps,
        report_json=report_json,
    )


def _scan_secrets(request: ScanRequest) -> ScanResult:
    """The secret scan, or for a dependencies-only run an empty one (no file read)."""
    if not request.secrets:
        return ScanResult((), SecretVault(), ScanStats(0, 0, 0, 0.0))
    return scan(
        ScanOptions(
            root=request.root,
            paths=request.paths,
            diff=request.diff,
            staged=request.staged,
            baseline=request.baseline,
            custom_rules=request.custom_rules,
            honour_pragmas=request.honour_pragmas,
        )
    )


def _values(vault: SecretVault, deps: DependencyScan | None) -> Callable[[str], str | None]:
    """A finding's value by id: the secret's, or a dependency finding's synthetic key.
    The two vaults stay apart: only secrets feed the redactor and the history."""
    if deps is None:
        return vault.get
    other = deps.vault

    def value_of(finding_id: str) -> str | None:
        value = vault.get(finding_id)
        return value if value is not None else other.get(finding_id)

    return value_of


def dependency_summary(deps: DependencyScan, diff: str | None) -> DependencySummary:
    """The report's account of the dependency half (``DependencySummary``)."""
    return DependencySummary(
        osv=deps.osv,
        diff=diff,
        lockfiles=deps.lockfiles,
        dependencies=deps.dependencies,
        advisories=tuple(deps.catalog.all()),
        ignored=tuple(
            IgnoredAdvisory(
                vulnerability=m.vulnerability_id,
                package=m.package.name,
                version=m.package.version,
                ecosystem=m.package.ecosystem.value,
                reason=m.entry.reason,
                locations=m.locations,
            )
            for m in deps.ignored
        ),
        errors=tuple(
            LockfileProblem(path=e.path, line=e.line, message=e.message) for e in deps.errors
        ),
    )


def _lockfile_errors(deps: DependencyScan | None) -> tuple[DecisionError, ...]:
    """One run error per lockfile that could not be read (its dependencies are missing)."""
    if deps is None:
        return ()
    return tuple(
        DecisionError(stage="lockfile", error=type(e).__name__, message=str(e)) for e in deps.errors
    )


def _forked(
    models: Mapping[AgentName, Model], request: ScanRequest, deadline: Deadline | None
) -> bool:
    """Whether the findings may be decided in worker processes: no model can take part,
    and neither a deadline (whose expiry the serial loop reports per finding) nor live
    checks (network calls from forked processes) are asked for."""
    return offline_only(models, request.escalate) and deadline is None and not request.verify_live


def _offline_record(path: Path) -> TextIO | None:
    """``offline.jsonl`` opened for a run decided in worker processes, or None: a record
    file that cannot be opened is reported per finding by the serial loop."""
    try:
        return path.open("a", encoding="utf-8")
    except OSError:
        return None


def _decide_in_workers(
    tribunal: Tribunal,
    candidates: tuple[Sequence[Finding], Callable[[str], str | None]],
    journal: DecisionJournal,
    record: TextIO,
    workers: int,
    on_decided: Callable[[Decision], None] | None,
    prepare: Callable[[Sequence[Finding]], None],
) -> list[Decision]:
    """The findings decided by worker processes; journal and record written here, in order."""
    redactor = journal.redactor
    known = redactor.known  # what every worker knows when it forks

    def decided(done: Decided) -> None:
        try:
            record.writelines(line + "\n" for line in done.records)
        except OSError as exc:
            raise OfflineRecordError(
                f"cannot write {record.name}: {exc.strerror or exc}",
                hint="check free space and permissions of the run directory",
            ) from exc
        journal.write_redacted(done.decision, done.redacted, done.line, done.exact, known=known)
        if on_decided is not None:
            on_decided(done.decision)

    findings, value_of = candidates
    return decide_in_workers(
        tribunal,
        findings,
        value_of,
        decided,
        workers=workers,
        learn=redactor.add,
        prepare=prepare,
    )


def build_history(result: ScanResult, request: ScanRequest) -> HistoryIndex:
    """One read of the history for every finding's value, shared by all agents' git_log.

    Each value comes with the files it was found in: a ``--diff`` scan checks them at
    the range's base instead of reading the history before the range."""
    paths: dict[str, list[str]] = {}
    for finding in result.findings:
        value = result.vault.get(finding.id)
        if value:
            paths.setdefault(value, []).extend(loc.path for loc in finding.locations)
    # Bounded by --timeout too: a run that must end in a minute cannot spend ten on git.
    timeout = min(HISTORY_TIMEOUT_S, request.timeout or HISTORY_TIMEOUT_S)
    return HistoryIndex.build(
        request.root, paths, depth=request.history_depth, diff=request.diff, timeout=timeout
    )


def _run_errors(decisions: list[Decision], deadline: Deadline | None) -> tuple[DecisionError, ...]:
    """Run-level errors: one line per kind of failure, with how many findings it hit."""
    counts: dict[tuple[str, str], int] = {}
    for decision in decisions:
        for error in {(e.stage.split(" ")[0], e.error) for e in decision.errors}:
            counts[error] = counts.get(error, 0) + 1
    errors = [
        DecisionError(stage=stage, error=error, message=f"{count} finding(s): see their errors")
        for (stage, error), count in sorted(counts.items())
    ]
    if deadline is not None and counts.get(("deadline", "RunDeadlineExceeded")):
        errors.insert(
            0,
            DecisionError(
                stage="run",
                error="RunDeadlineExceeded",
                message=f"--timeout {deadline.seconds:g} s expired; findings not decided by "
                "then are INCONCLUSIVE",
            ),
        )
    return tuple(errors)


def assess(
    result: ScanResult, root: Path, scorer: Scorer, findings: Sequence[Finding] | None = None
) -> dict[str, Assessment]:
    """The scorer's assessment of every finding whose value is known (of ``findings``
    only, when given: a worker process assesses the findings it decides)."""
    contexts, _ = scan_contexts(result, root, findings)
    return {finding_id: scorer.assess(ctx) for finding_id, ctx in contexts.items()}


def open_journal(run_dir: Path, *, relative_to: Path | None) -> TextIO:
    """The run directory and its decision journal, before any session starts.

    The default runs directory sits in the working directory, usually the checkout
    under review: a ``.thresher`` link committed by a pull request would send the
    transcripts wherever it points, so a relative runs directory must stay inside.
    """
    if relative_to is not None:
        _check_inside(run_dir, relative_to)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        _ignore_own_output(run_dir)
        return (run_dir / "decisions.jsonl").open("a", encoding="utf-8")
    except OSError as exc:
        raise RunDirError(
            f"cannot create the run directory {run_dir}: {exc.strerror or exc}",
            hint="run thresher from a writable directory; transcripts and decisions go "
            "to .thresher/runs/ under it",
        ) from exc


def _check_inside(run_dir: Path, base: Path) -> None:
    existing = next((d for d in (run_dir, *run_dir.parents) if d.exists() or d.is_symlink()), base)
    if not existing.resolve().is_relative_to(base.resolve()):
        raise RunDirError(
            f"the run directory {run_dir} leads outside {base} through a symbolic link",
            hint="remove the link, or pass an absolute runs directory you trust",
        )


def _ignore_own_output(run_dir: Path) -> None:
    """Drop a ``.gitignore`` holding ``*`` into the ``.thresher/`` directory above the run.

    Runs usually land inside the repository being scanned; without it, ``git status``
    lists every transcript and ``git add -A`` commits reports that describe the
    repository's secrets. ``*`` ignores the directory's whole content, the
    ``.gitignore`` included, so it never shows up either. An existing file is the
    user's choice and is left alone; a directory created by an older version gets one
    on its next run. A runs directory configured outside any ``.thresher/`` is the
    user's own layout and is not touched.
    """
    own = next((d for d in (run_dir, *run_dir.parents) if d.name == OWN_OUTPUT_DIR), None)
    if own is None:
        return
    try:
        with (own / ".gitignore").open("x", encoding="utf-8") as handle:
            handle.write("*\n")
    except FileExistsError:
        pass


def is_public_word(value: str) -> bool:
    """A value that is exactly a placeholder word ("changeme") or a word of thresher's own
    methodology ("test", a skill name, a vendor's documentation example) is public text.

    Only exact words qualify: a human-chosen password such as "mysupersecretpassword"
    looks like placeholder vocabulary to the heuristic but is still redacted.
    """
    word = value.strip().lower()
    return word in PLACEHOLDER_WORDS or word in public_vocabulary()


async def close_models(models: Mapping[AgentName, Model]) -> None:
    for model in {id(m): m for m in models.values()}.values():
        await model.aclose()


def _plan(
    decisions: list[Decision], specs: dict[str, str], request: ScanRequest
) -> list[AgentPlan]:
    """Per agent: findings a real run would escalate and the requests it would send."""
    escalated = sum(1 for d in decisions if d.escalation and d.escalation.would_escalate)
    plans = []
    for agent in AgentName:
        spec = specs[agent.value]
        offline = spec.startswith("heuristic:")
        sessions = request.analyses if agent is not AgentName.JUDGE else 1
        count = 0 if offline else escalated
        plans.append(AgentPlan(agent, spec, count, count * sessions * _REQUESTS_PER_SESSION))
    return plans
