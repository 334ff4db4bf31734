"""What every report says about a dependency finding, worked out once.

A dependency decision's finding names the package, version and advisory id; the
advisory itself (aliases, CVSS, fixed versions, summary) travels in the run report's
``DependencySummary``. SARIF rules, the Markdown dependency table and the OpenVEX
document all read it through ``DependencyView`` so they never disagree on what is
"fixed in" or how severe it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from thresher.agents.prompts import md_escape
from thresher.deps.model import Ecosystem, Vulnerability
from thresher.findings import FindingKind, OsvSource, Severity
from thresher.findings.results import Verdict
from thresher.reports.views import one_line
from thresher.tribunal.decisions import Decision, RunReport

OSV_URL = "https://osv.dev/vulnerability/{id}"
# GitHub maps security-severity to critical (>= 9.0), high (7.0-8.9), medium, low; an
# advisory without a CVSS vector gets its severity's middle.
_NO_CVSS_SCORE = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "3.0",
}


@dataclass(frozen=True)
class DependencyView:
    """One dependency decision as reports show it."""

    decision: Decision
    source: OsvSource
    advisory: Vulnerability | None

    @property
    def vuln_id(self) -> str:
        return self.decision.finding.rule_id

    @property
    def package(self) -> str:
        return self.source.package

    @property
    def version(self) -> str:
        return self.source.version

    @property
    def aliases(self) -> tuple[str, ...]:
        return self.advisory.aliases if self.advisory is not None else ()

    @property
    def summary(self) -> str:
        advisory = self.advisory
        if advisory is None:
            return self.vuln_id
        return one_line(advisory.summary or advisory.details or advisory.id, 300)

    @property
    def fixed(self) -> tuple[str, ...]:
        """The versions that fix it for this package (OSV ``fixed`` events), in order."""
        if self.advisory is None:
            return ()
        return fixed_versions(self.advisory, self.source.ecosystem, self.package)

    @property
    def score(self) -> str:
        """GitHub's ``security-severity``: the CVSS base score, as a string."""
        cvss = self.advisory.cvss if self.advisory is not None else None
        if cvss is not None:
            return f"{cvss.base_score:.1f}"
        return _NO_CVSS_SCORE[self.decision.finding.severity]

    @property
    def severity(self) -> str:
        cvss = self.advisory.cvss if self.advisory is not None else None
        if cvss is not None:
            return f"{cvss.severity.value} ({cvss.base_score:.1f}, CVSS {cvss.version})"
        return self.decision.finding.severity.value

    @property
    def fixed_text(self) -> str:
        return ", ".join(self.fixed) if self.fixed else "no fixed version published"

    @property
    def url(self) -> str:
        return OSV_URL.format(id=self.vuln_id)


def dependency_views(report: RunReport) -> list[DependencyView]:
    """The report's dependency decisions, with their advisories."""
    views = (view_of(decision, report) for decision in report.decisions)
    return [view for view in views if view is not None]


def view_of(decision: Decision, report: RunReport) -> DependencyView | None:
    finding = decision.finding
    if finding.kind is not FindingKind.DEPENDENCY or not isinstance(finding.source, OsvSource):
        return None
    summary = report.dependencies
    advisory = summary.advisory(finding.rule_id) if summary is not None else None
    return DependencyView(decision, finding.source, advisory)


def fixed_versions(advisory: Vulnerability, ecosystem: str, package: str) -> tuple[str, ...]:
    """The ``fixed`` events of the advisory's entries for this package, without repeats."""
    try:
        known = Ecosystem(ecosystem)
    except ValueError:
        return ()
    return tuple(dict.fromkeys(advisory.fixed_versions(known, package)))


def markdown_section(report: RunReport, *, max_rows: int = 50) -> str:
    """The Markdown summary's dependency section: one row per vulnerable dependency."""
    summary = report.dependencies
    if summary is None:
        return ""
    views = dependency_views(report)
    order = {Verdict.TRUE_POSITIVE: 0, Verdict.INCONCLUSIVE: 1, Verdict.FALSE_POSITIVE: 2}
    views.sort(key=lambda v: (order[v.decision.verdict], -float(v.score), v.package, v.vuln_id))
    scope = f" added or changed in `{md_escape(summary.diff)}`" if summary.diff else ""
    lines = [
        "### Vulnerable dependencies",
        "",
        f"{summary.dependencies} dependencies{scope} read from {len(summary.lockfiles)} "
        f"lockfile(s); {len(views)} vulnerable (package, version, advisory).",
    ]
    if views:
        lines += [
            "",
            "| Package | Version | Vulnerability | Severity | Fixed in | Verdict | Justification |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for view in views[:max_rows]:
            decision = view.decision
            ids = ", ".join([view.vuln_id, *view.aliases])
            verdict = f"{decision.classification.value} ({decision.verdict.value})"
            lines.append(
                "| "
                + " | ".join(
                    _cell(cell)
                    for cell in (
                        view.package,
                        view.version,
                        ids,
                        view.severity,
                        view.fixed_text,
                        verdict,
                        decision.justification.value if decision.justification else "-",
                    )
                )
                + " |"
            )
        if len(views) > max_rows:
            lines += ["", f"{len(views) - max_rows} more in the JSON report."]
    for problem in summary.errors:
        lines += ["", f"> ⚠️ {_cell(problem.message)} (its dependencies were not checked)"]
    if summary.ignored:
        lines += ["", f"{len(summary.ignored)} advisory match(es) ignored by osv-scanner.toml."]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """A table cell: one line, escaped, no @-mentions."""
    return md_escape(one_line(text, 200)).replace("@", "@\u200b")
