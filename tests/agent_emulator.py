"""A scripted agent behind each fake provider: it reads the request like a model
would (which tools are offered, whether tool results came back) and answers in
that provider's wire format. ``emulate``: turn 1 loads every skill it is offered and
reads the finding; turn 2 submits a result for its role. ``emulate_diligent`` (the cost
benchmark) follows the agent definitions to the letter and reports realistic usage,
prompt cache included (``tests/fakes/caching.py``)."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.fakes.caching import (
    OPENAI_STEP,
    PromptCache,
    anthropic_blocks,
    gemini_blocks,
    openai_blocks,
    tokens,
)
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


# -- a diligent model with realistic usage (the cost benchmark) ------------------------------

_CATALOG_ENTRY = re.compile(r'<skill name=\\"([a-z0-9-]+)\\"(?: phase=\\"([^"\\]+)\\")?')
INVESTIGATION = ("get_finding", "validate_secret")


def calls_made(
    server: OpenAIFake | AnthropicFake | GeminiFake, body: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """Every tool call the model made earlier in this conversation: (name, arguments)."""
    if isinstance(server, OpenAIFake):
        return [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            for m in body["messages"]
            if m["role"] == "assistant"
            for c in m.get("tool_calls") or []
        ]
    if isinstance(server, AnthropicFake):
        return [
            (b["name"], b["input"])
            for m in body["messages"]
            if m["role"] == "assistant" and isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_use"
        ]
    return [
        (p["functionCall"]["name"], p["functionCall"].get("args") or {})
        for c in body["contents"]
        if c["role"] == "model"
        for p in c["parts"]
        if "functionCall" in p
    ]


def offered_skills(schema: dict[str, Any]) -> tuple[list[str], bool]:
    """The skill names the ``skill`` tool accepts, and whether it takes a list of them."""
    properties = schema["properties"]
    if "names" in properties:
        return list(properties["names"]["items"]["enum"]), True
    return list(properties["name"]["enum"]), False


def diligent_turn(
    server: OpenAIFake | AnthropicFake | GeminiFake, body: dict[str, Any], classification: str
) -> list[tuple[str, dict[str, Any]]]:
    """What a model that follows its instructions to the letter calls next.

    It loads every skill it is offered -- one per request when the ``skill`` tool takes one
    name; one call per catalog phase, all in its first turn together with ``get_finding``,
    when the tool takes a list -- then reads and validates the finding, then submits."""
    tools = tools_of(server, body)
    submit = next(name for name in tools if name.startswith("submit_"))
    made = calls_made(server, body)
    called = {name for name, _ in made}
    loaded = {
        n
        for name, args in made
        if name == "skill"
        for n in ([args["name"]] if "name" in args else args.get("names", []))
    }
    offered, batched = offered_skills(tools["skill"]) if "skill" in tools else ([], False)
    pending = [name for name in offered if name not in loaded]
    finding = {"finding_id": finding_id(body)}
    investigate = [(t, finding) for t in INVESTIGATION if t in tools and t not in called]
    if pending and not batched:
        return [("skill", {"name": pending[0]})]
    if pending:
        phases = dict(_CATALOG_ENTRY.findall(json.dumps(body)))
        groups: dict[str, list[str]] = {}
        for name in pending:
            groups.setdefault(phases.get(name, ""), []).append(name)
        return [("skill", {"names": names}) for _, names in sorted(groups.items())] + [
            call for call in investigate if call[0] == "get_finding"
        ]
    if investigate:
        return investigate
    return [(submit, submission(submit, classification))]


def emulate_diligent(
    server: OpenAIFake | AnthropicFake | GeminiFake,
    classification: str = "real",
    cache: PromptCache | None = None,
) -> PromptCache:
    """Install a diligent responder (``diligent_turn``) on ``server`` that reports the usage
    the real provider would: the prompt's size, and what its prompt cache served."""
    cache = cache or PromptCache()

    def respond(request: CapturedRequest, index: int) -> Reply:
        body = request.json()
        calls = diligent_turn(server, body, classification)
        out = tokens(len(json.dumps(calls)))
        if isinstance(server, OpenAIFake):
            used = cache.automatic(openai_blocks(body), OPENAI_STEP)
            return server.tool_calls(
                [(f"call_{index}_{i}", n, json.dumps(a)) for i, (n, a) in enumerate(calls)],
                (used.input_tokens, out, used.cached),
            )
        if isinstance(server, AnthropicFake):
            blocks, marks = anthropic_blocks(body)
            used = cache.breakpoints(blocks, marks)
            fresh = used.input_tokens - used.cached - used.written
            return server.tool_use(
                [(f"toolu_{index}_{i}", n, a) for i, (n, a) in enumerate(calls)],
                usage=(fresh, out, used.cached, used.written),
            )
        used = cache.automatic(gemini_blocks(body))
        return server.function_calls(calls, usage=(used.input_tokens, out, used.cached))

    server.responder = respond
    return cache
