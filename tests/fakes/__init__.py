"""Real loopback HTTP servers speaking the OpenAI, Anthropic and Gemini wire protocols.

Usage::

    from tests.fakes import OpenAIFake

    with OpenAIFake() as server:
        server.enqueue(server.text("hello"), server.rate_limited(retry_after_seconds=1))
        ...  # point the adapter at server.api_base (OpenAI) or server.base_url
        assert server.requests[0].json()["model"] == "gpt-4o"
"""

from tests.fakes.base import CapturedRequest, FakeServer, Reply, Responder
from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake

__all__ = [
    "AnthropicFake",
    "CapturedRequest",
    "FakeServer",
    "GeminiFake",
    "OpenAIFake",
    "Reply",
    "Responder",
]
