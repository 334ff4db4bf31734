"""Stage 4 of a scan: the offline scorer's assessment of every secret found.

A run decided in this process assesses every finding here, before the tribunal starts,
and hands it the offline validators' results the assessments were built from: the
tribunal validates a value again only when live checks may run.
A run decided by worker processes leaves it to them: each assesses the findings it
decides, after the fork, so the scorer's contexts are not a second pass over every
finding. Also here: which values are public words, never redacted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from thresher.findings import Finding
from thresher.findings.profile import PLACEHOLDER_WORDS
from thresher.resources import public_vocabulary
from thresher.scan.gather import Gathered
from thresher.scoring.beside import BESIDE_FROM, AssessedBeside
from thresher.scoring.collector import collector_paused
from thresher.scoring.context import scan_contexts
from thresher.scoring.model import Assessment, Scorer, shipped_scorer
from thresher.sources.scan import ScanResult
from thresher.tribunal.tribunal import Tribunal
from thresher.validators.base import ValidationResult


@dataclass(frozen=True)
class Assessed:
    """What stage 4 hands the tribunal: the assessments made so far, and how to make
    the rest (``of``) where the findings are decided."""

    scan: ScanResult
    root: Path
    scorer: Scorer | None  # None: the shipped one, built where it assesses
    # Empty when ``workers`` assess their own; coming in while the tribunal reads them
    # when made ``beside`` this process.
    assessments: Mapping[str, Assessment]
    workers: int  # worker processes that decide the findings; 0: this process
    # The offline validators' results, by finding (of those assessed here).
    validations: Mapping[str, tuple[ValidationResult, ...]] = field(default_factory=dict)
    beside: AssessedBeside | None = None  # the process making them

    def close(self) -> None:
        """End the process making the assessments, if any: the decisions are made."""
        if self.beside is not None:
            self.beside.close()

    def of(self, findings: Sequence[Finding] | None = None) -> dict[str, Assessment]:
        """The assessments of ``findings`` (all the scan's when None)."""
        return assess(self.scan, self.root, self.scorer or shipped_scorer(), findings)


def assessment(
    gathered: Gathered,
    root: Path,
    scorer: Scorer | None,
    *,
    workers: int,
    beside: AssessedBeside | None = None,
) -> Assessed:
    """Stage 4: every finding assessed now, unless ``workers`` will decide (and assess)
    or ``beside`` makes them while this process decides (``scoring.beside``): it is
    asked for the findings of a large enough scan, and ended otherwise."""
    if workers:
        return Assessed(gathered.scan, root, scorer, {}, workers)
    scan = gathered.scan
    if beside is not None:
        order = Tribunal.order(scan.findings)  # the order the findings are decided in
        if len(order) >= BESIDE_FROM and beside.request(scan, order, scorer):
            return Assessed(scan, root, scorer, beside.assessments, 0, beside.checks, beside)
        beside.close()
    model = scorer or shipped_scorer()
    with collector_paused():  # as ``assess``
        contexts, checks = scan_contexts(scan, root)
        assessments = {finding_id: model.assess(ctx) for finding_id, ctx in contexts.items()}
    return Assessed(scan, root, scorer, assessments, workers, checks)


def assess(
    result: ScanResult, root: Path, scorer: Scorer, findings: Sequence[Finding] | None = None
) -> dict[str, Assessment]:
    """The scorer's assessment of every finding whose value is known (of ``findings``
    only, when given: a worker process assesses the findings it decides). The cyclic
    collector is paused meanwhile: this makes no cycles, and its collections walked the
    scan's whole heap again and again (``thresher.scoring.collector``)."""
    with collector_paused():
        contexts, _ = scan_contexts(result, root, findings)
        return {finding_id: scorer.assess(ctx) for finding_id, ctx in contexts.items()}


def is_public_word(value: str) -> bool:
    """A value that is exactly a placeholder word ("changeme") or a word of thresher's own
    methodology ("test", a skill name, a vendor's documentation example) is public text.

    Only exact words qualify: a human-chosen password such as "mysupersecretpassword"
    looks like placeholder vocabulary to the heuristic but is still redacted.
    """
    word = value.strip().lower()
    return word in PLACEHOLDER_WORDS or word in public_vocabulary()
