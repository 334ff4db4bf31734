"""Wire a real agent session to a provider's loopback fake."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply
from tests.tokens import github_token
from thresher.agents.registry import build_model
from thresher.agents.sessions import SessionFactory
from thresher.config.settings import (
    AgentName,
    HttpSettings,
    ProviderName,
    ProviderSettings,
    Settings,
)
from thresher.findings import Finding
from thresher.llm.http import RetryPolicy
from thresher.llm.model import Model
from thresher.redaction.redactor import Redactor, redact_value

KEY = "test-key-not-secret"
ENV = {
    "OPENAI_API_KEY": KEY,
    "ANTHROPIC_API_KEY": KEY,
    "GEMINI_API_KEY": KEY,
    "GITHUB_TOKEN": KEY,
    "COMPAT_KEY": KEY,
}

REPORT: dict[str, Any] = {
    "classification": "real",
    "verdict": "TRUE_POSITIVE",
    "confidence_factors": {
        "recency": 7,
        "directness": 8,
        "completeness": 7,
        "source_reliability": 8,
        "verification_confidence": 8,
        "test_results": 7,
        "findings_review": 7,
    },
    "confidence_score": 7.4,
    "confidence_label": "high",
    "risk_level": "high",
    "key_finding": "A checksum-valid GitHub token in production settings.",
    "evidence": [{"claim": "the finding", "ledger_ids": ["T1"]}],
    "remediation": ["Revoke the token."],
}


@dataclass
class Recorder:
    delays: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def settings_for(
    provider: ProviderName, base_url: str, http: HttpSettings | None = None
) -> Settings:
    providers = {provider: ProviderSettings(base_url=base_url)}
    if provider is ProviderName.OPENAI_COMPATIBLE:
        providers = {provider: ProviderSettings(base_url=base_url, api_key_env="COMPAT_KEY")}
    return Settings(providers=providers, http=http or HttpSettings())


def model_for(
    provider: ProviderName,
    base_url: str,
    name: str = "test-model",
    *,
    sleep: Recorder | None = None,
    attempts: int = 4,
    http: HttpSettings | None = None,
) -> Model:
    return build_model(
        f"{provider.value}:{name}",
        settings_for(provider, base_url, http),
        ENV,
        retry=RetryPolicy(max_attempts=attempts, base_delay=0.01, max_delay=5),
        sleep=sleep or Recorder(),
    )


def make_finding(value: str | None = None) -> tuple[Finding, str]:
    secret = value or github_token()
    finding = Finding.model_validate(
        {
            "id": "f-gh-1",
            "rule_id": "GitHub Token",
            "fingerprint": "sha256:test",
            "redacted": redact_value(secret),
            "locations": [{"path": "config/settings.py", "line": 12}],
        }
    )
    return finding, secret


def factory(settings: Settings, secret: str, tmp_path: Path | None = None) -> SessionFactory:
    return SessionFactory(settings=settings, redactor=Redactor([secret]), transcripts_dir=tmp_path)


Encoder = Callable[[list[tuple[str, str, dict[str, Any]]]], Reply]


def encoder_for(server: OpenAIFake | AnthropicFake | GeminiFake) -> Encoder:
    """Tool calls [(id, name, args)] in the provider's response shape."""
    if isinstance(server, OpenAIFake):
        return lambda calls: server.tool_calls(
            [(i, n, json.dumps(a)) for i, n, a in calls], usage=(100, 20)
        )
    if isinstance(server, AnthropicFake):
        return lambda calls: server.tool_use(calls, usage=(100, 20))
    return lambda calls: server.function_calls(
        [(n, a) for _, n, a in calls], thought_signature="c2lnLTE=", usage=(100, 20)
    )


def analysis_script(
    server: OpenAIFake | AnthropicFake | GeminiFake, required: list[str]
) -> Callable[[CapturedRequest, int], Reply]:
    encode = encoder_for(server)

    def respond(request: CapturedRequest, index: int) -> Reply:
        if index == 0:
            calls = [(f"call_{k}", "skill", {"name": s}) for k, s in enumerate(required)]
            calls.append(("call_f", "get_finding", {"finding_id": "f-gh-1"}))
            return encode(calls)
        return encode([("call_submit", "submit_report", REPORT)])

    return respond


def build_analysis(
    provider: ProviderName,
    server: OpenAIFake | AnthropicFake | GeminiFake,
    base_url: str,
    tmp_path: Path,
) -> tuple[Any, str, AgentName]:
    finding, secret = make_finding()
    settings = settings_for(provider, base_url)
    sessions = factory(settings, secret, tmp_path)
    required = list(
        sessions.build(
            AgentName.ANALYSIS, model_for(provider, base_url), finding, secret
        ).info.required_skills
    )
    server.responder = analysis_script(server, required)
    session = sessions.build(AgentName.ANALYSIS, model_for(provider, base_url), finding, secret)
    return session, secret, AgentName.ANALYSIS
