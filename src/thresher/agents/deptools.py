"""The dependency tools of one session: ``get_vulnerability`` and ``find_imports``.

Bound to the finding (its package, version and ecosystem come from its ``OsvSource``),
the run's ``VulnerabilityCatalog`` and the workspace. ``get_vulnerability`` also says
whether the finding's version is inside the advisory's ranges, through the injected
``RangeCheck`` (the ecosystem-correct comparators), so neither the heuristic nor a model
has to compare versions by eye.
"""

from __future__ import annotations

import json
from typing import Any

from thresher.agents.imports import find_imports
from thresher.agents.toolbox import Handler, bind
from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.toolspecs import FindImportsArgs, ToolName, VulnerabilityArgs
from thresher.agents.workspace import Workspace
from thresher.deps.catalog import RangeCheck, VulnerabilityCatalog, version_in_range
from thresher.deps.model import Ecosystem, Vulnerability
from thresher.findings import Finding, OsvSource


def ecosystem_of(name: str) -> Ecosystem:
    """OSV's ecosystem name (``PyPI``, ``Go``, ``npm``...; a suffix such as
    ``Debian:12`` is ignored) as the closed vocabulary."""
    base = name.split(":", 1)[0].strip()
    for ecosystem in Ecosystem:
        if ecosystem.value.lower() == base.lower():
            return ecosystem
    known = ", ".join(e.value for e in Ecosystem)
    raise ToolError(f"unsupported ecosystem {name!r}; supported: {known}")


def vulnerability_data(
    vuln: Vulnerability, source: OsvSource | None, check: RangeCheck
) -> dict[str, Any]:
    """The advisory as a session sees it, with the finding's package singled out."""
    data: dict[str, Any] = vuln.model_dump(mode="json")
    if source is None:
        return data
    try:
        ecosystem = ecosystem_of(source.ecosystem)
    except ToolError:
        return data
    entries = vuln.affecting(ecosystem, source.package)
    data["package"] = {
        "name": source.package,
        "version": source.version,
        "ecosystem": ecosystem.value,
        "listed": bool(entries),
        # True / False: the ecosystem's own ordering says so; None: it cannot tell.
        "version_in_range": version_in_range(
            vuln, ecosystem, source.package, source.version, check
        ),
        "fixed_versions": list(vuln.fixed_versions(ecosystem, source.package)),
        "imports": sorted({i for e in entries for i in e.imports}),
        "symbols": sorted({s for e in entries for s in e.symbols}),
        "withdrawn": vuln.withdrawn is not None,
    }
    return data


def dependency_handlers(
    finding: Finding,
    catalog: VulnerabilityCatalog | None,
    check: RangeCheck,
    workspace: Workspace | None,
) -> dict[ToolName, Handler]:
    """Handlers for ``get_vulnerability`` and ``find_imports`` (the latter only with a
    workspace: without the code there is nothing to search)."""
    source = finding.source if isinstance(finding.source, OsvSource) else None

    def get_vulnerability(args: VulnerabilityArgs) -> ToolOutput:
        if catalog is None:
            raise ToolError("no vulnerability database is available in this run")
        vuln = catalog.get(args.id)
        if vuln is None:
            raise ToolError(f"unknown vulnerability id {args.id!r}")
        mine = source if args.id in {finding.rule_id, *vuln.aliases, vuln.id} else None
        data = vulnerability_data(vuln, mine, check)
        return ToolOutput(json.dumps(data, indent=2, ensure_ascii=False), data)

    def imports(args: FindImportsArgs) -> ToolOutput:
        assert workspace is not None
        if args.ecosystem is not None:
            ecosystem = ecosystem_of(args.ecosystem)
        elif source is not None:
            ecosystem = ecosystem_of(source.ecosystem)
        else:
            raise ToolError("give the ecosystem: this finding is not a dependency")
        modules: tuple[str, ...] = ()
        vuln = catalog.get(finding.rule_id) if catalog is not None else None
        if vuln is not None and source is not None and args.package == source.package:
            modules = tuple(i for e in vuln.affecting(ecosystem, source.package) for i in e.imports)
        return find_imports(workspace, ecosystem, args.package, modules)

    handlers: dict[ToolName, Handler] = {
        ToolName.GET_VULNERABILITY: bind(VulnerabilityArgs, get_vulnerability)
    }
    if workspace is not None:
        handlers[ToolName.FIND_IMPORTS] = bind(FindImportsArgs, imports)
    return handlers
