"""The three provider fakes. Builders are static methods, e.g. ``OpenAIFake.text("hi")``;
the same functions live in :mod:`tests.fakes.openai`, :mod:`tests.fakes.anthropic` and
:mod:`tests.fakes.gemini`.

Each server validates route, method, credentials and the JSON body the way the real API does
and answers rejections itself, in the provider's error shape, without consuming the script.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any, ClassVar

from tests.fakes import anthropic, gemini, openai
from tests.fakes.base import CapturedRequest, FakeServer, Reply, Responder

__all__ = [
    "AnthropicFake",
    "CapturedRequest",
    "FakeServer",
    "GeminiFake",
    "OpenAIFake",
    "Reply",
    "Responder",
]


def _json_object(request: CapturedRequest) -> dict[str, Any] | None:
    """The body if it is a JSON object, else None."""
    try:
        body = request.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


class OpenAIFake(FakeServer):
    """``POST {path_prefix}/chat/completions`` with ``Authorization: Bearer <key>``.

    ``path_prefix`` defaults to ``/v1`` (api.openai.com); use ``""`` or ``"/inference"`` for
    GitHub Models style base URLs. :attr:`api_base` is ``base_url + path_prefix``.
    """

    provider: ClassVar[str] = "openai"
    server_header: ClassVar[str] = "cloudflare"

    text = staticmethod(openai.text)
    tool_calls = staticmethod(openai.tool_calls)
    tool_calls_invalid_json = staticmethod(openai.tool_calls_invalid_json)
    error = staticmethod(openai.error)
    rate_limited = staticmethod(openai.rate_limited)
    quota_exhausted = staticmethod(openai.quota_exhausted)
    server_error = staticmethod(openai.server_error)
    overloaded = staticmethod(openai.overloaded)
    context_length_exceeded = staticmethod(openai.context_length_exceeded)
    github_rate_limited = staticmethod(openai.github_rate_limited)

    def __init__(
        self,
        *,
        path_prefix: str = "/v1",
        api_key: str | None = None,
        require_auth: bool = True,
        models: Collection[str] | None = None,
    ) -> None:
        super().__init__(api_key=api_key, require_auth=require_auth, models=models)
        self.path_prefix = path_prefix.rstrip("/")

    @property
    def api_base(self) -> str:
        return self.base_url + self.path_prefix

    @classmethod
    def default_reply(cls) -> Reply:
        return openai.text("ok")

    def error_reply(self, status: int, message: str) -> Reply:
        return openai.error(
            status, message, "server_error" if status >= 500 else "invalid_request_error"
        )

    def check(self, request: CapturedRequest) -> Reply | None:
        if request.method != "POST" or request.route != f"{self.path_prefix}/chat/completions":
            return openai.not_found(request.method, request.route)
        if self.require_auth:
            scheme, _, key = (request.header("authorization") or "").partition(" ")
            if scheme.lower() != "bearer" or not key.strip():
                return openai.missing_api_key()
            if self.api_key is not None and key.strip() != self.api_key:
                return openai.invalid_api_key(key.strip())
        body = _json_object(request)
        if body is None:
            return openai.invalid_json_body()
        if self.models is not None and body.get("model") not in self.models:
            return openai.model_not_found(str(body.get("model")))
        return None


class AnthropicFake(FakeServer):
    """``POST /v1/messages`` with ``x-api-key`` and ``anthropic-version`` headers.

    Missing ``x-api-key`` -> 401 ``authentication_error``; missing ``anthropic-version`` ->
    400 ``invalid_request_error`` (what the real API sends).
    """

    provider: ClassVar[str] = "anthropic"
    server_header: ClassVar[str] = "cloudflare"

    text = staticmethod(anthropic.text)
    tool_use = staticmethod(anthropic.tool_use)
    error = staticmethod(anthropic.error)
    overloaded = staticmethod(anthropic.overloaded)
    rate_limited = staticmethod(anthropic.rate_limited)
    server_error = staticmethod(anthropic.server_error)
    invalid_request = staticmethod(anthropic.invalid_request)
    authentication_error = staticmethod(anthropic.authentication_error)
    credit_balance_too_low = staticmethod(anthropic.credit_balance_too_low)

    @classmethod
    def default_reply(cls) -> Reply:
        return anthropic.text("ok")

    def error_reply(self, status: int, message: str) -> Reply:
        return anthropic.error(
            status, "api_error" if status >= 500 else "invalid_request_error", message
        )

    def check(self, request: CapturedRequest) -> Reply | None:
        if request.method != "POST" or request.route != "/v1/messages":
            return anthropic.not_found()
        if self.require_auth:
            key = (request.header("x-api-key") or "").strip()
            if not key:
                return anthropic.missing_api_key()
            if self.api_key is not None and key != self.api_key:
                return anthropic.authentication_error()
            if not (request.header("anthropic-version") or "").strip():
                return anthropic.missing_version()
        body = _json_object(request)
        if body is None:
            return anthropic.invalid_request("There was an error parsing the body of your request")
        if self.models is not None and body.get("model") not in self.models:
            return anthropic.model_not_found(str(body.get("model")))
        return None


class GeminiFake(FakeServer):
    """``POST /{api_version}/models/{model}:generateContent`` (default ``v1beta``).

    The key is read from ``x-goog-api-key`` (or the ``?key=`` query parameter). Missing ->
    403 PERMISSION_DENIED; wrong (when ``api_key`` is set) -> 400 API_KEY_INVALID.
    """

    provider: ClassVar[str] = "gemini"
    server_header: ClassVar[str] = "scaffolding on HTTPServer2"

    text = staticmethod(gemini.text)
    function_calls = staticmethod(gemini.function_calls)
    blocked = staticmethod(gemini.blocked)
    error = staticmethod(gemini.error)
    rate_limited = staticmethod(gemini.rate_limited)
    quota_exhausted = staticmethod(gemini.quota_exhausted)
    server_error = staticmethod(gemini.server_error)
    unavailable = staticmethod(gemini.unavailable)
    invalid_argument = staticmethod(gemini.invalid_argument)

    def __init__(
        self,
        *,
        api_version: str = "v1beta",
        api_key: str | None = None,
        require_auth: bool = True,
        models: Collection[str] | None = None,
    ) -> None:
        super().__init__(api_key=api_key, require_auth=require_auth, models=models)
        self.api_version = api_version
        self._route = re.compile(
            rf"^/{re.escape(api_version)}/models/(?P<model>[A-Za-z0-9._-]+):generateContent$"
        )

    def requested_model(self, request: CapturedRequest) -> str | None:
        """The ``{model}`` segment of a generateContent path."""
        match = self._route.match(request.route)
        return match["model"] if match else None

    @classmethod
    def default_reply(cls) -> Reply:
        return gemini.text("ok")

    def error_reply(self, status: int, message: str) -> Reply:
        return gemini.error(status, "INTERNAL" if status >= 500 else "INVALID_ARGUMENT", message)

    def check(self, request: CapturedRequest) -> Reply | None:
        model = self.requested_model(request)
        if request.method != "POST" or model is None:
            return gemini.not_found()
        if self.require_auth:
            key = (request.header("x-goog-api-key") or "").strip()
            key = key or (request.query.get("key") or [""])[0].strip()
            if not key:
                return gemini.missing_api_key()
            if self.api_key is not None and key != self.api_key:
                return gemini.invalid_api_key()
        try:
            body = request.json()
        except ValueError:
            return gemini.invalid_json_body()
        if not isinstance(body, dict):
            message = f"Invalid JSON payload received. Expected an object: {json.dumps(body)[:40]}"
            return gemini.invalid_argument(message)
        if self.models is not None and model not in self.models:
            return gemini.model_not_found(model, self.api_version)
        return None
