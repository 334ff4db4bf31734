"""Minimal valid requests per provider, sent with plain httpx (used by the self-tests)."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tests.fakes.servers import AnthropicFake, FakeServer, OpenAIFake

OPENAI_HEADERS = {"authorization": "Bearer sk-test"}
ANTHROPIC_HEADERS = {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01"}
GEMINI_HEADERS = {"x-goog-api-key": "AIza-test"}
GEMINI_PATH = "/v1beta/models/gemini-2.5-flash:generateContent"

Call = Callable[..., httpx.Response]


def endpoint(server: FakeServer) -> tuple[str, dict[str, str], dict[str, object]]:
    """The URL, headers and a minimal valid JSON body for this provider."""
    if isinstance(server, OpenAIFake):
        url, headers = f"{server.api_base}/chat/completions", OPENAI_HEADERS
        body: dict[str, object] = {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "hi"}],
        }
    elif isinstance(server, AnthropicFake):
        url, headers = f"{server.base_url}/v1/messages", ANTHROPIC_HEADERS
        body = {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": []}
    else:
        url, headers = f"{server.base_url}{GEMINI_PATH}", GEMINI_HEADERS
        body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    return url, headers, body


def caller(server: FakeServer) -> Call:
    """POST a minimal valid request for this provider; keyword args go to httpx."""
    url, headers, body = endpoint(server)

    def call(**kwargs: object) -> httpx.Response:
        kwargs.setdefault("json", body)
        kwargs.setdefault("headers", headers)
        kwargs.setdefault("timeout", 5.0)
        return httpx.post(url, **kwargs)  # type: ignore[arg-type]

    return call
