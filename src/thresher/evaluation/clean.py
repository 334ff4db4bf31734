"""``thresher eval --clean``: whole trees with no live credential in them, as a user scans.

A labelled corpus only says how thresher does on the lines someone labelled; a user
scans whole trees, where most findings fall on lines nobody labelled (docs,
changelogs, CI workflows, vendored and generated code). On the HEAD tree of a
well-known, reviewed project every ``real`` call is a false alarm that fails a pull
request under ``--fail-on real``, and every escalation is model calls spent. This
evaluation scans each tree of a clean corpus (``load_clean``) through the real
pipeline, exactly as ``thresher scan --root TREE`` does, and counts both per
repository.

Figures are per finding (what a user reads), with the file kind of each false
``real`` so that a reader sees where they come from. When the shipped scorer was
trained on the same trees (``benchmarks/train_scorer.py --wild``), the figures are
in-sample and say so: the model card's grouped cross-validation, with the trees
held out per fold, is the honest figure.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from thresher.config.settings import Settings
from thresher.evaluation.corpus import load_clean, tree_commits, trees_digest
from thresher.findings.filekind import file_kind
from thresher.findings.results import Classification
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.model import shipped_scorer
from thresher.scoring.policy import Band, Escalate


class CleanRepository(BaseModel):
    """One clean tree: what thresher flags in it and what it calls."""

    model_config = ConfigDict(frozen=True)

    repository: str
    commit: str  # the exported tree's commit ("" when the corpus does not record it)
    findings: int
    false_real: int  # called `real`: on a clean tree, a false alarm
    decisive_false_real: int  # called `real` and not escalated
    escalated: int
    false_real_by_file_kind: dict[str, int]


class CleanResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    corpus: str
    in_sample: bool  # the shipped scorer was trained on these trees
    escalate: Escalate
    repositories: list[CleanRepository]
    findings: int
    false_real: int
    decisive_false_real: int
    false_real_per_repository: float
    median_false_real: float
    escalation_rate: float
    false_real_by_file_kind: dict[str, int]
    wall_seconds: float


@dataclass(frozen=True)
class CleanOptions:
    escalate: Escalate = Escalate.UNCERTAIN
    band: Band | None = None
    runs_dir: Path = Path(".thresher/runs")


def evaluate_clean(
    directory: Path,
    settings: Settings,
    options: CleanOptions,
    *,
    environ: Mapping[str, str] | None = None,
    on_repo: Callable[[str], None] | None = None,
) -> CleanResult:
    """Scan every tree of the clean corpus with the shipped scorer; count per tree."""
    started = time.perf_counter()
    corpus = load_clean(directory)
    commits = tree_commits(corpus)
    scorer = shipped_scorer()
    runs_dir = options.runs_dir.resolve() / ("eval-clean-" + time.strftime("%Y%m%dT%H%M%S"))
    rows: list[CleanRepository] = []
    for repo in corpus.repositories():
        if on_repo is not None:
            on_repo(repo)
        request = ScanRequest(
            root=(corpus.files / repo).resolve(),
            escalate=options.escalate,
            band=options.band,
            runs_dir=runs_dir / repo,
        )
        decisions = run_scan(request, settings, environ=environ, scorer=scorer).report.decisions
        real = [d for d in decisions if d.classification is Classification.REAL]
        rows.append(
            CleanRepository(
                repository=repo,
                commit=commits.get(repo, ""),
                findings=len(decisions),
                false_real=len(real),
                decisive_false_real=sum(
                    1 for d in real if not (d.escalation and d.escalation.would_escalate)
                ),
                escalated=sum(1 for d in decisions if d.escalation and d.escalation.would_escalate),
                false_real_by_file_kind=dict(
                    Counter(file_kind(d.finding.locations[0].path).value for d in real)
                ),
            )
        )
    findings = sum(r.findings for r in rows)
    false_real = sum(r.false_real for r in rows)
    by_kind: Counter[str] = Counter()
    for row in rows:
        by_kind.update(row.false_real_by_file_kind)
    return CleanResult(
        corpus=str(directory),
        in_sample=scorer.artifact.training.get("wild_digest") == trees_digest(corpus),
        escalate=options.escalate,
        repositories=rows,
        findings=findings,
        false_real=false_real,
        decisive_false_real=sum(r.decisive_false_real for r in rows),
        false_real_per_repository=round(false_real / len(rows), 2) if rows else 0.0,
        median_false_real=float(statistics.median(r.false_real for r in rows)) if rows else 0.0,
        escalation_rate=round(sum(r.escalated for r in rows) / findings, 4) if findings else 0.0,
        false_real_by_file_kind=dict(by_kind.most_common()),
        wall_seconds=round(time.perf_counter() - started, 1),
    )


def render_clean(result: CleanResult) -> str:
    """The per-repository table a reader checks, then the totals."""
    lines = [
        f"clean trees: {result.corpus} ({len(result.repositories)} repositories; every "
        "`real` call is a false alarm)",
    ]
    if result.in_sample:
        lines.append(
            "warning: the shipped scorer was trained on these trees: the figures are "
            "in-sample; quote the model card's grouped cross-validation instead"
        )
    lines += [
        "",
        f"{'repository':<44} {'findings':>8} {'real':>6} {'decisive':>9} {'escalated':>10}",
        "-" * 81,
    ]
    for row in result.repositories:
        lines.append(
            f"{row.repository[:44]:<44} {row.findings:>8} {row.false_real:>6} "
            f"{row.decisive_false_real:>9} {row.escalated:>10}"
        )
    kinds = ", ".join(f"{k} {v}" for k, v in result.false_real_by_file_kind.items()) or "none"
    lines += [
        "-" * 81,
        f"findings {result.findings}; false `real` {result.false_real} "
        f"({result.false_real_per_repository:g} a repository, median "
        f"{result.median_false_real:g}; {result.decisive_false_real} decisive); escalated "
        f"{result.escalation_rate:.1%} of findings (--escalate {result.escalate.value})",
        f"false `real` by file kind: {kinds}",
        f"wall time {result.wall_seconds:g} s",
    ]
    return "\n".join(lines)
