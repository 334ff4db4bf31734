"""pytest fixtures: one started fake per test (function scope), stopped at teardown."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake


@pytest.fixture
def openai_server() -> Iterator[OpenAIFake]:
    """OpenAI at ``server.api_base`` (``base_url + "/v1"``)."""
    with OpenAIFake() as server:
        yield server


@pytest.fixture
def github_models_server() -> Iterator[OpenAIFake]:
    """OpenAI-compatible GitHub Models at ``server.api_base`` (``base_url + "/inference"``)."""
    with OpenAIFake(path_prefix="/inference") as server:
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicFake]:
    """Anthropic at ``server.base_url`` (the adapter appends ``/v1/messages``)."""
    with AnthropicFake() as server:
        yield server


@pytest.fixture
def gemini_server() -> Iterator[GeminiFake]:
    """Gemini at ``server.base_url`` (adapter appends ``/v1beta/models/{m}:generateContent``)."""
    with GeminiFake() as server:
        yield server
