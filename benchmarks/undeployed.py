"""What the rule "documentation is not a deployment" moves, with the shipped scorer.

    python benchmarks/undeployed.py [CORPUS]            # the labelled dev corpus
    python benchmarks/undeployed.py --clean TREES_DIR   # whole trees without live secrets

Each finding is decided offline twice from one assessment: as the policy decides it,
and with its placement forced to ``deployment`` (the policy before the rule). On the
dev corpus it counts the flagged lines labelled ``real`` whose state changes (decisive
``real``, escalated ``real``, escalated dismissal, decisive dismissal), by file kind
and placement, the other labels that move, and the share of findings escalated. On a
directory of clean trees (``TREES_DIR/<repository>/``, as ``benchmarks/wild_export.py``
writes them under ``files/``) every ``real`` call is a false alarm: it prints, per
repository and in all, the ``real`` calls (and the decisive ones) and the findings
escalated, before and after. Target: no decisive ``real`` call on a generic value in
documentation or a commented-out line, at most 15% of findings escalated on clean trees.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from thresher.evaluation.corpus import load_corpus, scan_repositories
from thresher.findings.filekind import file_kind
from thresher.findings.options import ScanOptions
from thresher.scoring.context import scan_contexts
from thresher.scoring.features import CandidateContext
from thresher.scoring.model import Assessment, shipped_scorer
from thresher.scoring.placement import Placement
from thresher.scoring.policy import Band, Escalate, escalation_for, offline_call
from thresher.sources.scan import scan
from thresher.validators.base import ValidationResult

ROOT = Path(__file__).resolve().parent.parent
SCORER = shipped_scorer()
POINT = SCORER.operating_point
BAND = Band.of(POINT)


def state(assessment: Assessment, results: tuple[ValidationResult, ...]) -> str:
    call = offline_call(assessment, results, POINT)
    escalated = escalation_for(call, assessment, Escalate.UNCERTAIN, BAND).would_escalate
    called = "real" if call.classification.value == "real" else "dismissed"
    return ("escalated " if escalated else "decisive ") + called


def decided(
    contexts: dict[str, CandidateContext], checks: dict[str, tuple[ValidationResult, ...]]
) -> Iterator[tuple[str, CandidateContext, Assessment, str, str]]:
    """(finding id, context, assessment, state before the rule, state with it)."""
    for finding_id, ctx in contexts.items():
        assessment = SCORER.assess(ctx)
        results = checks.get(finding_id, ())
        deployed = assessment.model_copy(update={"placement": Placement.DEPLOYMENT})
        yield finding_id, ctx, assessment, state(deployed, results), state(assessment, results)


def dev(corpus_dir: Path) -> None:
    corpus = load_corpus(corpus_dir)
    moved: Counter[tuple[str, str, str, str]] = Counter()
    others: Counter[tuple[str, str, str]] = Counter()
    escalated: Counter[str] = Counter()
    for scanned in scan_repositories(corpus):
        states = {}
        for finding_id, ctx, assessment, before, after in decided(
            scanned.contexts, scanned.validations
        ):
            states[finding_id] = (
                file_kind(ctx.path).value,
                assessment.placement.value,
                before,
                after,
            )
            escalated["findings"] += 1
            escalated["before"] += before.startswith("escalated")
            escalated["after"] += after.startswith("escalated")
        seen: set[tuple[str, int]] = set()
        for line in scanned.lines:
            key = (line.path, line.line)
            if line.label is None or key in seen or line.finding_id not in states:
                continue
            seen.add(key)
            kind, where, before, after = states[line.finding_id]
            if before == after:
                continue
            if line.label == "real":
                moved[(kind, where, before, after)] += 1
            else:
                others[(line.label, before, after)] += 1
    print(f"flagged lines labelled real that move: {sum(moved.values())}")
    print(f"{'file kind':10} {'placement':14} {'before':18} {'after':22} lines")
    for (kind, where, before, after), count in sorted(moved.items(), key=lambda kv: -kv[1]):
        print(f"{kind:10} {where:14} {before:18} {after:22} {count:5d}")
    for (label, before, after), count in sorted(others.items(), key=lambda kv: -kv[1]):
        print(f"labelled {label}: {before} -> {after}: {count}")
    _escalation(escalated)


def clean(trees: Path) -> None:
    total: Counter[str] = Counter()
    print(f"{'repository':45} {'findings':>8} {'real':>11} {'decisive':>11} {'escalated':>11}")
    for repo in sorted(p for p in trees.iterdir() if p.is_dir()):
        result = scan(ScanOptions(root=repo.resolve()))
        contexts, checks = scan_contexts(result, repo.resolve())
        counts: Counter[str] = Counter()
        for _, _, _, before, after in decided(contexts, checks):
            counts["findings"] += 1
            for tag, verdict in (("before", before), ("after", after)):
                counts[f"{tag} real"] += verdict.endswith("real")
                counts[f"{tag} decisive"] += verdict == "decisive real"
                counts[tag] += verdict.startswith("escalated")
        total.update(counts)
        print(f"{repo.name:45} {counts['findings']:8d} " + _pairs(counts))
    print(f"{'all':45} {total['findings']:8d} " + _pairs(total))
    _escalation(total)


def _pairs(counts: Counter[str]) -> str:
    return " ".join(
        f"{counts[f'before{part}']:>5}->{counts[f'after{part}']:<5}"
        for part in (" real", " decisive", "")
    )


def _escalation(counts: Counter[str]) -> None:
    findings = max(1, counts["findings"])
    print(
        f"findings escalated: {counts['before'] / findings:.1%} before the rule, "
        f"{counts['after'] / findings:.1%} with it ({counts['findings']} findings)"
    )


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--clean"] and len(args) == 2:
        clean(Path(args[1]))
    elif len(args) <= 1:
        dev(Path(args[0]) if args else ROOT.parent / "shared/corpus/dev")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
