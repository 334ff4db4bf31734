"""OpenVEX v0.2.0 (https://github.com/openvex/spec): what thresher concluded, for other tools.

One statement per vulnerable (package, version, advisory) the run decided:

- ``vulnerability``: the OSV id as ``name``, its aliases (CVE, GHSA), its OSV page as
  ``@id``;
- ``products``: the package version as a purl, the identifier scanners and SBOM tools
  match on;
- ``status``: ``affected`` (TRUE_POSITIVE), ``not_affected`` (FALSE_POSITIVE, with the
  OpenVEX ``justification`` the tribunal cited evidence for) or ``under_investigation``
  (INCONCLUSIVE: thresher could not tell, and says so rather than guess);
- ``impact_statement`` (why it is not affected), ``action_statement`` (what to do when
  it is: the fixed versions), ``status_notes`` (who decided, how confidently).

OpenVEX requires at least one statement, so a run without dependency decisions has no
document: ``render_vex`` returns None and the CLI says it wrote nothing.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any, assert_never

from thresher.deps.lockfiles._base import purl
from thresher.deps.model import Ecosystem
from thresher.findings.results import Verdict
from thresher.reports.dependencies import DependencyView, dependency_views
from thresher.reports.views import key_finding, location_text, one_line
from thresher.tribunal.decisions import RunReport

OPENVEX_CONTEXT = "https://openvex.dev/ns/v0.2.0"
DEFAULT_AUTHOR = "thresher"


def render_vex(report: RunReport, *, author: str = DEFAULT_AUTHOR) -> str | None:
    """The OpenVEX document as JSON text, or None when the run decided no dependency."""
    document = build_vex(report, author=author)
    if document is None:
        return None
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def build_vex(report: RunReport, *, author: str = DEFAULT_AUTHOR) -> dict[str, Any] | None:
    views = dependency_views(report)
    if not views:
        return None
    timestamp = _utc(report.finished_at)
    return {
        "@context": OPENVEX_CONTEXT,
        # Stable for a run: rewriting the document of one run gives the same @id.
        "@id": f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'thresher:run:{report.run_id}')}",
        "author": author,
        "timestamp": timestamp,
        "version": 1,
        "tooling": f"thresher {report.tool_version}",
        "statements": [_statement(view, timestamp) for view in views],
    }


def _statement(view: DependencyView, timestamp: str) -> dict[str, Any]:
    decision = view.decision
    vulnerability: dict[str, Any] = {"@id": view.url, "name": view.vuln_id}
    if view.summary and view.summary != view.vuln_id:
        vulnerability["description"] = view.summary
    aliases = [a for a in dict.fromkeys(view.aliases) if a != view.vuln_id]
    if aliases:
        vulnerability["aliases"] = aliases
    places = ", ".join(location_text(loc) for loc in decision.finding.locations[:20])
    statement: dict[str, Any] = {
        "vulnerability": vulnerability,
        "timestamp": timestamp,
        "products": [{"@id": _purl(view)}],
        "status_notes": one_line(
            f"{view.package}@{view.version} pinned at {places}; decided by "
            f"{decision.decided_by.value}, confidence {decision.confidence:.1f}/10 "
            f"({decision.confidence_label.value})",
            1000,
        ),
    }
    why = one_line(key_finding(decision) or decision.rationale, 1000)
    match decision.verdict:
        case Verdict.TRUE_POSITIVE:
            statement["status"] = "affected"
            statement["action_statement"] = _action(view)
            statement["action_statement_timestamp"] = timestamp
        case Verdict.FALSE_POSITIVE:
            statement["status"] = "not_affected"
            if decision.justification is not None:
                statement["justification"] = decision.justification.value
            statement["impact_statement"] = why or "thresher found the project not affected"
        case Verdict.INCONCLUSIVE:
            statement["status"] = "under_investigation"
            if why:
                statement["status_notes"] += f". {why}"
        case _:
            assert_never(decision.verdict)
    return statement


def _action(view: DependencyView) -> str:
    if view.fixed:
        return f"Upgrade {view.package} from {view.version} to a fixed version: {view.fixed_text}."
    return (
        f"No fixed version of {view.package} is published for {view.vuln_id}: replace the "
        "package, or remove or guard the vulnerable code path."
    )


def _purl(view: DependencyView) -> str:
    try:
        ecosystem = Ecosystem(view.source.ecosystem)
    except ValueError:
        return f"pkg:generic/{view.package}@{view.version}"
    return purl(ecosystem, view.package, view.version)


def _utc(moment: datetime) -> str:
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")
