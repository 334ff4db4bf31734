"""``models check``: one minimal tool-calling request per configured agent."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from thresher.agents.registry import build_model
from thresher.config.settings import AgentName, Settings
from thresher.errors import ThresherError
from thresher.llm.messages import ModelSettings, SystemMessage, ToolDefinition, UserMessage
from thresher.llm.model import Model

PING = ToolDefinition(
    name="ping",
    description="Confirms the connection works.",
    parameters={"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
)


@dataclass(frozen=True)
class CheckResult:
    agent: AgentName
    spec: str
    ok: bool
    detail: str
    seconds: float


async def _check_one(agent: AgentName, spec: str, model: Model) -> CheckResult:
    started = time.perf_counter()
    if model.offline:
        return CheckResult(agent, spec, True, "offline model: no request needed", 0.0)
    try:
        response = await model.request(
            [
                SystemMessage(text="You are a connectivity check. Call the ping tool."),
                UserMessage(text="Call ping with ok=true."),
            ],
            [PING],
            ModelSettings(max_tokens=64),
        )
    except ThresherError as exc:
        return CheckResult(agent, spec, False, str(exc), time.perf_counter() - started)
    finally:
        await model.aclose()
    called = any(call.name == "ping" for call in response.tool_calls)
    detail = (
        f"ok: {'called the tool' if called else 'answered without calling the tool'} "
        f"({response.usage.input_tokens}+{response.usage.output_tokens} tokens)"
    )
    return CheckResult(agent, spec, True, detail, time.perf_counter() - started)


def check_models(
    specs: Mapping[AgentName, str], settings: Settings, environ: Mapping[str, str] | None = None
) -> Sequence[CheckResult]:
    """Check each agent's model; a model that cannot even be built is a failed check."""

    async def run() -> list[CheckResult]:
        tasks = []
        results: list[CheckResult] = []
        for agent, spec in specs.items():
            try:
                model = build_model(spec, settings, environ)
            except ThresherError as exc:
                results.append(CheckResult(agent, spec, False, str(exc), 0.0))
                continue
            tasks.append(_check_one(agent, spec, model))
        results += await asyncio.gather(*tasks)
        order = list(specs)
        return sorted(results, key=lambda r: order.index(r.agent))

    return asyncio.run(run())
