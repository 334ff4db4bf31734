"""Stages 1-3 of a scan: the candidates, the dependencies, and the history they share.

- **candidates** (``find_candidates``): the secret scan of the tree, a diff or the
  index; for ``thresher deps`` an empty one, no file read;
- **dependencies** (``read_dependencies``): lockfiles -> OSV, with ``deps`` only;
- **history** (``build_history``): one read of the git history for every value found,
  shared by all agents' ``git_log``.

``gather`` runs the three in that order, tells the observer after each, and hands the
rest of the run one ``Gathered``.
"""

from __future__ import annotations

from dataclasses import dataclass

from thresher.findings import Finding
from thresher.findings.vault import SecretVault
from thresher.git.history import HISTORY_TIMEOUT_S, HistoryIndex
from thresher.scan.observer import ScanObserver
from thresher.scan.outcome import ScanRequest
from thresher.sources.dependencies import DependencyScan, scan_dependencies
from thresher.sources.detect_secrets import ScanStats
from thresher.sources.scan import ScanOptions, ScanResult, StartedScan, scan


@dataclass(frozen=True)
class Gathered:
    """What the first three stages found: every finding to decide, and its evidence."""

    scan: ScanResult  # the secret scan (empty for ``thresher deps``)
    dependencies: DependencyScan | None  # None: no ``deps`` asked
    history: HistoryIndex

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The findings to decide: the secrets', then the dependencies'."""
        deps = self.dependencies
        return self.scan.findings + (deps.findings if deps is not None else ())

    def value_of(self, finding_id: str) -> str | None:
        """A finding's value by id: the secret's, or a dependency finding's synthetic key.
        The two vaults stay apart: only secrets feed the redactor and the history."""
        value = self.scan.vault.get(finding_id)
        if value is None and self.dependencies is not None:
            return self.dependencies.vault.get(finding_id)
        return value


def gather(
    request: ScanRequest, observer: ScanObserver, started: StartedScan | None = None
) -> Gathered:
    """Stages 1-3, each reported to ``observer`` as it finishes (``started``: the secret
    scan, already under way)."""
    result = find_candidates(request, started)
    if request.secrets:
        observer.candidates_found(result)
    dependencies = read_dependencies(request)
    if dependencies is not None:
        observer.dependencies_read(dependencies)
    history = build_history(result, request)
    observer.history_read(history)
    return Gathered(result, dependencies, history)


def find_candidates(request: ScanRequest, started: StartedScan | None = None) -> ScanResult:
    """The secret scan, or for a dependencies-only run an empty one (no file read).

    A scan ``started`` with exactly the request's options is finished; one started with
    others (a caller's mistake) is stopped, and the request's own scan runs."""
    options = ScanOptions(
        root=request.root,
        paths=request.paths,
        diff=request.diff,
        staged=request.staged,
        baseline=request.baseline,
        custom_rules=request.custom_rules,
        honour_pragmas=request.honour_pragmas,
    )
    if started is not None:
        if request.secrets and started.options == options:
            return started.result()
        started.close()
    if not request.secrets:
        return ScanResult((), SecretVault(), ScanStats(0, 0, 0, 0.0))
    return scan(options)


def read_dependencies(request: ScanRequest) -> DependencyScan | None:
    """The dependency scan (``thresher deps`` / ``scan --deps``), or None."""
    if request.deps is None:
        return None
    return scan_dependencies(request.root, request.deps, diff=request.diff)


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
        request.root,
        paths,
        depth=request.history_depth,
        diff=request.diff,
        timeout=timeout,
        repository=result.repository,
    )
