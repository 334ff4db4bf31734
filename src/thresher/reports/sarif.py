"""SARIF 2.1.0 for GitHub code scanning (DESIGN §6), built with sarif-om.

Code scanning ignores SARIF ``suppressions``, so findings decided
FALSE_POSITIVE are left out here and kept in the JSON report: uploading them
would open alerts that thresher has already shown to be noise. What remains is
ordered by risk and capped at GitHub's per-run and per-result limits, so an
oversized run drops its least dangerous results rather than being rejected.

sarif-om objects are attrs classes whose field metadata holds the SARIF
property names; ``to_sarif_data`` turns them into camelCase JSON data and drops
unset values and sarif-om's sentinel defaults (``-1`` indexes and the like).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, assert_never
from urllib.parse import quote, urlsplit

import attrs
import sarif_om as om  # type: ignore[import-untyped]

from thresher.agents.prompts import md_escape
from thresher.findings import (
    FindingKind,
    FindingLocation,
    Location,
    Severity,
    TextLocation,
    WikiLocation,
)
from thresher.findings.results import ConfidenceLabel, Verdict
from thresher.reports.catalog import help_for, rule_name, rule_slug
from thresher.reports.dependencies import DependencyView, view_of
from thresher.reports.sarif_deps import dependency_message, dependency_rule
from thresher.reports.views import by_risk, key_finding, one_line
from thresher.tribunal.decisions import Decision, RunReport

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
# Where users learn about the tool; shown by SARIF viewers beside the tool name.
AUTOMATION_ID = "thresher/secrets/"
# GitHub code scanning's category is automationDetails.id up to its last "/": one
# category per analysis, so uploads of the same category replace each other.
DEFAULT_CATEGORY = "thresher/secrets"
SRCROOT = "%SRCROOT%"
MAX_RESULTS = 25_000  # GitHub: results per run
MAX_LOCATIONS = 1_000  # GitHub: locations per result (primary + related)

# GitHub maps security-severity to critical (> 9.0), high (7.0-8.9), medium, low.
_SECURITY_SEVERITY = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "3.0",
}
_SEVERITY_ORDER = (Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL)
_LABELS_WEAKEST_FIRST = (ConfidenceLabel.LOW, ConfidenceLabel.MEDIUM, ConfidenceLabel.HIGH)
_LEVELS = {Verdict.TRUE_POSITIVE: "error", Verdict.INCONCLUSIVE: "warning"}
_SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
# Emitted even when equal to sarif-om's default, because readers key on it.
_ALWAYS_EMIT = frozenset({"level"})


def render_sarif(
    report: RunReport, *, information_uri: str | None = None, category: str = DEFAULT_CATEGORY
) -> str:
    """The SARIF log for one run as JSON text (camelCase, indent 2).

    ``information_uri`` is optional in SARIF; pass the project's home page when known.
    ``category`` becomes ``automationDetails.id`` (``<category>/``).
    """
    data = to_sarif_data(build_sarif(report, information_uri, category=category))
    # ``$schema`` and ``version`` first, as readers and GitHub's docs show them.
    ordered = {"$schema": data.pop("$schema"), "version": data.pop("version"), **data}
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"


def build_sarif(
    report: RunReport, information_uri: str | None = None, *, category: str = DEFAULT_CATEGORY
) -> Any:
    """The ``sarif_om.SarifLog`` for one run."""
    reportable = by_risk([d for d in report.decisions if d.verdict is not Verdict.FALSE_POSITIVE])
    kept = reportable[:MAX_RESULTS]
    omitted = len(reportable) - len(kept)

    views = {d.finding.id: view_of(d, report) for d in kept}
    rules, rule_index = _rules(kept, views)
    results = [_result(decision, rule_index, views.get(decision.finding.id)) for decision in kept]

    driver = om.ToolComponent(
        name="thresher",
        version=report.tool_version,
        semantic_version=report.tool_version if _SEMVER.match(report.tool_version) else None,
        information_uri=information_uri,
        rules=rules,
    )
    properties: dict[str, Any] = {
        "runId": report.run_id,
        "reportSchemaVersion": report.schema_version,
        "dryRun": report.dry_run,
        "falsePositivesOmitted": len(report.decisions) - len(reportable),
        "resultsTruncated": omitted > 0,
    }
    if omitted:
        properties["omittedResults"] = omitted
        properties["resultLimit"] = MAX_RESULTS
    run = om.Run(
        tool=om.Tool(driver=driver),
        results=results,
        automation_details=om.RunAutomationDetails(id=category.strip("/") + "/"),
        invocations=[_invocation(report)],
        properties=properties,
    )
    return om.SarifLog(runs=[run], version=SARIF_VERSION, schema_uri=SARIF_SCHEMA_URI)


def to_sarif_data(value: Any) -> Any:
    """sarif-om objects -> JSON data under their SARIF (camelCase) property names."""
    if attrs.has(type(value)):
        data: dict[str, Any] = {}
        for name, prop, default in _fields(type(value)):
            item = getattr(value, name)
            if item is None or (
                default is not _NO_DEFAULT and type(item) is type(default) and item == default
            ):
                continue
            data[prop] = to_sarif_data(item)
        return data
    if isinstance(value, dict):
        return {str(key): to_sarif_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_sarif_data(item) for item in value]
    return value


_NO_DEFAULT = object()


_FIELDS: dict[type, tuple[tuple[str, str, Any], ...]] = {}


def _fields(cls: type) -> tuple[tuple[str, str, Any], ...]:
    """(attribute, SARIF property, default to omit) per field of a sarif-om class."""
    cached = _FIELDS.get(cls)
    if cached is not None:
        return cached
    fields = []
    for field in attrs.fields(cls):
        default = field.default
        factory = getattr(default, "factory", None)
        if callable(factory):
            default = factory()
        if default is attrs.NOTHING or field.name in _ALWAYS_EMIT:
            default = _NO_DEFAULT
        fields.append((field.name, field.metadata["schema_property_name"], default))
    _FIELDS[cls] = tuple(fields)
    return _FIELDS[cls]


def _rules(
    decisions: Iterable[Decision], views: dict[str, DependencyView | None]
) -> tuple[list[Any], dict[str, int]]:
    """One rule per slug of the scanner's rule id, and one per vulnerability (its OSV
    id), in order of first (riskiest) use."""
    grouped: dict[str, list[Decision]] = {}
    for decision in decisions:
        grouped.setdefault(_rule_key(decision, views), []).append(decision)
    rules = []
    for slug, members in grouped.items():
        deps = [v for v in (views.get(d.finding.id) for d in members) if v is not None]
        rules.append(dependency_rule(deps, _weakest(members)) if deps else _rule(slug, members))
    return rules, {slug: index for index, slug in enumerate(grouped)}


def _rule_key(decision: Decision, views: dict[str, DependencyView | None]) -> str:
    """A dependency's rule is its advisory's OSV id; a secret's, its rule's slug."""
    if views.get(decision.finding.id) is not None:
        return decision.finding.rule_id
    return rule_slug(decision.finding.rule_id)


def _weakest(decisions: list[Decision]) -> str:
    """A rule is only as precise as its least confident result in this run."""
    labels = {d.confidence_label for d in decisions}
    return next(label for label in _LABELS_WEAKEST_FIRST if label in labels).value


def _rule(slug: str, decisions: list[Decision]) -> Any:
    finding = decisions[0].finding
    info = help_for(finding)
    severity = max((d.finding.severity for d in decisions), key=_SEVERITY_ORDER.index)
    # A rule is only as precise as its least confident result in this run.
    labels = {d.confidence_label for d in decisions}
    weakest = next(label for label in _LABELS_WEAKEST_FIRST if label in labels)
    tags = ["security"]
    if finding.kind is FindingKind.SECRET:
        tags.append("secret")
        if finding.effective_secret_type is not None:
            tags.append(finding.effective_secret_type.value)
    else:
        tags.extend(["dependency", "vulnerability"])
    steps = info.remediation
    levels = (
        "thresher reports `error` when it concluded the finding is real (TRUE_POSITIVE) "
        "and `warning` when the evidence was inconclusive and a person should review it. "
        "Findings it showed to be test data or not secrets are not uploaded."
    )
    text = " ".join([info.description, "Remediation:", *steps])
    markdown = "\n".join(
        [
            f"**{md_escape(info.title)}** (`{rule_slug(finding.rule_id)}`)",
            "",
            md_escape(info.description),
            "",
            "#### Remediation",
            "",
            *(f"{number}. {md_escape(step)}" for number, step in enumerate(steps, 1)),
            "",
            levels,
        ]
    )
    return om.ReportingDescriptor(
        id=slug,
        name=rule_name(finding.rule_id),
        short_description=om.MultiformatMessageString(
            text=one_line(f"{info.title} ({finding.rule_id})", 1000)
        ),
        full_description=om.MultiformatMessageString(text=info.description),
        help=om.MultiformatMessageString(text=text, markdown=markdown),
        properties={
            "security-severity": _SECURITY_SEVERITY[severity],
            "tags": tags,
            "precision": weakest.value,
        },
    )


def _result(
    decision: Decision, rule_index: dict[str, int], view: DependencyView | None = None
) -> Any:
    finding = decision.finding
    slug = finding.rule_id if view is not None else rule_slug(finding.rule_id)
    located = [(loc, _location(loc)) for loc in finding.locations]
    usable = [(loc, sarif_loc) for loc, sarif_loc in located if sarif_loc is not None]
    primary = usable[:1]
    related = usable[1:MAX_LOCATIONS]
    for number, (_, sarif_loc) in enumerate(related, 1):
        sarif_loc.id = number
        sarif_loc.message = om.Message(
            text="Another lockfile line pinning the same version."
            if view is not None
            else "Another occurrence of the same value."
        )
    primary_path = _hashed_place(primary[0][0]) if primary else ""

    properties: dict[str, Any] = {
        "findingId": finding.id,
        "verdict": decision.verdict.value,
        "classification": decision.classification.value,
        "confidence": decision.confidence,
        "confidenceLabel": decision.confidence_label.value,
        "riskLevel": decision.risk_level.value,
        "decidedBy": decision.decided_by.value,
    }
    skipped = len(usable) - len(primary) - len(related)
    if skipped:
        properties["omittedLocations"] = skipped
    if decision.errors:
        properties["errors"] = [f"{error.stage}: {error.error}" for error in decision.errors]
    if view is not None:
        properties |= {
            "package": view.package,
            "version": view.version,
            "ecosystem": view.source.ecosystem,
            "fixedVersions": list(view.fixed),
        }
        if decision.justification is not None:
            properties["justification"] = decision.justification.value
    extra = len(finding.locations) - 1
    text = dependency_message(view, extra) if view is not None else _message(decision, extra)

    return om.Result(
        rule_id=slug,
        rule_index=rule_index[slug],
        level=_LEVELS[decision.verdict],
        message=om.Message(text=re.sub(r"([\[\]])", r"\\\1", text)),
        locations=[sarif_loc for _, sarif_loc in primary] or None,
        related_locations=[sarif_loc for _, sarif_loc in related] or None,
        partial_fingerprints={"primaryLocationLineHash": line_free_hash(decision, primary_path)},
        properties=properties,
    )


def line_free_hash(decision: Decision, path: str) -> str:
    """Stable across runs and edits that move the line: rule, value fingerprint, file."""
    finding = decision.finding
    material = "\0".join((rule_slug(finding.rule_id), finding.fingerprint, path))
    return hashlib.sha256(material.encode()).hexdigest() + ":1"


def _message(decision: Decision, extra: int) -> str:
    """Plain text; brackets escaped so SARIF viewers cannot read embedded links into it."""
    info = help_for(decision.finding)
    text = (
        f"{info.title} {decision.finding.redacted}: {decision.verdict.value} "
        f"(classification {decision.classification.value}), confidence "
        f"{decision.confidence:.1f}/10 ({decision.confidence_label.value}), decided by "
        f"{decision.decided_by.value}. Key finding: {one_line(key_finding(decision), 500)}"
    )
    if extra > 0:
        text += f" The same value occurs at {extra} other location(s)."
    return text


def _location(location: FindingLocation) -> Any | None:
    """A file of the tree is relative to ``%SRCROOT%``; a wiki page or text on GitHub
    (an issue, a comment) is its absolute address, with the kind of place named as a
    logical location so a viewer can say what it links to."""
    match location:
        case Location():
            uri = _artifact_uri(location.path)
            if not uri:
                return None
            return om.Location(
                physical_location=om.PhysicalLocation(
                    artifact_location=om.ArtifactLocation(uri=uri, uri_base_id=SRCROOT),
                    region=om.Region(start_line=location.line),
                )
            )
        case WikiLocation():
            uri = _absolute_uri(location.url)
            if not uri:
                return None
            return om.Location(
                physical_location=om.PhysicalLocation(
                    artifact_location=om.ArtifactLocation(uri=uri),
                    region=om.Region(start_line=location.line),
                ),
                logical_locations=[
                    om.LogicalLocation(name=f"wiki:{location.path}", kind="resource")
                ],
            )
        case TextLocation():
            uri = _absolute_uri(location.url)
            if not uri:
                return None
            return om.Location(
                physical_location=om.PhysicalLocation(
                    artifact_location=om.ArtifactLocation(uri=uri),
                ),
                logical_locations=[om.LogicalLocation(name=location.type.value, kind="resource")],
            )
        case _:
            assert_never(location)


def _hashed_place(location: FindingLocation) -> str:
    """The place ``line_free_hash`` keys on: the file's URI as before, else the address."""
    if isinstance(location, Location):
        return _artifact_uri(location.path)
    return _absolute_uri(location.url)


def _absolute_uri(url: str) -> str:
    """An http(s) address, percent-encoded where a URI may not hold the character;
    ``""`` for anything else (a hostile or broken address is not linked)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        return ""
    return quote(url.strip(), safe=":/?#[]@!$&'()*+,;=%~")


def _artifact_uri(path: str) -> str:
    """A relative, posix, percent-encoded URI reference; ``""`` when there is no file."""
    posix = path.replace("\\", "/").strip()
    if not posix:
        return ""
    posix = posixpath.normpath(posix).lstrip("/")
    if posix in {"", "."}:
        return ""
    return quote(posix, safe="/")


def _invocation(report: RunReport) -> Any:
    notifications = [
        om.Notification(message=om.Message(text=f"{error.stage}: {error.message}"), level="error")
        for error in report.errors
    ]
    return om.Invocation(
        execution_successful=not report.errors,
        start_time_utc=_utc(report.started_at),
        end_time_utc=_utc(report.finished_at),
        tool_execution_notifications=notifications or None,
    )


def _utc(moment: datetime) -> str:
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")
