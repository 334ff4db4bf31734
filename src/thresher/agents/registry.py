"""``provider:model`` strings -> models, with base URLs and keys from settings.

Keys come from environment variables named in settings (defaults: the official
ones) and travel only as ``SecretStr`` into request headers — never into URLs,
argv or logs. ``describe`` reports what a model would use without building it.

Timeouts, attempts and the circuit-breaker threshold come from the ``http``
settings table. ``build_models`` (or ``build_model`` with one ``ProviderPool``)
gives the agents of a run that use the same provider one ``HttpProvider``, so
its circuit breaker counts every request the run sends there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import httpx
from pydantic import SecretStr

from thresher.config.settings import AgentName, ProviderName, Settings
from thresher.heuristic.model import HeuristicModel
from thresher.llm.errors import ModelConfigError
from thresher.llm.http import HttpProvider, RetryPolicy, Sleep, Timeouts
from thresher.llm.model import Model
from thresher.llm.providers.anthropic import AnthropicModel, anthropic_headers
from thresher.llm.providers.gemini import GeminiModel, gemini_headers
from thresher.llm.providers.openai import OpenAIChatModel, bearer

DEFAULT_MODEL = "heuristic:default"
K = TypeVar("K")


@dataclass(frozen=True)
class ProviderDefaults:
    base_url: str | None
    key_envs: tuple[str, ...]
    key_required: bool


DEFAULTS: dict[ProviderName, ProviderDefaults] = {
    ProviderName.OPENAI: ProviderDefaults("https://api.openai.com/v1", ("OPENAI_API_KEY",), True),
    ProviderName.GITHUB: ProviderDefaults(
        "https://models.github.ai/inference", ("GITHUB_TOKEN",), True
    ),
    ProviderName.OLLAMA: ProviderDefaults("http://localhost:11434/v1", ("OLLAMA_API_KEY",), False),
    ProviderName.OPENAI_COMPATIBLE: ProviderDefaults(None, (), False),
    ProviderName.ANTHROPIC: ProviderDefaults(
        "https://api.anthropic.com", ("ANTHROPIC_API_KEY",), True
    ),
    ProviderName.GEMINI: ProviderDefaults(
        "https://generativelanguage.googleapis.com", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), True
    ),
    ProviderName.HEURISTIC: ProviderDefaults(None, (), False),
}


@dataclass(frozen=True)
class ModelInfo:
    """What an agent's model resolves to; safe to print (no key)."""

    agent: AgentName | None
    spec: str
    provider: ProviderName
    model_name: str
    base_url: str | None
    key_env: str | None
    key_present: bool
    key_required: bool


def parse_spec(spec: str) -> tuple[ProviderName, str]:
    provider, sep, model = spec.partition(":")
    if not sep or not model:
        raise ModelConfigError(
            f"model '{spec}' is not 'provider:model'",
            hint="for example openai:gpt-4o or heuristic:default",
        )
    try:
        return ProviderName(provider), model
    except ValueError:
        known = ", ".join(p.value for p in ProviderName)
        raise ModelConfigError(
            f"unknown provider '{provider}' in '{spec}'", hint=f"known providers: {known}"
        ) from None


def agent_model_spec(agent: AgentName, settings: Settings, definition_model: str) -> str:
    """Config (and flags) override the agent file's model."""
    return settings.agent(agent).model or definition_model


def describe(
    spec: str,
    settings: Settings,
    environ: Mapping[str, str] | None = None,
    agent: AgentName | None = None,
) -> ModelInfo:
    env = os.environ if environ is None else environ
    provider, model_name = parse_spec(spec)
    defaults = DEFAULTS[provider]
    configured = settings.provider(provider)
    envs = (configured.api_key_env,) if configured.api_key_env else defaults.key_envs
    key_env = next((name for name in envs if env.get(name)), envs[0] if envs else None)
    return ModelInfo(
        agent=agent,
        spec=spec,
        provider=provider,
        model_name=model_name,
        base_url=configured.base_url or defaults.base_url,
        key_env=key_env,
        key_present=bool(key_env and env.get(key_env)),
        key_required=defaults.key_required or bool(configured.api_key_env),
    )


@dataclass
class ProviderPool:
    """The ``HttpProvider`` of each provider, built once per run and shared."""

    providers: dict[ProviderName, HttpProvider] = field(default_factory=dict)


def build_models(
    specs: Mapping[K, str],
    settings: Settings,
    environ: Mapping[str, str] | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> dict[K, Model]:
    """One model per key (agent), sharing one ``HttpProvider`` per provider."""
    pool = ProviderPool()
    return {
        key: build_model(spec, settings, environ, transport=transport, pool=pool)
        for key, spec in specs.items()
    }


def build_model(
    spec: str,
    settings: Settings,
    environ: Mapping[str, str] | None = None,
    *,
    retry: RetryPolicy | None = None,
    sleep: Sleep | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    pool: ProviderPool | None = None,
) -> Model:
    """A model for ``spec``; ``retry`` replaces the policy built from ``settings.http``."""
    env = os.environ if environ is None else environ
    info = describe(spec, settings, env)
    if info.provider is ProviderName.HEURISTIC:
        return HeuristicModel(info.model_name)
    http = pool.providers.get(info.provider) if pool is not None else None
    if http is None:
        http = _http_provider(spec, info, settings, env, retry, sleep, transport)
        if pool is not None:
            pool.providers[info.provider] = http
    match info.provider:
        case ProviderName.ANTHROPIC:
            return AnthropicModel(http, info.model_name)
        case ProviderName.GEMINI:
            return GeminiModel(http, info.model_name)
        case ProviderName.OPENAI:
            return OpenAIChatModel(http, info.model_name)
        case ProviderName.GITHUB | ProviderName.OLLAMA | ProviderName.OPENAI_COMPATIBLE:
            return OpenAIChatModel(http, info.model_name, max_tokens_field="max_tokens")
        case ProviderName.HEURISTIC:
            return HeuristicModel(info.model_name)


def _http_provider(
    spec: str,
    info: ModelInfo,
    settings: Settings,
    env: Mapping[str, str],
    retry: RetryPolicy | None,
    sleep: Sleep | None,
    transport: httpx.AsyncBaseTransport | None,
) -> HttpProvider:
    if info.base_url is None:
        raise ModelConfigError(
            f"provider '{info.provider.value}' needs a base_url",
            hint=f"set [tool.thresher.providers.{info.provider.value}] base_url, e.g. "
            "http://127.0.0.1:8000/v1",
        )
    if info.key_required and not info.key_present:
        raise ModelConfigError(
            f"no API key for '{spec}': environment variable {info.key_env} is not set",
            hint=f"export {info.key_env}, or set providers.{info.provider.value}.api_key_env",
        )
    key = SecretStr(env[info.key_env]) if info.key_env and env.get(info.key_env) else None
    headers: Callable[[SecretStr | None], dict[str, str]]
    match info.provider:
        case ProviderName.ANTHROPIC:
            headers = anthropic_headers
        case ProviderName.GEMINI:
            headers = gemini_headers
        case _:
            headers = bearer
    http = settings.http
    return HttpProvider(
        info.provider.value,
        info.base_url,
        key,
        auth_headers=headers,
        retry=retry or RetryPolicy(max_attempts=http.max_attempts),
        timeouts=Timeouts(
            connect=http.connect_timeout, read=http.read_timeout, total=http.total_timeout
        ),
        breaker_failures=http.breaker_failures,
        sleep=sleep,
        transport=transport,
    )
