"""Dependency decisions in SARIF, OpenVEX and Markdown, from reports built at test time:
one rule per vulnerability, CVSS security-severity, fixed versions in the help, VEX
statuses (affected / not_affected / under_investigation) valid against OpenVEX's schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from tests.deps.osv.advisories import JINJA2, LODASH, advisory
from tests.reports.builders import run_report
from thresher.deps.osv import parse_record
from thresher.errors import ExitCode
from thresher.findings import Finding, FindingKind, Location, OsvSource, Severity
from thresher.findings.results import (
    Classification,
    RiskLevel,
    Verdict,
    VexJustification,
    label_for,
)
from thresher.reports import render_sarif, render_summary
from thresher.reports.vex import render_vex
from thresher.scan.outcome import FailOn, exit_code_for
from thresher.tribunal.decisions import DecidedBy, Decision, DependencySummary, RunReport

ROOT = Path(__file__).resolve().parents[2]
VEX_SCHEMA = ROOT / "tests/schemas/openvex/openvex_json_schema.json"
SARIF_SCHEMA = ROOT / "../shared/schemas/sarif-schema-2.1.0.json"
# No CVSS vector and no fix published: the fallbacks every report must still handle.
NOFIX = advisory("GHSA-aaaa-bbbb-cccc", "PyPI", "oldlib", [{"introduced": "0"}])


def dependency_decision(
    vuln: dict[str, Any],
    package: str,
    version: str,
    ecosystem: str,
    verdict: Verdict,
    *,
    line: int = 3,
    path: str = "requirements.txt",
    justification: VexJustification | None = None,
) -> Decision:
    classification = (
        Classification.NOT_AFFECTED
        if verdict is Verdict.FALSE_POSITIVE
        else Classification.AFFECTED
    )
    finding = Finding(
        id=f"d-{vuln['id']}-{package}-{version}",
        kind=FindingKind.DEPENDENCY,
        rule_id=vuln["id"],
        severity=Severity.MEDIUM,
        locations=(Location(path=path, line=line),),
        fingerprint=f"vuln:{package}:{version}",
        redacted=f"{package}@{version}",
        source=OsvSource(package=package, version=version, ecosystem=ecosystem, lockfile=path),
    )
    confidence = 8.0 if verdict is not Verdict.INCONCLUSIVE else 3.0
    return Decision(
        finding=finding,
        classification=classification,
        verdict=verdict,
        confidence=confidence,
        confidence_label=label_for(confidence),
        risk_level=RiskLevel.HIGH,
        rationale=f"{package} {version}: {verdict.value} because of the evidence.",
        decided_by=DecidedBy.TRIBUNAL,
        justification=justification,
    )


def report_with(decisions: list[Decision]) -> RunReport:
    advisories = tuple(parse_record(v, origin="test") for v in (JINJA2, LODASH, NOFIX))
    summary = DependencySummary(
        osv="https://api.osv.dev",
        lockfiles=("requirements.txt", "web/package-lock.json"),
        dependencies=12,
        advisories=advisories,
    )
    return run_report(decisions).model_copy(update={"dependencies": summary})


def decisions() -> list[Decision]:
    return [
        dependency_decision(JINJA2, "jinja2", "2.11.2", "PyPI", Verdict.TRUE_POSITIVE),
        dependency_decision(  # the same advisory for another version: the same rule
            JINJA2, "jinja2", "2.10.0", "PyPI", Verdict.INCONCLUSIVE, path="a/requirements.txt"
        ),
        dependency_decision(
            LODASH,
            "lodash",
            "4.17.20",
            "npm",
            Verdict.FALSE_POSITIVE,
            line=14,
            path="web/package-lock.json",
            justification=VexJustification.VULNERABLE_CODE_NOT_IN_EXECUTE_PATH,
        ),
        dependency_decision(NOFIX, "oldlib", "1.0", "PyPI", Verdict.TRUE_POSITIVE, line=9),
    ]


def validator(path: Path) -> jsonschema.protocols.Validator:
    schema = json.loads(path.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=jsonschema.FormatChecker())


def test_sarif_has_one_rule_per_vulnerability_at_the_lockfile_line() -> None:
    sarif = json.loads(render_sarif(report_with(decisions())))
    if SARIF_SCHEMA.is_file():
        validator(SARIF_SCHEMA).validate(sarif)
    run = sarif["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    # not_affected lodash is not uploaded; jinja2's two versions share one rule.
    assert set(rules) == {JINJA2["id"], NOFIX["id"]}
    jinja = rules[JINJA2["id"]]
    assert jinja["properties"]["security-severity"] == "5.3"
    assert "2.11.3" in jinja["help"]["text"] and "CVE-2020-28493" in jinja["help"]["markdown"]
    assert jinja["helpUri"] == f"https://osv.dev/vulnerability/{JINJA2['id']}"
    nofix = rules[NOFIX["id"]]
    assert nofix["properties"]["security-severity"] == "5.5"  # medium, no vector
    assert "no fixed version published" in nofix["help"]["text"]
    results = [
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in run["results"]
    ]
    assert sorted(results) == sorted(
        [
            (JINJA2["id"], "error", 3),
            (JINJA2["id"], "warning", 3),
            (NOFIX["id"], "error", 9),
        ]
    )


def test_vex_statuses_and_justifications_are_valid_openvex() -> None:
    text = render_vex(report_with(decisions()), author="security@example.test")
    assert text is not None
    document = json.loads(text)
    validator(VEX_SCHEMA).validate(document)
    assert document["author"] == "security@example.test"
    by_product = {s["products"][0]["@id"]: s for s in document["statements"]}
    affected = by_product["pkg:pypi/jinja2@2.11.2"]
    assert affected["status"] == "affected"
    assert "2.11.3" in affected["action_statement"]
    assert by_product["pkg:pypi/jinja2@2.10.0"]["status"] == "under_investigation"
    lodash = by_product["pkg:npm/lodash@4.17.20"]
    assert lodash["status"] == "not_affected"
    assert lodash["justification"] == "vulnerable_code_not_in_execute_path"
    assert lodash["impact_statement"]
    assert "No fixed version" in by_product["pkg:pypi/oldlib@1.0"]["action_statement"]
    # The same run gives the same document id.
    again = render_vex(report_with(decisions()), author="security@example.test")
    assert again is not None and json.loads(again)["@id"] == document["@id"]


def test_no_dependency_decision_no_vex_document() -> None:
    assert render_vex(report_with([])) is None


def test_markdown_dependency_table() -> None:
    text = render_summary(report_with(decisions()))
    assert "### Vulnerable dependencies" in text
    rows = [line for line in text.splitlines() if line.startswith("| jinja2 |")]
    assert len(rows) == 2 and all("2.11.3" in row for row in rows)
    lodash = next(line for line in text.splitlines() if line.startswith("| lodash |"))
    assert "vulnerable\\_code\\_not\\_in\\_execute\\_path" in lodash
    assert "high \\(7.2, CVSS 3.1\\)" in lodash


def test_an_affected_dependency_fails_the_run_like_a_real_secret() -> None:
    [affected, unsure, cleared, _] = decisions()
    assert exit_code_for([affected], FailOn.REAL) is ExitCode.FINDINGS
    assert exit_code_for([unsure, cleared], FailOn.REAL) is ExitCode.OK
    assert exit_code_for([unsure], FailOn.UNCERTAIN) is ExitCode.FINDINGS
    assert exit_code_for([cleared], FailOn.REAL, incomplete=True) is ExitCode.RUNTIME
