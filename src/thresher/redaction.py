"""Redaction: raw secret values never reach a provider, a log or a file.

A ``Redactor`` knows every candidate value of the run and replaces each with its
redacted form. Every prompt, tool result, transcript line and log message
passes through it before it leaves the process.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, MutableMapping
from typing import Any, TypeVar

from pydantic import BaseModel

_PREFIX = re.compile(r"^([A-Za-z]{2,12}[_-]|AKIA|ASIA|AIza|SG\.|eyJ)")
_MIN_LENGTH = 4
_CACHE_SIZE = 4096
_ANYWHERE_LENGTH = 12

T = TypeVar("T")


def redact_value(value: str) -> str:
    """``ghp_…Xk2 (40 chars)``: a known prefix, the last 3 characters, the length.

    Values under 12 characters show nothing but their length, so a short
    password cannot be guessed from what is shown.
    """
    length = len(value)
    if length < 12:
        return f"…({length} chars)"
    match = _PREFIX.match(value)
    prefix = match.group(1) if match else ""
    return f"{prefix}…{value[-3:]} ({length} chars)"


def _token(value: str) -> str:
    """A short value matches only as a token, not inside a longer word ("passw" in
    "passwords"); a long one matches anywhere, even glued to other text."""
    if len(value) >= _ANYWHERE_LENGTH:
        return re.escape(value)
    left = r"(?<![A-Za-z0-9])" if value[0].isalnum() else ""
    right = r"(?![A-Za-z0-9])" if value[-1].isalnum() else ""
    return left + re.escape(value) + right


class Redactor:
    """Replaces every registered value, longest first, in text and structures."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None
        self._cache: dict[str, str] = {}
        for value in values:
            self.add(value)

    def add(self, value: str, redacted: str | None = None) -> None:
        if len(value) >= _MIN_LENGTH:
            self._values[value] = redacted or redact_value(value)
            self._pattern = None
            self._cache.clear()

    def __bool__(self) -> bool:
        return bool(self._values)

    def _compiled(self) -> re.Pattern[str] | None:
        if not self._values:
            return None
        if self._pattern is None:
            ordered = sorted(self._values, key=len, reverse=True)
            self._pattern = re.compile("|".join(_token(v) for v in ordered))
        return self._pattern

    def text(self, text: str) -> str:
        pattern = self._compiled()
        if pattern is None or not text:
            return text
        # Prompts, skill bodies and catalogs repeat in every session: remember them.
        cached = self._cache.get(text)
        if cached is None:
            cached = pattern.sub(lambda m: self._values[m.group(0)], text)
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            self._cache[text] = cached
        return cached

    def data(self, value: Any) -> Any:
        """Redact string values anywhere inside dicts, lists and tuples.

        Keys are left alone: they are field names, and a short candidate value that
        happens to be a word ("error") must not corrupt a structure's shape.
        """
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.data(v) for v in value)
        return value

    def model(self, value: T) -> T:
        """A pydantic model with every string field redacted (same type back)."""
        if not self or not isinstance(value, BaseModel):
            return value
        cleaned = self.data(value.model_dump(mode="python"))
        return type(value).model_validate(cleaned)


class RedactingLogger(logging.LoggerAdapter[logging.Logger]):
    """A logger whose messages pass the redactor before any handler sees them."""

    def __init__(self, logger: logging.Logger, redactor: Redactor) -> None:
        super().__init__(logger, {})
        self.redactor = redactor

    def process(
        self, msg: Any, kwargs: MutableMapping[str, Any]
    ) -> tuple[Any, MutableMapping[str, Any]]:
        return self.redactor.text(str(msg)), kwargs

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        if self.isEnabledFor(level):
            text = str(msg) % args if args else str(msg)
            super().log(level, text, **kwargs)
