"""The candidate scan: the detect-secrets source, de-duplicated into findings.

``scan`` is what ``thresher scan`` and the training corpus run: ``DetectSecretsScan``
through ``dedupe``, with the scan's counts and skips beside the findings. The scanner
itself lives in ``sources.detect_secrets``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from thresher.findings.model import Finding
from thresher.findings.options import CustomRule, ScanError, ScanOptions
from thresher.findings.screen import Dropped
from thresher.findings.skips import Skipped, SkipReason
from thresher.findings.vault import SecretVault
from thresher.git.scope import Listed
from thresher.memory import collector_spared
from thresher.sources.assemble import Candidate
from thresher.sources.dedupe import dedupe
from thresher.sources.detect_secrets import DetectSecretsScan, ScanStats

__all__ = [
    "Candidate",
    "CustomRule",
    "ScanError",
    "ScanOptions",
    "ScanResult",
    "ScanStats",
    "SkipReason",
    "Skipped",
    "StartedScan",
    "scan",
    "start_scan",
]


@dataclass(frozen=True)
class ScanResult:
    findings: tuple[Finding, ...]
    vault: SecretVault
    stats: ScanStats
    # detect-secrets-shaped detections (no values): for baselines and comparisons
    candidates: tuple[Candidate, ...] = ()
    # (path, line) -> the text of every line holding a detection, as scanned. Holds
    # values, like the vault: in memory only, never printed or serialised.
    line_text: dict[tuple[str, int], str] = field(default_factory=dict, repr=False)
    skipped: tuple[Skipped, ...] = ()  # every file passed over, by path
    dropped: tuple[Dropped, ...] = ()  # every detection the screen dropped (no values)
    # The root's files as the scan listed them (None for a diff or staged scan): the
    # scorer's references pass reads this listing rather than list the tree again late
    # in a run, from a process grown large (``thresher.scoring.references``).
    tree: tuple[Listed, ...] | None = field(default=None, repr=False)
    # False where git said the root holds no repository (its history needs no reading);
    # None when the scan did not ask, or git could not say.
    repository: bool | None = None

    def describe(self, *, verbose: bool = False) -> str:
        """The stderr line after a scan; with ``verbose`` one more line per skipped file
        and per detection the screen dropped (``findings.screen``)."""
        lines = [f"{self.stats.describe()}: {len(self.findings)} distinct candidate(s)"]
        if verbose:
            lines += [f"  {item.describe()}" for item in self.skipped]
            lines += [f"  {item.describe()}" for item in self.dropped]
        return "\n".join(lines)


def scan(options: ScanOptions) -> ScanResult:
    """Scan the tree, or what a diff adds, and return de-duplicated findings.

    Raises ``ScanError`` for anything the caller must fix before a scan can
    run; a file that cannot be read or parsed is counted as skipped instead.
    """
    return start_scan(options).result()


def start_scan(options: ScanOptions) -> StartedScan:
    """``scan``, started: the options checked (``ScanError`` as ``scan`` raises it), the
    files listed and the worker processes scanning. ``result`` finishes it; until then
    the caller's own work runs beside the workers (``thresher scan`` loads the modules
    of its triage there). A scan started must be finished or closed."""
    return StartedScan(options)


class StartedScan:
    """A scan under way (``start_scan``)."""

    def __init__(self, options: ScanOptions) -> None:
        self.options = options
        self._started = time.perf_counter()
        self._source = DetectSecretsScan(options)
        self._source.start()

    def result(self) -> ScanResult:
        """The scan finished (in this process and its workers) and de-duplicated.

        The young objects are collected in larger steps throughout, as they are while
        the reports are collected (``collector_spared``; nothing is spared here): the
        findings are made after the last report, and with the default threshold their
        objects set off some fifty collections (about 0.03 s on the dev corpus)."""
        with collector_spared():
            deduped = dedupe(self._source.collect(), self._source.fingerprints)
        self._source.fingerprints.clear()  # values: kept no longer than needed
        scanned = self._source.scanned
        return ScanResult(
            deduped.findings,
            deduped.vault,
            replace(scanned.stats, seconds=time.perf_counter() - self._started),
            scanned.candidates,
            scanned.line_text,
            scanned.skipped,
            scanned.dropped,
            scanned.tree,
            scanned.repository,
        )

    def close(self) -> None:
        """Stop the scan if its result was never asked for (nothing otherwise)."""
        self._source.close()
