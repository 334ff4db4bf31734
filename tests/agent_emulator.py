"""A scripted agent behind each fake provider: it reads the request like a model
would (which tools are offered, whether tool results came back) and answers in
that provider's wire format. Turn 1 loads every skill it is offered and reads the
finding; turn 2 submits a result for its role."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply

FACTORS = {
    "recency": 8,
    "directness": 8,
    "completeness": 7,
    "source_reliability": 8,
    "verification_confidence": 8,
    "test_results": 7,
    "findings_review": 8,
}


def tools_of(
    server: OpenAIFake | AnthropicFake | GeminiFake, body: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    if isinstance(server, OpenAIFake):
        return {t["function"]["name"]: t["function"]["parameters"] for t in body["tools"]}
    if isinstance(server, AnthropicFake):
        return {t["name"]: t["input_schema"] for t in body["tools"]}
    return {d["name"]: d["parameters"] for d in body["tools"][0]["functionDeclarations"]}


def has_results(server: OpenAIFake | AnthropicFake | GeminiFake, body: dict[str, Any]) -> bool:
    if isinstance(server, OpenAIFake):
        return any(m["role"] == "tool" for m in body["messages"])
    if isinstance(server, AnthropicFake):
        return any(
            isinstance(m["content"], list)
            and any(b.get("type") == "tool_result" for b in m["content"])
            for m in body["messages"]
        )
    return any("functionResponse" in p for c in body["contents"] for p in c["parts"])


def finding_id(body: dict[str, Any]) -> str:
    text = json.dumps(body)
    marker = "finding `"
    start = text.index(marker) + len(marker)
    return text[start : text.index("`", start)]


def submission(tool: str, classification: str) -> dict[str, Any]:
    verdict = "TRUE_POSITIVE" if classification == "real" else "FALSE_POSITIVE"
    if tool == "submit_report":
        return {
            "classification": classification,
            "verdict": verdict,
            "confidence_factors": FACTORS,
            "confidence_score": 7.7,
            "confidence_label": "high",
            "risk_level": "high" if verdict == "TRUE_POSITIVE" else "none",
            "key_finding": f"The model judges this value {classification}.",
            "evidence": [{"claim": "read the finding", "ledger_ids": ["T1"]}],
            "remediation": ["Rotate the credential."],
        }
    if tool == "submit_challenge":
        return {
            "outcome": "CONFIRMED",
            "reasoning": "Reproduced the evidence.",
            "verification_reproduced": True,
            "verification_result": "matches",
        }
    return {
        "winner_index": 0,
        "scores": [{"index": 0, "score": 8, "rationale": "sound"}],
        "rationale": "Report 0 is consistent and well cited.",
        "final_verdict": verdict,
        "final_classification": classification,
    }


def emulate(server: OpenAIFake | AnthropicFake | GeminiFake, classification: str = "real"):  # type: ignore[no-untyped-def]
    """Install a responder on ``server`` that plays whichever agent calls it."""

    def respond(request: CapturedRequest, index: int) -> Reply:
        body = request.json()
        tools = tools_of(server, body)
        submit = next(name for name in tools if name.startswith("submit_"))
        if has_results(server, body):
            calls = [("submit", submit, submission(submit, classification))]
        else:
            skills = tools["skill"]["properties"]["name"]["enum"]
            calls = [(f"s{i}", "skill", {"name": s}) for i, s in enumerate(skills)]
            calls.append(("f", "get_finding", {"finding_id": finding_id(body)}))
        if isinstance(server, OpenAIFake):
            return server.tool_calls([(i, n, json.dumps(a)) for i, n, a in calls])
        if isinstance(server, AnthropicFake):
            return server.tool_use(calls)
        return server.function_calls([(n, a) for _, n, a in calls])

    server.responder = respond
