"""``thresher eval`` on a dependency corpus: is each labelled finding decided right?

Each ``projects/<name>/`` of a ``thresher.evaluation.depcorpus`` corpus goes through the real
pipeline (``run_scan``, exactly what ``thresher deps --osv-offline DIR`` runs), as its
own root: its lockfiles are read, matched against the corpus's OSV records through
the offline reader, turned into one finding per (package, version, advisory), and
decided by the tribunal with the configured models -- the heuristic by default, whose
clear cases are dev-only dependencies, direct dependencies never imported and
versions outside the range.

What is scored, for ``affected`` against ``not_affected``:

- **thresher**: the decisions as made (an undecided finding is assumed affected);
- **oracle ceiling**: the same, except that every finding the escalation policy would
  send to the LLM tribunal is decided right -- what a perfect tribunal could reach
  without changing what the heuristic settles alone;
- **baseline**: a plain dependency scanner, for which every reported finding is
  affected;
- the **escalation rate**: the share of findings the policy would escalate.

A labelled finding the pipeline does not report is predicted ``not_affected``: OSV's
own matching placed the version outside every range. That is right only for a label
whose justification is ``vulnerable_code_not_present``; any other such label is listed
in ``missing`` (the corpus and the pipeline disagree on what exists), and every
reported finding without a label is listed in ``unlabelled`` and not scored.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from thresher.config.settings import Settings
from thresher.deps.model import Ecosystem, _package_key
from thresher.evaluation.depcorpus import (
    PROJECTS_DIR,
    Case,
    DependencyLabel,
    DepsCorpus,
    DepsCorpusError,
    load_deps_corpus,
    osv_export,
)
from thresher.evaluation.figures import Scores, scores
from thresher.findings import OsvSource
from thresher.findings.results import Classification, VexJustification
from thresher.scan.outcome import ScanOutcome, ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.policy import Escalate
from thresher.sources.dependencies import DepsOptions
from thresher.tribunal.decisions import Decision

Key = tuple[str, Ecosystem, str, str, str]
AFFECTED = Classification.AFFECTED.value
NOT_AFFECTED = Classification.NOT_AFFECTED.value
CLASSES = (AFFECTED, NOT_AFFECTED)


class ScoredFinding(BaseModel):
    """One labelled finding: the truth, thresher's call, and what the oracle makes of it."""

    model_config = ConfigDict(frozen=True)

    project: str
    ecosystem: str
    package: str
    version: str
    vulnerability: str
    case: Case
    truth: str
    expected_justification: VexJustification | None
    reported: bool  # False: OSV's matching left the version out
    predicted: str
    justification: VexJustification | None
    decided_by: str  # heuristic | tribunal | guardrail | osv-matching
    would_escalate: bool
    oracle: str
    reason: str

    @property
    def correct(self) -> bool:
        return self.predicted == self.truth


class ProjectResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    project: str
    findings: int
    labelled: int
    thresher: Scores
    oracle: Scores
    escalation_rate: float
    correct: int


class CaseResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    labelled: int
    affected: int
    correct: int
    oracle_correct: int
    escalated: int


