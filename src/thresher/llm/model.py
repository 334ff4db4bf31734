"""The one model interface every provider, the heuristic and the test models implement."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from thresher.llm.messages import Message, ModelResponse, ModelSettings, ToolDefinition


class Model(ABC):
    """``request`` sends one conversation and returns one response; nothing more.

    Retries, timeouts and error translation happen inside; what leaves is a
    ``ModelResponse`` or a ``ProviderError``.
    """

    provider: str
    model_name: str

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model_name}"

    @property
    def offline(self) -> bool:
        """True when requests never leave the process (heuristic, test models)."""
        return False

    @abstractmethod
    async def request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition],
        settings: ModelSettings,
    ) -> ModelResponse: ...

    async def aclose(self) -> None:
        """Release the HTTP client, if any; offline models hold none."""
        return None
