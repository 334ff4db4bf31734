"""Redaction: raw secret values never reach a provider, a log or a file.

A ``Redactor`` does two things to every prompt, tool result, transcript line, log
message and report before it leaves the process:

- it replaces every candidate value of the run with its redacted form
  (``ghp_…Xk2 (40 chars)``);
- with a ``Detector`` (``thresher.redaction.detector``), it replaces every other
  secret-shaped value in the text with a stable token
  (``[REDACTED:github-token:3f2a]``), and remembers the value, so a later mention
  in a context no rule recognises is redacted too.

Neither pass touches a redacted form already in the text: redacting twice gives
what redacting once gave. A replaced value that spans lines leaves as many line
breaks behind, so line numbers after it stay true.

Redaction is by value, so it must not touch structure: a candidate value that
happens to equal a rule name ("Secret Keyword"), a path or an id would otherwise
rewrite the finding it belongs to. Fields that are structure say so once, where
they are declared, with ``Annotated[str, Structural]``; ``Redactor.model`` reads
that marker, so every writer that redacts a model (journal, report, transcript)
keeps them without a list of special cases of its own.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, MutableMapping
from enum import Enum
from typing import Any, TypeVar

import ahocorasick  # type: ignore[import-not-found]
from pydantic import BaseModel

from thresher.redaction.detector import Detector, Found
from thresher.redaction.fields import Structural as Structural
from thresher.redaction.fields import is_model as _is_model
from thresher.redaction.fields import text_fields as _text_fields
from thresher.redaction.forms import REDACTED_FORMS as _REDACTED_FORMS
from thresher.redaction.forms import TOKEN_FORM, hides
from thresher.redaction.forms import bounded as _bounded
from thresher.redaction.forms import outside as _outside
from thresher.redaction.forms import redact_value as redact_value
from thresher.redaction.forms import redaction_token as redaction_token
from thresher.redaction.forms import within as _within

_MIN_LENGTH = 4
_PENDING_MAX = 256  # learned values matched apart before the main automaton is rebuilt
_CACHE_SIZE = 4096
# The text cache holds more: an offline run redacts some 20,000 distinct short texts (ids,
# paths, rationales), and a path or a rule's text recurs findings apart. Its characters
# are bounded instead (keys and their redacted texts: tens of MB at worst), so windows of
# files read once cannot grow it without bound.
_TEXT_CACHE_SIZE = 32768
_TEXT_CACHE_CHARS = 4 * 1024 * 1024
_CACHE_TEXT_CHARS = 64 * 1024  # prompts and skills repeat; a 5 MB file read once does not
_FRESH_CHECKS = 32  # values learned since a text was cached that are looked for in it
_AUTOMATON_CHARS = 64  # characters of a value its automaton holds (``_automaton_of``)
# A detected value this long is remembered for the rest of the run. Longer ones are not:
# they are not quoted from memory, and a long periodic value ("password=" x 6000)
# would make the automaton's pass quadratic.
_LEARN_LENGTHS = range(8, 257)
T = TypeVar("T")
# Leaves of a model that hold no text: returned as they are.
_PLAIN = (Enum, int, float, type(None))
# The exact types of the commonest such leaves, checked by identity before ``_PLAIN``.
_LEAVES: frozenset[type] = frozenset({int, float, bool, type(None)})


class Redactor:
    """Replaces every registered value, and with a detector every secret-shaped one.

    Known values are matched with an Aho-Corasick automaton: one pass over the text
    whatever the number of values, which matters with thousands of candidates in a
    run. Overlapping matches are merged, so no part of any value survives. Tools may
    run on worker threads, so changes to the set of values are made under a lock.
    """

    def __init__(self, values: Iterable[str] = (), *, detector: Detector | None = None) -> None:
        self._values: dict[str, str] = {}
        self._automaton: Any = None
        # Values added since the main automaton was built, matched by a small one of their
        # own: detection learns values one at a time during a run, and rebuilding the main
        # automaton over thousands of values for each of them cost seconds per run.
        self._pending: list[str] = []
        self._pending_automaton: Any = None
        # What ``_compiled`` returns, until a value is added: every text redacted asks
        # for it, and taking the lock to rebuild the same tuple cost as much as matching
        # a short text.
        self._automata: tuple[Any, ...] | None = None
        # A text's redacted form, and how many values were known when it was redacted.
        # Learning a value does not clear it (detection learns about one a finding): an
        # entry is still right while none of the values learned since occurs in its text
        # (``_fresh``), since a value that does not occur adds no span.
        self._cache: dict[str, tuple[str, int]] = {}
        self._order: list[str] = []  # the values in the order they were added
        self._cached_chars = 0  # the texts' characters in ``_cache`` (its keys), about
        # What the detector found in a text. Unlike ``_cache`` it holds across learned
        # values: detection does not depend on them, and it is the costly part.
        self._detections: dict[str, list[Found]] = {}
        self._detector = detector
        # The slugs of the tokens this redactor may write (its detector's, and those of
        # tokens handed to ``add``), and whether a form of any other shape was: ``hides``.
        self._slugs: frozenset[str] = detector.slugs if detector is not None else frozenset()
        self._odd_forms = False
        # Changed by every ``add`` that changes what redaction does (a new value, a new
        # form of a known one): ``leaves`` answers once a version.
        self._version = 0
        self._left: dict[frozenset[str], tuple[int, bool]] = {}
        self._undetected: dict[frozenset[str], bool] = {}
        self._lock = threading.Lock()
        for value in values:
            self.add(value)

    def add(self, value: str, redacted: str | None = None) -> None:
        if len(value) >= _MIN_LENGTH:
            form = redacted or redact_value(value)
            if redacted is not None:  # a learned token, most often: matched first
                token = TOKEN_FORM.fullmatch(redacted)
                if token is not None:
                    if token.group(1) not in self._slugs:  # replaced whole: ``hides`` reads it
                        self._slugs = self._slugs | {token.group(1)}
                elif redacted != redact_value(value):
                    self._odd_forms = True
            with self._lock:
                old = self._values.get(value)
                if old is None:
                    self._pending.append(value)
                    self._pending_automaton = None
                elif old != form:
                    self._cache.clear()  # a known value's form changed: every entry may hold it
                    self._cached_chars = 0
                if old != form:
                    self._version += 1
                self._values[value] = form
                if len(self._pending) > _PENDING_MAX:
                    self._automaton, self._pending = None, []  # fold them into the main one
                self._automata = None
                if old is None:
                    # Counted last: a text that counts this value (``text`` reads the count
                    # first) is matched with automata rebuilt after it was added.
                    self._order.append(value)

    def hides(self, value: str, line: str) -> bool:
        """Whether ``value`` cannot be on ``line`` once any text holding the line is
        redacted by this redactor (``thresher.redaction.forms.hides``): then whoever reads
        only that need not redact the text. False when it cannot be shown cheaply."""
        if self._odd_forms or value not in self._values:  # shorter ones are never added
            return False
        return hides(value, line, self._slugs)

    def leaves(self, words: frozenset[str]) -> bool:
        """Whether redacting any of ``words`` now gives it back as it is and learns
        nothing: no known value lies in it and the detector finds nothing there. Then
        whoever would redact only these words (``thresher.tribunal.offline_calls``: the
        value profile's vocabulary) may skip it, or do it later while this holds. Asks
        the detector without learning, once for the words; the known values once a
        ``_version``."""
        version = self._version
        left = self._left.get(words)
        if left is not None and left[0] == version:
            return left[1]
        undetected = self._undetected.get(words)
        if undetected is None:
            detector = self._detector
            undetected = detector is None or not any(detector.find(w) for w in words)
            self._undetected[words] = undetected
        answer = undetected and not any(self._known_in(w) for w in words)
        self._left[words] = (version, answer)
        return answer

    def _known_in(self, text: str) -> bool:
        """Whether a known value would be replaced in ``text`` (as ``_redact`` does)."""
        return bool(self._known(text, [m.span() for m in _REDACTED_FORMS.finditer(text)]))

    def __bool__(self) -> bool:
        return bool(self._values) or self._detector is not None

    def _compiled(self) -> tuple[Any, ...]:
        """The automata to match: the main one, and the pending values' when there are any."""
        automata = self._automata
        if automata is not None:
            return automata
        with self._lock:
            if self._automaton is None and self._values:
                self._automaton = _automaton_of(self._values)
                self._pending, self._pending_automaton = [], None
            if self._pending and self._pending_automaton is None:
                self._pending_automaton = _automaton_of(self._pending)
            both = (self._automaton, self._pending_automaton if self._pending else None)
            self._automata = tuple(a for a in both if a is not None)
            return self._automata

    def _known(self, text: str, forms: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """Where known values occur in ``text``, each with its form, except inside one
        of the redacted ``forms`` already there."""
        if not self._values:
            return []
        spans: list[tuple[int, int, str]] = []
        for automaton in self._compiled():
            for last, (length, values) in automaton.iter(text):
                start = last - length + 1
                for value in values:  # those whose first ``length`` characters end here
                    end = start + len(value)
                    whole = len(value) == length or text.startswith(value, start)
                    outside = whole and not _within(start, end, forms)
                    if outside and _bounded(text, start, end, value):
                        spans.append((start, end, self._values[value]))
        return spans

    def _detected(self, text: str, forms: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """Detections outside the redacted forms already in the text, and learned."""
        if self._detector is None:
            return []
        found = self._detections.get(text)
        if found is None:
            found = self._detector.find(text)
            if len(text) <= _CACHE_TEXT_CHARS:
                if len(self._detections) >= _CACHE_SIZE:
                    self._detections.clear()
                self._detections[text] = found
        spans: list[tuple[int, int, str]] = []
        for hit in found:
            for start, end in _outside(hit.start, hit.end, forms):
                value = text[start:end]
                if value.strip():
                    spans.append((start, end, redaction_token(hit.slug, value)))
        self._learn(found)
        return spans

    def _learn(self, found: list[Found]) -> None:
        """Remember what was detected, so that ``hunter2horse`` quoted alone later, where
        no rule would recognise it, is redacted as it was in ``PASSWORD=hunter2horse``."""
        new: dict[str, str] = {}
        for hit in found:  # the first rule to find a value names it, as in the text
            if len(hit.value) in _LEARN_LENGTHS and hit.value not in self._values:
                new.setdefault(hit.value, redaction_token(hit.slug, hit.value))
        for value, token in new.items():
            self.add(value, token)

    def _redact(self, text: str) -> str:
        forms = [m.span() for m in _REDACTED_FORMS.finditer(text)]
        # Detected first: what it learns is a known value here too, so a value quoted
        # bare after ``PASSWORD=`` in the same text is replaced, as in every later one.
        detected = self._detected(text, forms)
        spans = self._known(text, forms) + detected
        if not spans:
            return text
        # Sorted by start, longest first: a region takes the form of its longest value.
        spans.sort(key=lambda s: (s[0], s[0] - s[1]))
        merged: list[list[Any]] = []
        for start, end, form in spans:
            if merged and start < merged[-1][1]:
                region = merged[-1]
                if end - start > region[3]:
                    region[2], region[3] = form, end - start
                region[1] = max(region[1], end)
            else:
                merged.append([start, end, form, end - start])
        out: list[str] = []
        cursor = 0
        for start, end, form, _ in merged:
            out.append(text[cursor:start])
            out.append(form + "\n" * text.count("\n", start, end))
            cursor = end
        out.append(text[cursor:])
        return "".join(out)

    def text(self, text: str) -> str:
        if not text or not (self._values or self._detector is not None):  # ``not self``
            return text
        # Prompts, skill bodies and catalogs repeat in every session: remember them.
        entry = self._cache.get(text)
        if entry is not None:
            cached, known = entry
            if known == len(self._order) or self._fresh(text, cached, known):
                return cached
        known = len(self._order)  # read first: values learned while redacting count
        cached = self._redact(text)
        if len(text) <= _CACHE_TEXT_CHARS:
            chars = self._cached_chars + len(text)
            if len(self._cache) >= _TEXT_CACHE_SIZE or chars > _TEXT_CACHE_CHARS:
                self._cache.clear()
                chars = len(text)
            self._cached_chars = chars
            self._cache[text] = (cached, known)
        return cached

    def _fresh(self, text: str, cached: str, known: int) -> bool:
        """Whether no value added after the first ``known`` occurs in ``text``: then its
        redaction is what it was. Few values are learned between two redactions of one
        text; past ``_FRESH_CHECKS`` of them the text is redacted again instead."""
        since = self._order[known:]
        if len(since) > _FRESH_CHECKS:
            return False
        for value in since:
            if value in text:
                return False
        self._cache[text] = (cached, known + len(since))
        return True

    def data(self, value: Any) -> Any:
        """Redact string values anywhere inside dicts, lists and tuples.

        Keys are left alone: they are field names, and a short candidate value that
        happens to be a word ("error") must not corrupt a structure's shape. Plain
        data carries no declaration of which values are structure, so every value is
        redacted: a model is redacted with ``model`` before it is dumped, never after.
        """
        kind: type = type(value)
        if kind is str:  # exact types first: tool data is mostly plain str, int and bool
            return self.text(value)
        if kind in _LEAVES:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            # A dict's plain strings and numbers are handled here, without a call of
            # ``data`` each: tool data is mostly flat dicts of them, walked per finding.
            text, leaves = self.text, _LEAVES
            out = {}
            for key, item in value.items():
                kind = type(item)
                if kind is str:
                    out[key] = text(item)
                elif kind in leaves:
                    out[key] = item
                else:
                    out[key] = self.data(item)
            return out
        if type(value) is list:  # built without a generator: tool data is mostly lists
            return [self.data(v) for v in value]
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
        # Only what changed is copied: a report holds thousands of decisions, most of
        # whose parts (locations, checks, compliance) have nothing to redact, and a
        # copy of each cost more than the redaction itself.
        updates: dict[str, Any] = {}
        for name in _text_fields(type(value)):
            old = getattr(value, name)
            new = self._deep(old)
            if new is not old:
                updates[name] = new
        return value.model_copy(update=updates) if updates else value

    def _deep(self, value: Any) -> Any:
        # Loops rather than any()/all() over generators: a run walks hundreds of
        # thousands of values, nearly all of which come back as they were. The exact
        # types come first, by identity: most values are plain str, int, float or None.
        kind: type = type(value)
        if kind is str:
            redacted = self.text(value)
            return value if redacted is value or redacted == value else redacted
        if kind in _LEAVES:
            return value
        if kind is tuple or kind is list:
            # Nothing is built unless a part changes: most come back as they were.
            for index, old in enumerate(value):
                new = self._deep(old)
                if new is not old:
                    rest = [self._deep(v) for v in value[index + 1 :]]
                    return kind([*value[:index], new, *rest])
            return value
        if _is_model(kind):
            return self._model(value)
        if kind is dict:
            for key, old in value.items():
                new = self._deep(old)
                if new is not old:
                    items = dict(value)
                    items[key] = new
                    seen = False
                    for k, v in value.items():  # the rest, after the first change
                        if seen:
                            items[k] = self._deep(v)
                        seen = seen or k == key
                    return items
            return value
        # Anything else (subclasses of str, enums, other containers) as it always was.
        if isinstance(value, str):
            if type(value) is not str and isinstance(value, Enum):
                return value  # a StrEnum member is structure
            redacted = self.text(value)
            return value if redacted is value or redacted == value else redacted
        if isinstance(value, BaseModel):
            return self._model(value)
        if isinstance(value, _PLAIN):
            return value
        if isinstance(value, dict):
            items = {k: self._deep(v) for k, v in value.items()}
            for k, v in value.items():
                if items[k] is not v:
                    return items
            return value
        if isinstance(value, list | tuple):
            parts = [self._deep(v) for v in value]
            for new, old in zip(parts, value, strict=True):
                if new is not old:
                    return type(value)(parts)
            return value
        return value

    @property
    def version(self) -> int:
        """Changes whenever what redaction does changes (a value added, a known value's
        form changed): while it holds, redacting equal data gives equal results."""
        return self._version

    @property
    def known(self) -> int:
        """How many values the redactor knows; it only grows (``learned_since``). Counted
        as ``add`` counts them, last: a value counted is one the automata match."""
        return len(self._order)

    def learned_since(self, known: int) -> list[tuple[str, str]]:
        """The values added after ``known`` was read, with their redacted forms: what a
        text redacted then may still hold."""
        with self._lock:
            return [(value, self._values[value]) for value in self._order[known:]]


def _automaton_of(values: Iterable[str]) -> Any:
    """An automaton of the values' first ``_AUTOMATON_CHARS`` characters, each with the values
    that start so (``_known`` checks the rest where one matches). A node a character
    held every value whole: the private keys and certificates of a run (a kilobyte or
    more each) made it 20 MB on the dev corpus; prefixes keep it a few."""
    by_prefix: dict[str, list[str]] = {}
    for value in values:
        by_prefix.setdefault(value[:_AUTOMATON_CHARS], []).append(value)
    automaton = ahocorasick.Automaton()
    for prefix, starting in by_prefix.items():
        automaton.add_word(prefix, (len(prefix), tuple(starting)))
    automaton.make_automaton()
    return automaton


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
