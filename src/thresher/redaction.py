"""Redaction: raw secret values never reach a provider, a log or a file.

A ``Redactor`` knows every candidate value of the run and replaces each with its
redacted form. Every prompt, tool result, transcript line and log message
passes through it before it leaves the process.

Redaction is by value, so it must not touch structure: a candidate value that
happens to equal a rule name ("Secret Keyword"), a path or an id would otherwise
rewrite the finding it belongs to. Fields that are structure say so once, where
they are declared, with ``Annotated[str, Structural]``; ``Redactor.model`` reads
that marker, so every writer that redacts a model (journal, report, transcript)
keeps them without a list of special cases of its own.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, MutableMapping
from enum import Enum
from typing import Any, Final, Literal, TypeVar, final, get_origin

import ahocorasick  # type: ignore[import-not-found]
from pydantic import BaseModel
from pydantic.fields import FieldInfo

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


@final
class _StructuralMarker:
    """The type of ``Structural``; one instance, compared by identity."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Structural"


Structural: Final = _StructuralMarker()
"""Field metadata: ``rule_id: Annotated[str, Structural]`` is never redacted.

For ids, rule and model names, paths, fingerprints and names from a closed set that
is typed as ``str``. Enum and ``Literal`` fields are structural by their type and
need no marker; free text (rationales, claims, details, messages) must not carry it.

Why a marker on the field rather than a set of key names checked in the dumped
JSON: a key name means different things in different models (``name`` is a check
in one and a tool in another; ``path`` is structure in a location but free text a
model chose in a tool's arguments), and a set kept apart from the models drifts
when a field is added. The marker sits on the declaration, is checked by mypy like
any annotation, and leaves the models' JSON schemas unchanged. A marked field of a
model type (``source``) is structural as a whole.
"""


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
        happens to be a word ("error") must not corrupt a structure's shape. Plain
        data carries no declaration of which values are structure, so every value is
        redacted: a model is redacted with ``model`` before it is dumped, never after.
        """
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.data(v) for v in value)
        return value

    def model(self, value: T) -> T:
        """A pydantic model with every free-text field redacted (same type back).

        ``Literal`` fields, enum members (a message's ``role``, a part's ``kind``)
        and fields marked ``Structural`` (a finding's ``rule_id``, its paths) are
        structure, not text: a candidate value that happens to equal one
        ("assistant", "Secret Keyword") must neither turn the model into one that no
        longer validates nor rename the rule or the file it is reported under.
        """
        if not self or not isinstance(value, BaseModel):
            return value
        return self._model(value)  # type: ignore[return-value]

    def _model(self, value: BaseModel) -> BaseModel:
        updates = {
            name: self._deep(getattr(value, name))
            for name, info in type(value).model_fields.items()
            if not _is_structural(info)
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


def _is_structural(info: FieldInfo) -> bool:
    """Whether a model field is structure that redaction leaves as it is."""
    return get_origin(info.annotation) is Literal or any(m is Structural for m in info.metadata)


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
