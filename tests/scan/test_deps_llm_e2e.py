"""An affected dependency decided by the LLM tribunal end to end: ``run_scan`` with
``--deps`` against the loopback OSV fake and a loopback OpenAI fake whose scripted
agents read the advisory and the project's imports before they answer.

The offline heuristic cannot clear jinja2 2.11.2, which ``app.py`` imports, so it is
escalated; the analyst and the challenger go through the dependency tools over the real
wire protocol, and the judge's ``affected`` is the decision every report carries. The
dev-only lodash is settled offline and never reaches the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agent_emulator import FACTORS, finding_id, has_results, tools_of
from tests.cli.deps_project import JINJA_ID, LODASH_ID, make_project, osv_world
from tests.fakes.osv import OsvFake
from tests.fakes.servers import OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply
from thresher.config.settings import (
    AgentName,
    AgentSettings,
    ProviderName,
    ProviderSettings,
    Settings,
)
from thresher.errors import ExitCode
from thresher.findings.results import Classification, Verdict
from thresher.reports import render_sarif
from thresher.reports.vex import build_vex
from thresher.scan.outcome import FailOn, ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.policy import Escalate
from thresher.sources.dependencies import DepsOptions
from thresher.tribunal.decisions import DecidedBy

MODEL = "openai:gpt-4.1"


def _submission(tool: str) -> dict[str, Any]:
    if tool == "submit_report":
        return {
            "classification": "affected",
            "verdict": "TRUE_POSITIVE",
            "confidence_factors": FACTORS,
            "confidence_score": 8.0,
            "confidence_label": "high",
            "risk_level": "high",
            "key_finding": "app.py renders user text with jinja2.Template: the advisory's sink.",
            "evidence": [
                {"claim": "app.py imports jinja2 and renders templates", "ledger_ids": ["T1"]}
            ],
            "remediation": ["Upgrade jinja2 to 2.11.3 or later."],
        }
    if tool == "submit_challenge":
        return {
            "outcome": "CONFIRMED",
            "reasoning": "find_imports shows app.py importing jinja2 outside tests.",
            "verification_reproduced": True,
            "verification_result": "matches",
        }
    return {
        "winner_index": 0,
        "scores": [{"index": 0, "score": 9, "rationale": "cites the import and the advisory"}],
        "rationale": "Report 0 shows the vulnerable package in the execute path.",
        "final_verdict": "TRUE_POSITIVE",
        "final_classification": "affected",
    }


def _dependency_analyst(server: OpenAIFake) -> list[set[str]]:
    """Script every agent; returns the tool names offered on each first turn."""
    offered: list[set[str]] = []

    def respond(request: CapturedRequest, index: int) -> Reply:
        body = request.json()
        tools = tools_of(server, body)
        submit = next(name for name in tools if name.startswith("submit_"))
        if has_results(server, body):
            return server.tool_calls([("submit", submit, json.dumps(_submission(submit)))])
        offered.append(set(tools))
        skills = tools["skill"]["properties"]["name"]["enum"]
        calls = [(f"s{i}", "skill", {"name": s}) for i, s in enumerate(skills)]
        calls.append(("f", "get_finding", {"finding_id": finding_id(body)}))
        if "get_vulnerability" in tools:
            calls.append(("v", "get_vulnerability", {"id": JINJA_ID}))
        if "find_imports" in tools:
            calls.append(("i", "find_imports", {"package": "jinja2"}))
        return server.tool_calls([(i, n, json.dumps(a)) for i, n, a in calls])

    server.responder = respond
    return offered


def test_an_affected_dependency_is_decided_by_the_llm_tribunal(
    tmp_path: Path, openai_server: OpenAIFake
) -> None:
    root = make_project(tmp_path / "project")
    offered = _dependency_analyst(openai_server)
    settings = Settings(
        agents={agent: AgentSettings(model=MODEL) for agent in AgentName},
        providers={ProviderName.OPENAI: ProviderSettings(base_url=openai_server.api_base)},
    )
    with OsvFake(osv_world()) as osv:
        outcome = run_scan(
            ScanRequest(
                root=root,
                runs_dir=tmp_path / "runs",
                escalate=Escalate.UNCERTAIN,
                fail_on=FailOn.REAL,
                secrets=False,
                deps=DepsOptions(osv_url=osv.base_url, cache_dir=tmp_path / "cache"),
            ),
            settings,
            environ={"OPENAI_API_KEY": "loopback-test-key"},
        )

    by_rule = {d.finding.rule_id: d for d in outcome.report.decisions}
    jinja, lodash = by_rule[JINJA_ID], by_rule[LODASH_ID]
    assert jinja.escalated and jinja.decided_by is DecidedBy.TRIBUNAL and not jinja.errors
    assert jinja.classification is Classification.AFFECTED
    assert jinja.verdict is Verdict.TRUE_POSITIVE
    assert jinja.judge is not None and jinja.judge.final_classification == "affected"
    assert not lodash.escalated and lodash.classification is Classification.NOT_AFFECTED
    assert outcome.exit_code is ExitCode.FINDINGS  # an affected dependency fails --fail-on real

    # The agents were offered the dependency tools, used them over the wire, and read
    # the advisory and the import back as tool results.
    assert offered and all({"get_vulnerability", "find_imports"} & tools for tools in offered)
    sent = "\n".join(r.body.decode() for r in openai_server.requests)
    assert JINJA_ID in sent and "app.py" in sent
    assert LODASH_ID not in sent  # settled offline, never sent to the provider

    sarif = json.loads(render_sarif(outcome.report))
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == [JINJA_ID]
    vex = build_vex(outcome.report)
    assert vex is not None
    statuses = {s["vulnerability"]["name"]: s["status"] for s in vex["statements"]}
    assert statuses == {JINJA_ID: "affected", LODASH_ID: "not_affected"}
