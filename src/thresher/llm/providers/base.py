"""What every HTTP wire adapter shares: the provider it speaks through, and how
an error body becomes a message and the arguments of a ``ProviderError``."""

from __future__ import annotations

from typing import Any

import httpx

from thresher.llm.http import HttpProvider, error_json, short_body
from thresher.llm.model import Model


class HttpModel(Model):
    def __init__(self, provider: HttpProvider, model_name: str) -> None:
        self.http = provider
        self.provider = provider.name
        self.model_name = model_name

    async def aclose(self) -> None:
        await self.http.aclose()

    def error_parts(self, response: httpx.Response) -> tuple[dict[str, Any], str, dict[str, Any]]:
        """(the error object of the body, its message, ProviderError keyword arguments)."""
        error = error_json(response).get("error")
        info: dict[str, Any] = error if isinstance(error, dict) else {}
        message = str(info.get("message") or response.reason_phrase or "request failed")
        args: dict[str, Any] = {
            "provider": self.provider,
            "status": response.status_code,
            "body": short_body(response),
        }
        return info, message, args
