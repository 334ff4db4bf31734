"""The dependency half of a scan as the run report and the tribunal see it.

Part of the scan use case (``thresher.scan.run``): the report's ``DependencySummary``,
one run error per unreadable lockfile, and the lookup of a finding's value across the
secret and dependency vaults.
"""

from __future__ import annotations

from collections.abc import Callable

from thresher.findings.vault import SecretVault
from thresher.sources.dependencies import DependencyScan
from thresher.tribunal.decisions import (
    DecisionError,
    DependencySummary,
    IgnoredAdvisory,
    LockfileProblem,
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
