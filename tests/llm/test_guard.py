"""A real provider request during tests fails loudly instead of reaching the internet."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import NetworkAccessError
from thresher.agents.registry import build_model
from thresher.config.settings import Settings
from thresher.llm.messages import ModelSettings, UserMessage


@pytest.mark.parametrize(
    "spec",
    [
        "openai:gpt-4o",
        "anthropic:claude-sonnet-4-5",
        "gemini:gemini-2.5-pro",
        "github:openai/gpt-4.1",
    ],
)
def test_default_provider_urls_are_unreachable_from_tests(spec: str) -> None:
    env = {
        "OPENAI_API_KEY": "k",
        "ANTHROPIC_API_KEY": "k",
        "GEMINI_API_KEY": "k",
        "GITHUB_TOKEN": "k",
    }
    model = build_model(spec, Settings(), env)

    async def go() -> None:
        try:
            await model.request([UserMessage(text="hi")], [], ModelSettings())
        finally:
            await model.aclose()

    with pytest.raises(NetworkAccessError, match="only loopback allowed"):
        asyncio.run(go())
