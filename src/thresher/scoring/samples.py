"""One training or evaluation example: a finding with the labels of its lines.

Kept apart from ``train`` so that code which only builds or scores samples never
imports numpy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from thresher.findings.filekind import FileKind
from thresher.scoring.features import Features

# Weak label sources: the clean trees of the wild corpus (every finding not a live
# credential), and findings of the labelled corpus's files that nobody labelled, when
# training takes them as weak negatives. Figures per label source leave them out.
WILD_SOURCE = "wild"
UNLABELLED_SOURCE = "unlabelled"
WEAK_SOURCES = frozenset({WILD_SOURCE, UNLABELLED_SOURCE})


@dataclass(frozen=True)
class Sample:
    """One finding: its repository, features, offline checks and the labels of its
    flagged lines (label -> how many lines carry it; empty when unlabelled)."""

    group: str
    features: Features
    checks: tuple[tuple[str, str], ...] = ()
    labels: dict[str, int] = field(default_factory=dict)
    rule: str = ""
    file_kind: FileKind = FileKind.OTHER
    source: str = ""  # the corpus's label source of the repository (creddata, ...)
    # How much each of its labelled lines counts in training (the wild corpus's weak
    # labels count for less than a human annotation; see ``train_scorer.py --wild``).
    weight: float = 1.0
