"""The dependency pipeline the dependency eval runs: lockfiles -> offline OSV -> tribunal.

The same pieces a ``thresher deps`` run is built from -- ``read_all`` for the
lockfiles, ``OfflineDatabase`` for the advisories, ``OsvFindingSource`` and ``dedupe``
for the findings, and the kind-aware ``Tribunal`` with a ``SessionFactory`` holding the
run's advisories and a workspace on the project -- wired the way ``thresher.run``
wires a secret scan (models from the settings, closed after the run). Kept to what an
eval needs: no journal, no reports, no ``osv-scanner.toml`` ignores (a fixture
project has none), and every lockfile or advisory that cannot be read is an error,
since a corpus that does not load is not a measurement.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from thresher.agents.budget import UsageLimits, UsageMeter
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config import Settings
from thresher.decisions import Decision
from thresher.deps.catalog import InMemoryCatalog
from thresher.deps.discover import read_all
from thresher.deps.model import Dependency, Ecosystem, Relation, _package_key
from thresher.deps.osv import OfflineDatabase, PackageVersion
from thresher.errors import ThresherError
from thresher.findings import Finding, OsvSource
from thresher.findings.sources.dedupe import dedupe
from thresher.findings.sources.osv import OsvFindingSource
from thresher.redaction import Redactor
from thresher.run import close_models, resolve_models
from thresher.scoring.policy import Escalate
from thresher.tribunal.tribunal import Tribunal, TribunalOptions


class DependencyPipelineError(ThresherError):
    """A project's lockfiles or the advisories cannot be read (names the file)."""


@dataclass
class DependencyRun:
    """One project decided: its decisions and what the models spent."""

    decisions: list[Decision] = field(default_factory=list)
    models: dict[str, str] = field(default_factory=dict)
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


def dependency_findings(
    root: Path, database: OfflineDatabase
) -> tuple[tuple[Finding, ...], InMemoryCatalog, dict[str, str]]:
    """The project's dependency findings, the advisories behind them, and the vault."""
    dependencies, errors = read_all(root)
    if errors:
        first = errors[0]
        raise DependencyPipelineError(f"{root}: {first}", hint=first.hint)
    found = database.lookup(PackageVersion.of(d) for d in dependencies)
    if database.problems:
        raise DependencyPipelineError(f"offline OSV: {database.problems[0]}")
    source = OsvFindingSource(dependencies, found)
    deduped = dedupe(source.collect())
    catalog = InMemoryCatalog(
        v for i in source.catalog.ids() if (v := source.catalog.get_vulnerability(i)) is not None
    )
    findings = tuple(with_relation(f, dependencies) for f in deduped.findings)
    values = {f.id: key for f in findings if (key := deduped.vault.get(f.id)) is not None}
    return findings, catalog, values


def with_relation(finding: Finding, dependencies: Sequence[Dependency]) -> Finding:
    """The finding with what its lockfiles say of the dependency (dev-only, direct or
    transitive), when its source does not carry it yet.

    Dev-only when every lockfile line pinning the version says so; direct when any
    does; transitive when all do. The heuristic's dev-only and never-imported rules
    read these two fields."""
    source = finding.source
    if not isinstance(source, OsvSource) or source.dev is not None or source.relation:
        return finding
    ecosystem = Ecosystem(source.ecosystem.split(":")[0])
    key = _package_key(ecosystem, source.package)
    places = {(loc.path, loc.line) for loc in finding.locations}
    pinned = [
        d
        for d in dependencies
        if d.ecosystem is ecosystem
        and _package_key(ecosystem, d.name) == key
        and d.version == source.version
        and (d.path, d.line) in places
    ]
    flags = {d.dev for d in pinned}
    dev = False if False in flags else (True if flags == {True} else None)
    relations = {d.relation for d in pinned}
    relation = (
        Relation.DIRECT.value
        if Relation.DIRECT in relations
        else (Relation.TRANSITIVE.value if relations == {Relation.TRANSITIVE} else None)
    )
    return finding.model_copy(
        update={"source": source.model_copy(update={"dev": dev, "relation": relation})}
    )


def decide_dependencies(
    root: Path,
    osv_dir: Path,
    settings: Settings,
    *,
    escalate: Escalate = Escalate.UNCERTAIN,
    analyses: int = 1,
    concurrency: int = 4,
    transcripts_dir: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> DependencyRun:
    """Read ``root``'s lockfiles, match them against the exports in ``osv_dir`` and decide
    every finding with the configured models (see the module docstring)."""
    with OfflineDatabase(osv_dir) as database:
        findings, catalog, values = dependency_findings(root, database)
    models, specs = resolve_models(settings, environ, dry_run=False)
    meter = UsageMeter(UsageLimits(), "run")
    factory = SessionFactory(
        settings=settings,
        redactor=Redactor(values.values()),
        run_meter=meter,
        workspace=Workspace(root),
        transcripts_dir=transcripts_dir,
        catalog=catalog,
    )
    tribunal = Tribunal(
        factory,
        models,
        TribunalOptions(escalate=escalate, analyses=analyses, concurrency=concurrency),
    )

    async def decide() -> list[Decision]:
        try:
            return await tribunal.decide_all(findings, values.get)
        finally:
            await close_models(models)

    decisions = asyncio.run(decide())
    usage = meter.usage
    return DependencyRun(
        decisions=decisions,
        models=specs,
        requests=usage.requests,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
    )
