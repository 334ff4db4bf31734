"""Redaction: raw secret values never reach a provider, a log or a file.

A ``Redactor`` knows every candidate value of the run and replaces each with its
redacted form. Every prompt, tool result, transcript line and log message
passes through it before it leaves the process.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, MutableMapping
from enum import Enum
from typing import Any, Literal, TypeVar, get_origin

import ahocorasick  # type: ignore[import-not-found]
from pydantic import BaseModel

# Only well-known provider prefixes are shown: they identify the token type and are
# public. Any other leading text (a human-chosen password's first word) stays hidden.
_PREFIX = re.compile(
    r"^(gh[pousr]_|github_pat_|xox[abprse]-|xapp-|(?:sk|rk|pk)_(?:live|test)_|whsec_|"
    r"AKIA|ASIA|AIza|SG\.|npm_|pypi-|glpat-|sk-proj-|sk-ant-|sk-|eyJ|-----BEGIN )"
)
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


def _bounded(text: str, start: int, end: int, value: str) -> bool:
    """A short value counts only as a token, not inside a longer word ("passw" in
    "passwords"); a long one counts anywhere, even glued to other text."""
    if len(value) >= _ANYWHERE_LENGTH:
        return True
    if value[0].isalnum() and start > 0 and text[start - 1].isascii() and text[start - 1].isalnum():
        return False
    return not (
        value[-1].isalnum() and end < len(text) and text[end].isascii() and text[end].isalnum()
    )


class Redactor:
    """Replaces every registered value in text and structures.

    Matching uses an Aho-Corasick automaton: one pass over the text whatever the
    number of values, which matters with thousands of candidates in a run.
    Overlapping matches are merged, so no part of any value survives.
    """

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values: dict[str, str] = {}
        self._automaton: Any = None
        self._cache: dict[str, str] = {}
        for value in values:
            self.add(value)

    def add(self, value: str, redacted: str | None = None) -> None:
        if len(value) >= _MIN_LENGTH:
            self._values[value] = redacted or redact_value(value)
            self._automaton = None
            self._cache.clear()

    def __bool__(self) -> bool:
        return bool(self._values)

    def _compiled(self) -> Any:
        if self._automaton is None and self._values:
            automaton = ahocorasick.Automaton()
            for value in self._values:
                automaton.add_word(value, value)
            automaton.make_automaton()
            self._automaton = automaton
        return self._automaton

    def _redact(self, text: str) -> str:
        spans: list[tuple[int, int, str]] = []
        for last, value in self._compiled().iter(text):
            start, end = last - len(value) + 1, last + 1
            if _bounded(text, start, end, value):
                spans.append((start, end, value))
        if not spans:
            return text
        spans.sort()
        merged: list[list[Any]] = []
        for start, end, value in spans:
            if merged and start < merged[-1][1]:
                region = merged[-1]
                region[1] = max(region[1], end)
                if len(value) > len(region[2]):
                    region[2] = value
            else:
                merged.append([start, end, value])
        out: list[str] = []
        cursor = 0
        for start, end, value in merged:
            out.append(text[cursor:start])
            out.append(self._values[value])
            cursor = end
        out.append(text[cursor:])
        return "".join(out)

    def text(self, text: str) -> str:
        if not self._values or not text:
            return text
        # Prompts, skill bodies and catalogs repeat in every session: remember them.
        cached = self._cache.get(text)
        if cached is None:
            cached = self._redact(text)
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
        """A pydantic model with every string field redacted (same type back).

        ``Literal`` fields and enum members (a message's ``role``, a part's ``kind``)
        are structure, not text: a candidate value that happens to equal one
        ("assistant") must not turn the model into one that no longer validates.
        """
        if not self or not isinstance(value, BaseModel):
            return value
        return self._model(value)  # type: ignore[return-value]

    def _model(self, value: BaseModel) -> BaseModel:
        updates = {
            name: self._deep(getattr(value, name))
            for name, info in type(value).model_fields.items()
            if get_origin(info.annotation) is not Literal
        }
        return value.model_copy(update=updates)

    def _deep(self, value: Any) -> Any:
        if isinstance(value, BaseModel):
            return self._model(value)
        if isinstance(value, Enum):
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self._deep(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self._deep(v) for v in value)
        return value


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
