"""The dependency half of a scan as the run report sees it: the report's
``DependencySummary``, and one run error per lockfile that could not be read."""

from __future__ import annotations

from thresher.sources.dependencies import DependencyScan
from thresher.tribunal.decisions import (
    DecisionError,
    DependencySummary,
    IgnoredAdvisory,
    LockfileProblem,
)


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


def lockfile_errors(deps: DependencyScan | None) -> tuple[DecisionError, ...]:
    """One run error per lockfile that could not be read (its dependencies are missing)."""
    if deps is None:
        return ()
    return tuple(
        DecisionError(stage="lockfile", error=type(e).__name__, message=str(e)) for e in deps.errors
    )
