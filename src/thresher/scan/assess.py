"""What a scan gathers before the tribunal decides: findings, history, assessments.

Part of the scan use case (``thresher.scan.run``): the secret scan, the history index
shared by every agent, the offline scorer's assessments, and which values are public
words that are never redacted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from thresher.findings import Finding
from thresher.findings.profile import PLACEHOLDER_WORDS
from thresher.findings.vault import SecretVault
from thresher.git.history import HISTORY_TIMEOUT_S, HistoryIndex
from thresher.resources import public_vocabulary
from thresher.scan.outcome import ScanRequest
from thresher.scoring.context import scan_contexts
from thresher.scoring.model import Assessment, Scorer
from thresher.sources.detect_secrets import ScanStats
from thresher.sources.scan import ScanOptions, ScanResult, scan


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


def assess(
    result: ScanResult, root: Path, scorer: Scorer, findings: Sequence[Finding] | None = None
) -> dict[str, Assessment]:
    """The scorer's assessment of every finding whose value is known (of ``findings``
    only, when given: a worker process assesses the findings it decides)."""
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
