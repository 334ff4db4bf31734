"""``thresher eval``: score decisions against a labelled corpus, honestly.

Each ``files/<owner>__<repo>/`` directory is scanned through the real pipeline
(``run_scan``) as its own repository root, exactly as a user scans a repository.
Only lines that detect-secrets itself flags are scored (its per-file, per-type
first lines); each is predicted by the decision on the finding that holds it.

Two modes:

- default: the shipped scorer. If the corpus is the one it was trained on (same
  digest), the figures are in-sample and the output says so.
- ``--folds K``: grouped K-fold cross-validation by repository. For each fold a
  scorer is trained on the other folds only (hyper-parameters and operating
  point chosen by an inner grouped CV), and the fold's repositories are scanned
  and decided with it. Figures are per fold, with mean and spread.

Beside precision/recall for ``real`` the result gives a breakdown by scanner rule
and by file kind, a calibration table, the escalation rate under the configured
policy, and the oracle ceiling: the scores if every escalated finding were
decided correctly and every other one kept its offline decision.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from thresher.config.settings import Settings
from thresher.errors import UsageError
from thresher.evaluation.corpus import (
    LABELS,
    Corpus,
    corpus_digest,
    load_corpus,
    samples_of,
    scan_repositories,
)
from thresher.evaluation.figures import (
    Breakdown,
    Line,
    Ranking,
    Scores,
    breakdown,
    calibration_of,
    curve_of,
    rankings,
    score_lines,
    scores,
)
from thresher.findings.filekind import file_kind, in_test_scope
from thresher.findings.model import in_test_code
from thresher.findings.results import Classification
from thresher.scan.outcome import ScanOutcome, ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.metrics import CalibrationRow, CurvePoint, spread
from thresher.scoring.model import Scorer, shipped_scorer
from thresher.scoring.policy import Band, Escalate
from thresher.tribunal.decisions import Decision


class EvalMode(StrEnum):
    SHIPPED = "shipped scorer"
    CROSS_VALIDATED = "grouped cross-validation by repository"


class FoldResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    fold: int
    repositories: list[str]
    lines: int
    findings: int
    thresher: Scores
    oracle: Scores
    escalation_rate: float
    band: tuple[float, float]
    real_threshold: float
    ranking: dict[str, Ranking]  # "all" and each label source


class EvalResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    corpus: str
    mode: EvalMode
    folds_requested: int | None = None
    in_sample: bool
    repositories: int
    flagged_lines: int
    labelled_flagged_lines: int
    unlabelled_flagged_lines: int
    label_counts: dict[str, int]
    thresher: Scores
    baseline: Scores
    oracle: Scores
    escalate: Escalate
    escalation_rate: float
    confusion: dict[str, dict[str, int]]
    by_rule: dict[str, Breakdown]
    # Which sources flag the line: "detect-secrets", "thresher-rules", or both joined by
    # "+": what thresher's own rules buy in recall and cost in precision.
    by_source: dict[str, Breakdown] = {}
    by_file_kind: dict[str, Breakdown]
    calibration: list[CalibrationRow]
    # The precision-recall curve of P(real) over every labelled flagged line (pooled
    # over the folds with --folds), thinned for drawing: the page's first chart.
    precision_recall: list[CurvePoint] = []
    ranking: dict[str, Ranking]  # "all" and each label source (creddata, ...)
    folds: list[FoldResult]
    fold_summary: dict[str, dict[str, float]]
    labelled_real_lines: int
    detection_recall: float
    findings: int
    decided_without_model: float
    requests: int
    input_tokens: int
    output_tokens: int
    wall_seconds: float
    models: dict[str, str]


@dataclass
class _Tally:
    lines: list[Line] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    models: dict[str, str] = field(default_factory=dict)

    def add(self, repo: str, corpus: Corpus, outcome: ScanOutcome) -> None:
        decisions = {
            (d.finding.fingerprint, in_test_code(d.finding.locations[0])): d
            for d in outcome.report.decisions
        }
        self.decisions += outcome.report.decisions
        self.requests += outcome.report.usage.requests
        self.input_tokens += outcome.report.usage.input_tokens
        self.output_tokens += outcome.report.usage.output_tokens
        self.models = outcome.report.models
        seen: dict[tuple[str, int], Line] = {}
        origins: dict[tuple[str, int], set[str]] = {}
        for candidate in outcome.scan.candidates:
            origins.setdefault((candidate.path, candidate.line), set()).add(candidate.origin)
        for candidate in outcome.scan.candidates:
            decision = decisions.get((candidate.fingerprint, in_test_scope(candidate.path)))
            if decision is None:
                continue
            truth = corpus.labels.get((f"{repo}/{candidate.path}", candidate.line))
            escalated = bool(decision.escalation and decision.escalation.would_escalate)
            is_real = decision.classification is Classification.REAL
            line = Line(
                repo=repo,
                path=candidate.path,
                rule=candidate.type,
                source="+".join(sorted(origins[(candidate.path, candidate.line)])),
                truth=truth,
                predicted=decision.classification,
                oracle_real=(truth == "real") if escalated else is_real,
                p_real=decision.assessment.p_real if decision.assessment else None,
                escalated=escalated,
            )
            key = (candidate.path, candidate.line)
            # One line, several findings: the most severe classification stands, and the
            # oracle decides the line right if it decides any of them right.
            kept = seen.get(key)
            if kept is None or is_real:
                if kept is not None and kept.oracle_real != line.oracle_real:
                    line = replace(line, oracle_real=(truth == "real"))
                seen[key] = line
            elif kept.oracle_real != line.oracle_real:
                seen[key] = replace(kept, oracle_real=(truth == "real"))
        self.lines += seen.values()


def _escalation_rate(decisions: list[Decision]) -> float:
    if not decisions:
        return 0.0
    hits = sum(1 for d in decisions if d.escalation and d.escalation.would_escalate)
    return round(hits / len(decisions), 4)


@dataclass(frozen=True)
class EvalOptions:
    escalate: Escalate = Escalate.UNCERTAIN
    analyses: int = 1
    concurrency: int = 4
    folds: int | None = None
    band: Band | None = None
    runs_dir: Path = Path(".thresher/runs")


def evaluate(
    directory: Path,
    settings: Settings,
    options: EvalOptions,
    *,
    environ: Mapping[str, str] | None = None,
    on_repo: Callable[[str], None] | None = None,
) -> EvalResult:
    started = time.perf_counter()
    corpus = load_corpus(directory)
    repos = [r for r in corpus.repositories() if _has_labels(corpus, r)]
    if not repos:
        raise UsageError(f"{directory}: no repository directory under files/ has labels")
    runs_dir = options.runs_dir.resolve() / ("eval-" + time.strftime("%Y%m%dT%H%M%S"))

    def run(repo: str, scorer: Scorer, tally: _Tally) -> None:
        if on_repo is not None:
            on_repo(repo)
        request = ScanRequest(
            root=(corpus.files / repo).resolve(),
            escalate=options.escalate,
            analyses=options.analyses,
            concurrency=options.concurrency,
            band=options.band,
            runs_dir=runs_dir / repo,
        )
        tally.add(repo, corpus, run_scan(request, settings, environ=environ, scorer=scorer))

    total = _Tally()
    folds: list[FoldResult] = []
    if options.folds is None:
        scorer = shipped_scorer()
        for repo in repos:
            run(repo, scorer, total)
        mode = EvalMode.SHIPPED
        in_sample = _digest_matches(corpus, scorer)
    else:
        for number, (members, scorer) in enumerate(_fold_scorers(corpus, repos, options.folds), 1):
            tally = _Tally()
            for repo in members:
                run(repo, scorer, tally)
            thresher, oracle = score_lines(tally.lines)
            point = scorer.operating_point
            band = options.band or Band.of(point)
            folds.append(
                FoldResult(
                    fold=number,
                    repositories=members,
                    lines=sum(1 for line in tally.lines if line.truth is not None),
                    findings=len(tally.decisions),
                    thresher=thresher,
                    oracle=oracle,
                    escalation_rate=_escalation_rate(tally.decisions),
                    band=(band.low, band.high),
                    real_threshold=point.real_threshold,
                    ranking=rankings(tally.lines, corpus.sources),
                )
            )
            total.lines += tally.lines
            total.decisions += tally.decisions
            total.requests += tally.requests
            total.input_tokens += tally.input_tokens
            total.output_tokens += tally.output_tokens
            total.models = tally.models
        mode = EvalMode.CROSS_VALIDATED
        in_sample = False
    return _result(corpus, total, folds, mode, in_sample, options, started)


def _has_labels(corpus: Corpus, repo: str) -> bool:
    prefix = repo + "/"
    return any(path.startswith(prefix) for path, _ in corpus.labels)


def _digest_matches(corpus: Corpus, scorer: Scorer) -> bool:
    return scorer.artifact.training.get("corpus_digest") == corpus_digest(corpus)


def _fold_scorers(corpus: Corpus, repos: list[str], k: int) -> list[tuple[list[str], Scorer]]:
    """Per fold: its repositories and a scorer trained on the other folds only."""
    try:
        from thresher.scoring import crossval, train
    except ImportError as exc:
        raise UsageError(
            f"--folds needs the training libraries to train the per-fold scorers ({exc})",
            hint="pip install 'thresher[train]'",
        ) from None
    samples = [
        s
        for scanned in scan_repositories(corpus, repos=repos)
        for s in samples_of(scanned, corpus.sources.get(scanned.repo, ""))
    ]
    if len({s.group for s in samples}) < k:
        raise UsageError(f"--folds {k}: the corpus has fewer repositories with findings than {k}")
    result: list[tuple[list[str], Scorer]] = []
    for fold in train.grouped_folds(samples, k):
        training = [s for s in samples if s.group not in fold]
        scorer = crossval.build_scorer(training)
        members = [r for r in repos if r in fold]
        result.append((members, scorer))
    return result


def _result(
    corpus: Corpus,
    tally: _Tally,
    folds: list[FoldResult],
    mode: EvalMode,
    in_sample: bool,
    options: EvalOptions,
    started: float,
) -> EvalResult:
    labelled = [line for line in tally.lines if line.truth is not None]
    thresher, oracle = score_lines(tally.lines)
    confusion = {truth: dict.fromkeys(LABELS, 0) for truth in LABELS}
    for line in labelled:
        name = line.predicted.value if line.predicted.value in LABELS else "real"
        confusion[str(line.truth)][name] += 1
    real_total = sum(1 for line in labelled if line.truth == "real")
    all_real = sum(1 for v in corpus.labels.values() if v == "real")
    decisions = tally.decisions

    summary = (
        {
            "precision": spread([f.thresher.precision for f in folds]),
            "recall": spread([f.thresher.recall for f in folds]),
            "f1": spread([f.thresher.f1 for f in folds]),
            "escalation_rate": spread([f.escalation_rate for f in folds]),
            "oracle_precision": spread([f.oracle.precision for f in folds]),
            "oracle_recall": spread([f.oracle.recall for f in folds]),
        }
        if folds
        else {}
    )
    return EvalResult(
        corpus=str(corpus.files.parent),
        mode=mode,
        folds_requested=options.folds,
        in_sample=in_sample,
        repositories=len({line.repo for line in tally.lines}),
        flagged_lines=len(tally.lines),
        labelled_flagged_lines=len(labelled),
        unlabelled_flagged_lines=len(tally.lines) - len(labelled),
        label_counts=dict(Counter(str(line.truth) for line in labelled)),
        thresher=thresher,
        baseline=scores(real_total, len(labelled) - real_total, 0),
        oracle=oracle,
        escalate=options.escalate,
        escalation_rate=_escalation_rate(decisions),
        confusion=confusion,
        by_rule=breakdown(tally.lines, lambda line: line.rule),
        by_source=breakdown(tally.lines, lambda line: line.source),
        by_file_kind=breakdown(tally.lines, lambda line: file_kind(line.path).value),
        calibration=calibration_of(tally.lines),
        precision_recall=curve_of(tally.lines),
        ranking=rankings(tally.lines, corpus.sources),
        folds=folds,
        fold_summary=summary,
        labelled_real_lines=all_real,
        detection_recall=round(real_total / all_real, 4) if all_real else 0.0,
        findings=len(decisions),
        decided_without_model=round(
            sum(1 for d in decisions if not d.escalated) / len(decisions), 4
        )
        if decisions
        else 1.0,
        requests=tally.requests,
        input_tokens=tally.input_tokens,
        output_tokens=tally.output_tokens,
        wall_seconds=round(time.perf_counter() - started, 1),
        models=tally.models,
    )
