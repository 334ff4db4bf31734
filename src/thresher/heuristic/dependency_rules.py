"""Deterministic rules for a vulnerable dependency: the clear cases, and nothing else.

A dependency finding asks "is this project affected?", not "is this a secret?". The
offline rules settle only what the ledger proves outright, each with its OpenVEX
justification and the tool result it rests on:

- the version is outside every affected range (ecosystem-correct comparison):
  ``vulnerable_code_not_present``;
- the lockfile marks the package dev/test-only: ``component_not_present`` (it is not in
  what ships);
- a direct dependency the project's own code never imports (a complete search):
  ``vulnerable_code_not_in_execute_path``.

Anything else -- imported, transitive, a range the comparators cannot evaluate, no
advisory -- is ``affected`` and INCONCLUSIVE: the safe assumption, marked undecided so
the escalation policy sends it to the LLM tribunal. There is no secret scorer here and
no test-path rule: a lockfile under ``tests/`` is still a lockfile.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from thresher.findings.results import (
    ChallengeOutcome,
    Classification,
    ConfidenceFactors,
    EvidenceItem,
    RiskLevel,
    VexJustification,
    label_for,
    verdict_for,
)

# Packages every program of the ecosystem uses without importing them by that name.
_IMPLICIT = frozenset({"stdlib", "toolchain"})
_RISK = {
    "critical": RiskLevel.CRITICAL,
    "high": RiskLevel.HIGH,
    "medium": RiskLevel.MEDIUM,
    "low": RiskLevel.LOW,
}


@dataclass
class DependencyEvidence:
    """What the dependency tools returned, with the ledger ids behind it."""

    finding_id: str | None = None  # ledger id of get_finding
    source: dict[str, Any] = field(default_factory=dict)
    severity: str | None = None
    vuln_id: str | None = None  # ledger id of get_vulnerability
    vulnerability: dict[str, Any] = field(default_factory=dict)
    imports_id: str | None = None  # ledger id of find_imports
    imports: dict[str, Any] = field(default_factory=dict)

    @property
    def package(self) -> dict[str, Any]:
        package = self.vulnerability.get("package")
        return package if isinstance(package, dict) else {}


@dataclass(frozen=True)
class DependencyConclusion:
    classification: Classification
    justification: VexJustification | None
    decisive: bool
    factors: ConfidenceFactors
    risk: RiskLevel
    key_finding: str
    evidence: tuple[EvidenceItem, ...]
    remediation: tuple[str, ...]


def _cite(*ids: str | None) -> tuple[str, ...]:
    return tuple(i for i in ids if i)


def _factors(level: int) -> ConfidenceFactors:
    return ConfidenceFactors(
        recency=level,
        directness=level,
        completeness=level,
        source_reliability=level,
        verification_confidence=level,
        test_results=level,
        findings_review=level,
    )


def upgrade_advice(package: str, version: str, fixed: list[str]) -> str:
    """ "Upgrade x from 1.0 to 1.2 or later", or what to do when no fix is published."""
    if not fixed:
        return (
            f"No fixed version of {package} is published: remove or replace it, or "
            "mitigate the vulnerable code path, and watch the advisory for a fix."
        )
    target = fixed[0] if len(fixed) == 1 else "one of " + ", ".join(fixed)
    return f"Upgrade {package} from {version} to {target} or later, and update the lockfile."


def conclude_dependency(evidence: DependencyEvidence) -> DependencyConclusion:
    """Evidence -> a decisive not_affected with its justification, or affected, undecided."""
    source = evidence.source
    package = str(source.get("package") or evidence.package.get("name") or "the package")
    version = str(source.get("version") or evidence.package.get("version") or "?")
    fixed = [str(v) for v in evidence.package.get("fixed_versions") or []]
    upgrade = upgrade_advice(package, version, fixed)
    vuln = str(evidence.vulnerability.get("id") or "the advisory")
    in_range = evidence.package.get("version_in_range")
    imports = evidence.imports
    items: list[EvidenceItem] = []
    if evidence.vuln_id and evidence.vulnerability:
        items.append(
            EvidenceItem(
                claim=f"{vuln}: "
                + (str(evidence.vulnerability.get("summary") or "").strip() or "advisory read")
                + (f"; fixed in {', '.join(fixed)}" if fixed else "; no fixed version"),
                ledger_ids=_cite(evidence.vuln_id),
            )
        )
    not_affected_advice = (
        f"No action needed for this project; keep the VEX statement with its evidence. {upgrade}"
    )
    if in_range is False and evidence.vuln_id:
        key = (
            f"{package} {version} is outside every range of {vuln} that lists it "
            "(ecosystem-ordered comparison): the vulnerable code is not in this version."
        )
        return _decided(
            VexJustification.VULNERABLE_CODE_NOT_PRESENT,
            key,
            (EvidenceItem(claim=key, ledger_ids=_cite(evidence.vuln_id)), *items),
            (not_affected_advice,),
            9,
        )
    if source.get("dev") is True and evidence.finding_id:
        key = (
            f"{package} {version} is a dev/test-only dependency in "
            f"{source.get('lockfile') or 'its lockfile'}: it is not part of what ships."
        )
        return _decided(
            VexJustification.COMPONENT_NOT_PRESENT,
            key,
            (EvidenceItem(claim=key, ledger_ids=_cite(evidence.finding_id)), *items),
            (not_affected_advice,),
            8,
        )
    never_imported = (
        evidence.imports_id is not None
        and imports.get("imported") is False
        and imports.get("complete") is True
        and int(imports.get("files_searched") or 0) > 0
    )
    direct = source.get("relation") == "direct"
    if never_imported and direct and package not in _IMPLICIT:
        names = ", ".join(str(n) for n in imports.get("names") or [package])
        key = (
            f"{package} is a direct dependency that the project's own code never imports "
            f"(searched {imports.get('files_searched')} source files for {names}): the "
            "vulnerable code is not in any execute path."
        )
        return _decided(
            VexJustification.VULNERABLE_CODE_NOT_IN_EXECUTE_PATH,
            key,
            (
                EvidenceItem(claim=key, ledger_ids=_cite(evidence.imports_id, evidence.finding_id)),
                *items,
            ),
            (not_affected_advice,),
            7,
        )
    # Not a clear case: affected until reachability is shown either way.
    matches = imports.get("matches") or []
    if matches:
        first = matches[0]
        why = (
            f"imported by the project's own code ({first.get('path')}:{first.get('line')}"
            + (f" and {len(matches) - 1} more" if len(matches) > 1 else "")
            + "); whether the vulnerable path is reachable needs review"
        )
    elif never_imported and not direct:
        why = (
            "not imported by the project's own code, but "
            + (
                "a transitive"
                if source.get("relation") == "transitive"
                else "possibly a transitive"
            )
            + " dependency that other packages may call"
        )
    elif in_range is None and evidence.vuln_id:
        why = "the version could not be placed against the advisory's ranges"
    else:
        why = "the offline evidence does not settle whether the vulnerable code is used"
    key = f"{package} {version} is affected by {vuln} until shown otherwise: {why}."
    cite = _cite(evidence.imports_id, evidence.vuln_id, evidence.finding_id)
    return DependencyConclusion(
        classification=Classification.AFFECTED,
        justification=None,
        decisive=False,
        factors=_factors(3),
        risk=_RISK.get(str(evidence.severity), RiskLevel.MEDIUM),
        key_finding=key,
        evidence=(EvidenceItem(claim=key, ledger_ids=cite), *items),
        remediation=(upgrade,),
    )


def _decided(
    justification: VexJustification,
    key: str,
    items: tuple[EvidenceItem, ...],
    remediation: tuple[str, ...],
    level: int,
) -> DependencyConclusion:
    return DependencyConclusion(
        classification=Classification.NOT_AFFECTED,
        justification=justification,
        decisive=True,
        factors=_factors(level),
        risk=RiskLevel.NONE,
        key_finding=key,
        evidence=items,
        remediation=remediation,
    )


# The heuristic model's submissions for a dependency (``thresher.heuristic.model`` plays
# the roles; the offline panel calls these directly).


def gather_dependency_evidence(
    results: Iterable[tuple[str, str | None, dict[str, Any]]],
) -> DependencyEvidence:
    """The dependency rules' evidence from a session's successful tool results."""
    evidence = DependencyEvidence()
    for tool, ledger_id, data in results:
        if tool == "get_finding":
            evidence.finding_id = ledger_id
            source = data.get("source")
            evidence.source = source if isinstance(source, dict) else {}
            evidence.severity = str(data.get("severity") or "") or None
        elif tool == "get_vulnerability":
            evidence.vuln_id, evidence.vulnerability = ledger_id, dict(data)
        elif tool == "find_imports":
            evidence.imports_id, evidence.imports = ledger_id, dict(data)
    return evidence


def dependency_report(evidence: DependencyEvidence) -> dict[str, Any]:
    """The analysis report the dependency rules draw: not_affected with its OpenVEX
    justification in a clear case, else affected and INCONCLUSIVE (escalate)."""
    conclusion = conclude_dependency(evidence)
    score = conclusion.factors.mean()
    verdict = (
        verdict_for(conclusion.classification).value if conclusion.decisive else "INCONCLUSIVE"
    )
    report: dict[str, Any] = {
        "classification": conclusion.classification.value,
        "verdict": verdict,
        "confidence_factors": conclusion.factors.model_dump(),
        "confidence_score": score,
        "confidence_label": label_for(score).value,
        "risk_level": conclusion.risk.value,
        "key_finding": conclusion.key_finding,
        "evidence": [e.model_dump(mode="json") for e in conclusion.evidence],
        "remediation": list(conclusion.remediation),
    }
    if conclusion.justification is not None:
        report["justification"] = conclusion.justification.value
    return report


def dependency_challenge(evidence: DependencyEvidence, report: dict[str, Any]) -> dict[str, Any]:
    """The challenge of a dependency report by the rules on the challenger's evidence.

    A clear case the challenger reproduces is CONFIRMED; a not_affected the rules do not
    reproduce is REFUTED; an affected report the rules cannot settle either way is
    INSUFFICIENT_EVIDENCE when it claims more than INCONCLUSIVE, else CONFIRMED.
    """
    mine = conclude_dependency(evidence)
    theirs = report.get("classification")
    agree = theirs == mine.classification.value
    cited = [i for e in mine.evidence for i in e.ledger_ids]
    if agree:
        outcome = ChallengeOutcome.CONFIRMED
        reasoning = f"Reproduced the evidence: it supports '{theirs}'. {mine.key_finding}"
    elif theirs == Classification.NOT_AFFECTED.value:
        outcome = ChallengeOutcome.REFUTED
        reasoning = (
            f"The report says not_affected, but the reproduced evidence does not show it: "
            f"{mine.key_finding}"
        )
    else:
        outcome = ChallengeOutcome.REFUTED
        reasoning = (
            f"Reproduced evidence points to '{mine.classification.value}', not '{theirs}': "
            f"{mine.key_finding}"
        )
    return {
        "outcome": outcome.value,
        "reasoning": reasoning,
        "evidence_gaps": [] if agree else [f"does not reproduce '{theirs}'"],
        "verification_reproduced": evidence.vuln_id is not None,
        "verification_result": "version in range: "
        + str(evidence.package.get("version_in_range", "unknown")).lower()
        + "; imported: "
        + str(evidence.imports.get("imported", "not searched")).lower(),
        "contradicting_evidence": []
        if agree
        else [{"claim": mine.key_finding, "ledger_ids": cited[:3]}],
    }
