"""A small world for dependency-tribunal tests: a project on disk, an advisory catalog, a
dependency finding, and LLM fakes that answer as a dependency analyst would."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, Settings
from thresher.deps.catalog import InMemoryCatalog
from thresher.deps.model import (
    Affected,
    AffectedRange,
    Ecosystem,
    RangeEvent,
    RangeType,
    Vulnerability,
)
from thresher.findings import Finding, FindingKind
from thresher.heuristic.model import HeuristicModel
from thresher.llm.messages import ModelResponse, ToolResultsMessage
from thresher.llm.testing import FunctionModel, RecordedRequest, tool_response
from thresher.scoring.policy import Escalate
from thresher.tribunal.decisions import Decision
from thresher.tribunal.tribunal import Tribunal, TribunalOptions

VULN_ID = "GHSA-test-0001-0001"
FACTORS = dict.fromkeys(
    (
        "recency",
        "directness",
        "completeness",
        "source_reliability",
        "verification_confidence",
        "test_results",
        "findings_review",
    ),
    8,
)


def project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "project"
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    root.mkdir(exist_ok=True)
    return root


def advisory(
    package: str = "yaml-lib",
    ecosystem: str = "PyPI",
    *,
    introduced: str = "0",
    fixed: str = "2.0.0",
    symbols: tuple[str, ...] = (),
) -> Vulnerability:
    return Vulnerability(
        id=VULN_ID,
        modified=datetime(2024, 1, 1, tzinfo=UTC),
        aliases=("CVE-2024-0001",),
        summary=f"Code execution in {package}.load",
        affected=(
            Affected(
                ecosystem=ecosystem,
                name=package,
                ranges=(
                    AffectedRange(
                        type=RangeType.ECOSYSTEM,
                        events=(RangeEvent(introduced=introduced), RangeEvent(fixed=fixed)),
                    ),
                ),
                symbols=symbols,
            ),
        ),
    )


def dotted(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def simple_range_check(_ecosystem: Ecosystem, version: str, affected: Affected) -> bool | None:
    """A stand-in for ``thresher.deps.versions.affected`` over plain dotted versions."""
    for rng in affected.ranges:
        low = high = None
        for event in rng.events:
            if event.introduced is not None:
                low = (0,) if event.introduced == "0" else dotted(event.introduced)
            if event.fixed is not None:
                high = dotted(event.fixed)
        if low is not None and dotted(version) >= low and (high is None or dotted(version) < high):
            return True
    return False


def dependency_finding(
    package: str = "yaml-lib",
    version: str = "1.0.0",
    *,
    ecosystem: str = "PyPI",
    lockfile: str = "requirements.txt",
    dev: bool | None = None,
    relation: str | None = "direct",
    finding_id: str = "d-1",
) -> Finding:
    return Finding.model_validate(
        {
            "id": finding_id,
            "kind": FindingKind.DEPENDENCY,
            "rule_id": VULN_ID,
            "severity": "high",
            "fingerprint": f"vuln:{package}:{version}",
            "redacted": f"{package}@{version}",
            "locations": [{"path": lockfile, "line": 3}],
            "source": {
                "type": "osv",
                "package": package,
                "version": version,
                "ecosystem": ecosystem,
                "lockfile": lockfile,
                "dev": dev,
                "relation": relation,
            },
        }
    )


def dependency_tribunal(
    root: Path,
    vulns: list[Vulnerability] | None = None,
    *,
    llm: dict[AgentName, Any] | None = None,
    escalate: Escalate = Escalate.UNCERTAIN,
) -> Tribunal:
    factory = SessionFactory(
        settings=Settings(),
        workspace=Workspace(root),
        catalog=InMemoryCatalog(vulns if vulns is not None else [advisory()]),
        range_check=simple_range_check,
    )
    models: dict[AgentName, Any] = dict(llm or {})
    for name in AgentName:
        models.setdefault(name, HeuristicModel())
    return Tribunal(factory, models, TribunalOptions(escalate=escalate))


def decide(tribunal: Tribunal, finding: Finding) -> Decision:
    return asyncio.run(tribunal.decide(finding, None))


class FakeLLM(FunctionModel):
    """A function-driven model that counts as a remote LLM (offline = False)."""

    provider = "fake-llm"

    @property
    def offline(self) -> bool:
        return False


def ledger_ids(request: RecordedRequest) -> dict[str, str]:
    """Tool name -> the ledger id of its (last) successful result in this conversation."""
    ids: dict[str, str] = {}
    for message in request.messages:
        if isinstance(message, ToolResultsMessage):
            for result in message.results:
                if not result.is_error and result.ledger_id:
                    ids[result.name] = result.ledger_id
    return ids


def dependency_agent(
    classification: str,
    *,
    justification: str | None = None,
    cite: str | None = "get_vulnerability",
    requests: list[RecordedRequest] | None = None,
):  # type: ignore[no-untyped-def]
    """An LLM that loads its required skills, reads the finding and the advisory, then
    submits ``classification``; its evidence cites the ``cite`` tool's ledger id (or
    nothing but a skill load when ``cite`` is None)."""

    def respond(request: RecordedRequest) -> ModelResponse:
        if requests is not None:
            requests.append(request)
        info = request.settings.session
        assert info is not None
        if len(request.messages) == 2:
            calls: list[tuple[str, dict[str, Any]]] = [
                *[("skill", {"name": s}) for s in info.required_skills],
                ("get_finding", {"finding_id": info.finding_id}),
            ]
            if info.agent != "judge":
                calls += [
                    ("get_vulnerability", {"id": VULN_ID}),
                    ("find_imports", {"package": "yaml-lib"}),
                ]
            return tool_response(*calls)
        ids = ledger_ids(request)
        cited = [ids[cite]] if cite is not None and cite in ids else [ids.get("skill", "T1")]
        verdict = {
            "affected": "TRUE_POSITIVE",
            "not_affected": "FALSE_POSITIVE",
            "real": "TRUE_POSITIVE",
            "test": "FALSE_POSITIVE",
        }[classification]
        args: dict[str, Any]
        if info.submit_tool == "submit_report":
            args = {
                "classification": classification,
                "verdict": verdict,
                "confidence_factors": FACTORS,
                "confidence_score": 8.0,
                "confidence_label": "high",
                "risk_level": "none" if classification == "not_affected" else "high",
                "key_finding": f"model says {classification}",
                "evidence": [{"claim": "the advisory and the imports", "ledger_ids": cited}],
            }
            if justification is not None:
                args["justification"] = justification
        elif info.submit_tool == "submit_challenge":
            args = {"outcome": "CONFIRMED", "reasoning": "reproduced"}
        else:
            args = {
                "winner_index": 0,
                "rationale": "report 0 holds",
                "final_verdict": verdict,
                "final_classification": classification,
            }
        return tool_response((info.submit_tool, args))

    return respond


def all_llm(classification: str, **kwargs: Any) -> dict[AgentName, Any]:
    return {a: FakeLLM(dependency_agent(classification, **kwargs)) for a in AgentName}
