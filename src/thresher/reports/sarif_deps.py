"""SARIF rules and messages for dependency findings: one rule per vulnerability.

A secret's rule is the kind of secret (``thresher/github-token``); a dependency's rule
is the advisory itself, under its OSV id, so code scanning groups every package
version it affects under one alert type. ``security-severity`` is the CVSS base score
computed from the advisory's vector (GitHub maps >= 9.0 to critical, >= 7.0 to high,
>= 4.0 to medium), and the help names the fixed version(s) and the aliases.
"""

from __future__ import annotations

from typing import Any

import sarif_om as om  # type: ignore[import-untyped]

from thresher.agents.prompts import md_escape
from thresher.reports.catalog import rule_name
from thresher.reports.dependencies import DependencyView
from thresher.reports.views import key_finding, one_line

_LEVELS_TEXT = (
    "thresher reports `error` when it concluded the project is affected and `warning` "
    "when whether the vulnerable code is reachable is still open. Dependencies it "
    "showed not to be affected are not uploaded; the JSON report and the VEX document "
    "keep them with their justification."
)


def dependency_rule(views: list[DependencyView], precision: str) -> Any:
    """The rule of one advisory, from the views of every package version it affects."""
    first = views[0]
    advisory = first.advisory
    summary = first.summary
    aliases = first.aliases
    fixes = [f"{v.package} {v.fixed_text}" for v in _per_package(views)]
    score = max((v.score for v in views), key=float)
    text = " ".join(
        [
            f"{first.vuln_id}: {summary}.",
            f"Aliases: {', '.join(aliases)}." if aliases else "",
            f"Fixed in: {'; '.join(fixes)}.",
            "Upgrade to a fixed version, or show the vulnerable code is not reachable.",
        ]
    ).replace("  ", " ")
    markdown = "\n".join(
        [
            f"**{md_escape(first.vuln_id)}**: {md_escape(summary)}",
            "",
            *(["Aliases: " + ", ".join(md_escape(a) for a in aliases), ""] if aliases else []),
            "#### Fixed in",
            "",
            *(f"- {md_escape(fix)}" for fix in fixes),
            "",
            "#### Remediation",
            "",
            "1. Upgrade the package to a fixed version in the lockfile.",
            "2. If no fix is published or an upgrade is not possible, show that the vulnerable "
            "code is not reachable and record it (thresher writes OpenVEX with `--vex`).",
            "",
            f"Details: {first.url}",
            "",
            _LEVELS_TEXT,
        ]
    )
    full = (
        one_line(advisory.details, 1000) if advisory is not None and advisory.details else summary
    )
    return om.ReportingDescriptor(
        id=first.vuln_id,
        name=rule_name(summary)[:100] or rule_name(first.vuln_id),
        short_description=om.MultiformatMessageString(text=one_line(summary, 1000)),
        full_description=om.MultiformatMessageString(text=full),
        help=om.MultiformatMessageString(text=text, markdown=markdown),
        help_uri=first.url,
        properties={
            "security-severity": score,
            "tags": ["security", "dependency", "vulnerability", *aliases],
            "precision": precision,
            "aliases": list(aliases),
            "fixedVersions": list(dict.fromkeys(f for v in views for f in v.fixed)),
        },
    )


def dependency_message(view: DependencyView, extra: int) -> str:
    """The result's message: package, version, advisory, verdict, the fix."""
    decision = view.decision
    text = (
        f"{view.package}@{view.version} ({view.source.ecosystem}) is vulnerable to "
        f"{view.vuln_id} ({view.summary}): {decision.classification.value} "
        f"({decision.verdict.value}), confidence {decision.confidence:.1f}/10 "
        f"({decision.confidence_label.value}), decided by {decision.decided_by.value}. "
        f"Fixed in: {view.fixed_text}. Key finding: {one_line(key_finding(decision), 500)}"
    )
    if extra > 0:
        text += f" The same version is pinned at {extra} other location(s)."
    return text


def _per_package(views: list[DependencyView]) -> list[DependencyView]:
    seen: dict[tuple[str, str], DependencyView] = {}
    for view in views:
        seen.setdefault((view.source.ecosystem, view.package), view)
    return list(seen.values())