class DepsEvalResult(BaseModel):
    """The dependency eval's figures; ``kind`` tells it from the secret eval's JSON."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["dependencies"] = "dependencies"
    corpus: str
    escalate: Escalate
    projects: int
    labelled: int
    label_counts: dict[str, int]
    findings: int
    thresher: Scores
    oracle: Scores
    baseline: Scores
    accuracy: float
    oracle_accuracy: float
    escalation_rate: float
    escalated_findings: int
    decided_without_model: float
    justification_agreement: float  # right not_affected calls giving the labelled reason
    confusion: dict[str, dict[str, int]]
    by_case: dict[str, CaseResult]
    by_project: list[ProjectResult]
    rows: list[ScoredFinding]
    unlabelled: list[str]
    missing: list[str]
    requests: int
    input_tokens: int
    output_tokens: int
    wall_seconds: float
    models: dict[str, str]


@dataclass(frozen=True)
class DependencyRun:
    """One project decided: its decisions and what the models spent."""

    decisions: list[Decision]
    models: dict[str, str]
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @classmethod
    def of(cls, project: str, outcome: ScanOutcome) -> DependencyRun:
        """A run whose lockfiles or advisories could not all be read is no measurement:
        the corpus is broken, and the error names the file."""
        deps = outcome.dependencies
        problems = [str(e) for e in deps.errors] if deps is not None else ["no dependency scan"]
        problems += [n for n in (deps.notices if deps is not None else ()) if "offline OSV" in n]
        if problems:
            raise DepsCorpusError(f"{PROJECTS_DIR}/{project}: {problems[0]}")
        report = outcome.report
        return cls(
            decisions=list(report.decisions),
            models=dict(report.models),
            requests=report.usage.requests,
            input_tokens=report.usage.input_tokens,
            output_tokens=report.usage.output_tokens,
        )


@dataclass(frozen=True)
class DepsEvalOptions:
    escalate: Escalate = Escalate.UNCERTAIN
    analyses: int = 1
    concurrency: int = 4
    runs_dir: Path = Path(".thresher/runs")


def _key_of(project: str, decision: Decision) -> Key | None:
    source = decision.finding.source
    if not isinstance(source, OsvSource):
        return None
    ecosystem = Ecosystem(source.ecosystem.split(":")[0])
    package = _package_key(ecosystem, source.package)
    return (project, ecosystem, package, source.version, decision.finding.rule_id)


def _describe(key: Key) -> str:
    project, ecosystem, package, version, vuln = key
    return f"{project}: {ecosystem.value} {package} {version} {vuln}"


def score_project(
    project: str, labels: list[DependencyLabel], decisions: list[Decision]
) -> tuple[list[ScoredFinding], list[str], list[str]]:
    """The project's labelled findings scored, its unlabelled findings, and the labels
    that should have been reported but were not."""
    by_key = {k: d for d in decisions if (k := _key_of(project, d)) is not None}
    wanted = {label.key for label in labels}
    unlabelled = [_describe(k) for k in sorted(by_key, key=str) if k not in wanted]
    rows: list[ScoredFinding] = []
    missing: list[str] = []
    for label in labels:
        decision = by_key.get(label.key)
        truth = label.label.value
        justification: VexJustification | None
        if decision is None:
            if not label.may_be_unreported:
                missing.append(_describe(label.key))
            predicted, justification, decided_by, escalate = (
                NOT_AFFECTED,
                VexJustification.VULNERABLE_CODE_NOT_PRESENT,
                "osv-matching",
                False,
            )
        else:
            # Anything but a decided not_affected is treated as affected: fail closed.
            not_affected = decision.classification is Classification.NOT_AFFECTED
            predicted = NOT_AFFECTED if not_affected else AFFECTED
            justification = decision.justification
            decided_by = decision.decided_by.value
            escalate = bool(decision.escalation and decision.escalation.would_escalate)
        rows.append(
            ScoredFinding(
                project=project,
                ecosystem=label.ecosystem.value,
                package=label.package,
                version=label.version,
                vulnerability=label.vulnerability,
                case=label.case,
                truth=truth,
                expected_justification=label.justification,
                reported=decision is not None,
                predicted=predicted,
                justification=justification,
                decided_by=decided_by,
                would_escalate=escalate,
                oracle=truth if escalate else predicted,
                reason=label.reason,
            )
        )
    return rows, unlabelled, missing


def _scores_of(rows: list[ScoredFinding], pick: Callable[[ScoredFinding], str]) -> Scores:
    tp = sum(1 for r in rows if pick(r) == AFFECTED and r.truth == AFFECTED)
    fp = sum(1 for r in rows if pick(r) == AFFECTED and r.truth != AFFECTED)
    fn = sum(1 for r in rows if pick(r) != AFFECTED and r.truth == AFFECTED)
    return scores(tp, fp, fn)


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def evaluate_deps(
    directory: Path,
    settings: Settings,
    options: DepsEvalOptions,
    *,
    environ: Mapping[str, str] | None = None,
    on_project: Callable[[str], None] | None = None,
) -> DepsEvalResult:
    """Scan and decide every project of the corpus, then score the labelled findings."""
    started = time.perf_counter()
    corpus = load_deps_corpus(directory)
    projects = corpus.projects()
    if not corpus.labels:
        raise DepsCorpusError(f"{directory / 'labels.json'}: no labels")
    runs_dir = options.runs_dir.resolve() / ("eval-deps-" + time.strftime("%Y%m%dT%H%M%S"))
    runs: dict[str, DependencyRun] = {}
    with tempfile.TemporaryDirectory(prefix="thresher-osv-") as scratch:
        osv_dir = osv_export(corpus.osv_dir, Path(scratch) / "osv")
        for project in projects:
            if on_project is not None:
                on_project(project)
            request = ScanRequest(
                root=(corpus.projects_dir / project).resolve(),
                secrets=False,
                deps=DepsOptions(osv_offline=osv_dir, cache_dir=Path(scratch) / "cache"),
                escalate=options.escalate,
                analyses=options.analyses,
                concurrency=options.concurrency,
                runs_dir=runs_dir / project,
            )
            runs[project] = DependencyRun.of(project, run_scan(request, settings, environ=environ))
    return summarise(corpus, runs, options.escalate, time.perf_counter() - started)


def summarise(
    corpus: DepsCorpus, runs: Mapping[str, DependencyRun], escalate: Escalate, seconds: float
) -> DepsEvalResult:
    """The figures of decided projects against the corpus's labels."""
    rows: list[ScoredFinding] = []
    unlabelled: list[str] = []
    missing: list[str] = []
    per_project: list[ProjectResult] = []
    models: dict[str, str] = {}
    requests = input_tokens = output_tokens = 0
    decisions: list[Decision] = []
    for project, run in sorted(runs.items()):
        mine, extra, absent = score_project(project, corpus.labels_of(project), run.decisions)
        rows += mine
        unlabelled += extra
        missing += absent
        decisions += run.decisions
        models = run.models or models
        requests += run.requests
        input_tokens += run.input_tokens
        output_tokens += run.output_tokens
        escalated = sum(1 for d in run.decisions if d.escalation and d.escalation.would_escalate)
        per_project.append(
            ProjectResult(
                project=project,
                findings=len(run.decisions),
                labelled=len(mine),
                thresher=_scores_of(mine, lambda r: r.predicted),
                oracle=_scores_of(mine, lambda r: r.oracle),
                escalation_rate=_share(escalated, len(run.decisions)),
                correct=sum(1 for r in mine if r.correct),
            )
        )
    escalated = sum(1 for d in decisions if d.escalation and d.escalation.would_escalate)
    reported = [r for r in rows if r.reported]
    confusion = {truth: dict.fromkeys(CLASSES, 0) for truth in CLASSES}
    for row in rows:
        confusion[row.truth][row.predicted] += 1
    right_not_affected = [r for r in rows if r.correct and r.truth == NOT_AFFECTED]
    by_case: dict[str, CaseResult] = {}
    for case in Case:
        group = [r for r in rows if r.case is case]
        if group:
            by_case[case.value] = CaseResult(
                labelled=len(group),
                affected=sum(1 for r in group if r.truth == AFFECTED),
                correct=sum(1 for r in group if r.correct),
                oracle_correct=sum(1 for r in group if r.oracle == r.truth),
                escalated=sum(1 for r in group if r.would_escalate),
            )
    return DepsEvalResult(
        corpus=str(corpus.directory),
        escalate=escalate,
        projects=len(runs),
        labelled=len(rows),
        label_counts=dict(Counter(r.truth for r in rows)),
        findings=len(decisions),
        thresher=_scores_of(rows, lambda r: r.predicted),
        oracle=_scores_of(rows, lambda r: r.oracle),
        baseline=_scores_of(reported, lambda _r: AFFECTED),
        accuracy=_share(sum(1 for r in rows if r.correct), len(rows)),
        oracle_accuracy=_share(sum(1 for r in rows if r.oracle == r.truth), len(rows)),
        escalation_rate=_share(escalated, len(decisions)),
        escalated_findings=escalated,
        decided_without_model=_share(sum(1 for d in decisions if not d.escalated), len(decisions))
        if decisions
        else 1.0,
        justification_agreement=_share(
            sum(1 for r in right_not_affected if r.justification == r.expected_justification),
            len(right_not_affected),
        ),
        confusion=confusion,
        by_case=by_case,
        by_project=per_project,
        rows=rows,
        unlabelled=unlabelled,
        missing=missing,
        requests=requests,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        wall_seconds=round(seconds, 1),
        models=models,
    )
