"""Wire-level value types shared by every fake: the captured request and the scripted reply."""

from __future__ import annotations

import json
import secrets
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qs, urlsplit

_ALPHANUMERIC = string.ascii_letters + string.digits


def random_id(prefix: str, length: int) -> str:
    """``prefix`` followed by ``length`` random letters and digits, like provider ids."""
    return prefix + "".join(secrets.choice(_ALPHANUMERIC) for _ in range(length))


def seconds_header(seconds: float) -> str:
    """Format a retry-after style value: ``"2"`` for whole seconds, else ``"0.5"``."""
    return str(int(seconds)) if float(seconds).is_integer() else repr(float(seconds))


@dataclass(frozen=True)
class CapturedRequest:
    """One request as the server received it. ``headers`` keys are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body decoded as JSON (raises ``ValueError`` if it is not JSON)."""
        return json.loads(self.body)

    @property
    def route(self) -> str:
        """The path without the query string."""
        return urlsplit(self.path).path

    @property
    def query(self) -> dict[str, list[str]]:
        """The query string, parsed."""
        return parse_qs(urlsplit(self.path).query)

    def header(self, name: str, default: str | None = None) -> str | None:
        """A header by case-insensitive name."""
        return self.headers.get(name.lower(), default)


@dataclass(frozen=True)
class Reply:
    """What the server sends back for one request.

    ``delay`` waits before answering (interrupted at server shutdown); ``drop`` closes the
    connection without any response; ``cut_after`` sends the full ``Content-Length`` but only
    that many body bytes, then closes (a connection lost mid-body); ``drip`` sends the status
    and headers (announcing a huge body), then one byte of whitespace every ``drip`` seconds
    until the client gives up or the server stops: no read timeout ever fires.
    """

    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    delay: float = 0.0
    drop: bool = False
    cut_after: int | None = None
    drip: float | None = None

    @classmethod
    def json_(
        cls,
        status: int,
        body: Any,
        headers: Mapping[str, str] | None = None,
        *,
        content_type: str = "application/json",
    ) -> Reply:
        """A JSON reply (UTF-8, compact like the real APIs)."""
        payload = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return cls(status, payload, dict(headers or {}), content_type)

    @classmethod
    def raw(
        cls,
        status: int,
        body: bytes,
        content_type: str = "text/plain; charset=utf-8",
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """A reply with exactly these body bytes."""
        return cls(status, body, dict(headers or {}), content_type)

    @classmethod
    def dropped(cls, delay: float = 0.0) -> Reply:
        """Close the connection (after ``delay``) without sending a response."""
        return cls(status=0, drop=True, delay=delay)

    @classmethod
    def dripping(cls, interval: float) -> Reply:
        """A 200 whose body arrives one byte every ``interval`` seconds, forever."""
        return cls(status=200, drip=interval)

    def with_delay(self, seconds: float) -> Reply:
        return replace(self, delay=seconds)

    def with_headers(self, headers: Mapping[str, str]) -> Reply:
        return replace(self, headers={**self.headers, **headers})

    def truncated(self, after_bytes: int) -> Reply:
        """This reply, but the connection dies after ``after_bytes`` bytes of body."""
        return replace(self, cut_after=after_bytes)

    def json(self) -> Any:
        """The body decoded as JSON, for assertions on a built reply."""
        return json.loads(self.body)


Responder = Callable[[CapturedRequest, int], Reply]
