"""Stand-ins for detect-secrets plugins whose regexes backtrack: the same values,
in time linear in the line.

Measured on 60 kB lines, several plugins took from seconds to hours: the keyword
plugin (see ``keyword_re2``), the JWT, npm and OpenAI plugins (an unbounded run
scanned again from every start, until a character that never comes), and the
Cloudant, IBM and SoftLayer plugins (``(?: *)(?:=|:| +|...)(?: *)`` tries every way
to split a run of blanks, the cube of its length). A stand-in is a subclass of the
plugin, so detect-secrets' filters treat it as the original; only the regex work
changes:

- a plugin whose regexes use nothing RE2 lacks, without flags, runs them on RE2,
  with ``\\d``, ``\\w`` and ``\\s`` spelled as Python's classes (``re2_classes``);
  ``findall`` returns what Python's does, and ``$`` means the same on a stripped line;
- the Cloudant, IBM and SoftLayer plugins see the line with every run of three or
  more blanks shortened to two. Their patterns allow any number of blanks where they
  allow one or more, and no value they report holds a blank, so they report the same
  values; each start then costs a bounded number of steps.

The high-entropy plugins keep their regex; they build a ``PotentialSecret`` (and its
hash) for every quoted run on the line, then keep those whose entropy passes the
limit: on most lines, none. Their stand-in first asks whether any run can pass (a run
shorter than ``2 ** limit`` never can: its entropy is at most the log of its length)
and answers an empty set at once when none does; otherwise the plugin runs as it is.

``tests/findings/test_plugins_re2.py`` compares every stand-in with its original.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterable, Mapping
from functools import cache
from typing import Any

from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
    HighEntropyStringsPlugin,
)

from thresher.findings import triggers
from thresher.findings.keyword_re2 import keyword_stand_in
from thresher.findings.re2_classes import compile_re2, python_class, searchable
from thresher.findings.textpass import Linear

_BLANK_RUNS = re.compile(" {3,}")
_SPACED = {"CloudantDetector", "IbmCloudIamDetector", "IbmCosHmacDetector", "SoftlayerDetector"}
# Constructs RE2 lacks, or that mean something else there.
_UNSUPPORTED = re.compile(r"\(\?[=!<P]|\(\?[a-zA-Z]|\\[bBWSDAZ1-9]")
_CLASS_ESCAPES = {"d": r"\d", "w": r"\w", "s": r"\s"}


def translate(pattern: str) -> str | None:
    """The pattern for RE2, or None when it uses what RE2 cannot do the same way."""
    if _UNSUPPORTED.search(pattern):
        return None
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escape = pattern[index + 1]
            if escape in _CLASS_ESCAPES:
                items = python_class(_CLASS_ESCAPES[escape])
                out.append(items if in_class else f"[{items}]")
            else:
                out.append(pattern[index : index + 2])
            index += 2
            continue
        if char == "[" and not in_class:
            in_class = True
            out.append(char)
            index += 1
            for literal in ("^", "]"):  # "[^" and a leading "]" are not the end
                if pattern.startswith(literal, index):
                    out.append(literal)
                    index += 1
            continue
        if char == "]" and in_class:
            in_class = False
        out.append(char)
        index += 1
    return "".join(out)


class _Twin:
    """``findall`` on RE2, for ``RegexBasedDetector.analyze_string``."""

    def __init__(self, program: Any) -> None:
        self._program = program

    def findall(self, string: str) -> list[Any]:
        found: list[Any] = self._program.findall(searchable(string))
        return found


@cache
def _twins(patterns: tuple[tuple[str, int], ...]) -> tuple[_Twin, ...] | None:
    """RE2 programs for a plugin's regexes, or None if any of them cannot be one."""
    twins: list[_Twin] = []
    for pattern, flags in patterns:
        rewritten = translate(pattern) if flags == re.UNICODE else None
        if rewritten is None:
            return None
        try:
            twins.append(_Twin(compile_re2(rewritten)))
        except Exception:  # re2.error: a repetition RE2 cannot count, say
            return None
    return tuple(twins)


def _regex_stand_in(plugin: RegexBasedDetector) -> Any | None:
    found = _twins(tuple((p.pattern, p.flags) for p in plugin.denylist))
    if found is None:
        return None
    twins: tuple[_Twin, ...] = found

    class OnRe2(type(plugin)):  # type: ignore[misc]
        """The plugin with its regexes on RE2."""

        @property
        def denylist(self) -> Iterable[Any]:
            return twins

    OnRe2.__name__ = OnRe2.__qualname__ = type(plugin).__name__
    return _copy(plugin, OnRe2)


def _spaced_stand_in(plugin: RegexBasedDetector) -> Any:
    class Spaced(type(plugin)):  # type: ignore[misc]
        """The plugin on the line with long runs of blanks shortened."""

        def analyze_string(self, string: str) -> Generator[str, None, None]:
            yield from super().analyze_string(_BLANK_RUNS.sub("  ", string))

    Spaced.__name__ = Spaced.__qualname__ = type(plugin).__name__
    return _copy(plugin, Spaced)


_ENTROPIES_KEPT = 512  # values whose entropy a stand-in keeps (a few lines' worth)

# The sources the entropy stand-in's early answer was proved against: another release
# may keep values ``analyze_line`` drops, and the stand-in is then left out.
_ENTROPY_SOURCES = ("eb176c2d81693235", "697232dc06eea437")


@cache
def _known_entropy_sources() -> bool:
    import hashlib
    import inspect

    from detect_secrets.plugins import high_entropy_strings
    from detect_secrets.plugins.base import BasePlugin

    try:
        sources = (
            inspect.getsource(high_entropy_strings),
            inspect.getsource(BasePlugin.analyze_line),
        )
    except (OSError, TypeError):
        return False
    digests = tuple(hashlib.sha256(text.encode()).hexdigest()[:16] for text in sources)
    return digests == _ENTROPY_SOURCES


def _entropy_stand_in(plugin: HighEntropyStringsPlugin) -> Any:
    if not _known_entropy_sources():
        return None
    minimum = triggers.min_entropy_length(plugin.entropy_limit)

    class Gated(type(plugin)):  # type: ignore[misc]
        """The plugin, answering at once on a line where no value can pass."""

        # The last line asked and its answer: the prefilter asks ``search`` of a line
        # before it hands the line over, and ``analyze_line`` asks it again.
        _asked: tuple[str, bool] = ("", False)
        _entropies: dict[str, float]  # value -> its entropy, for the last values asked

        def search(self, line: str, /) -> bool:
            """Whether a value on ``line`` passes the limit: else the plugin reports
            nothing there (the prefilter asks this before it hands a line over).

            The entropy of a value is at most log2 of the number of distinct characters
            it holds (of its length, too), and the plugin's own sum stays within far
            less than the margin of ``min_entropy_length``: a value with fewer distinct
            characters than that cannot pass, and its entropy is not computed."""
            asked, answer = self._asked
            if line == asked and line:
                return answer
            answer = any(
                len(set(value)) >= minimum
                and self.calculate_shannon_entropy(value) > self.entropy_limit
                for value in self.analyze_string(line)
            )
            self._asked = (line, answer)
            return answer

        def calculate_shannon_entropy(self, data: str) -> float:
            """The plugin's own entropy, kept for the values of the last lines: the
            plugin computes it again for each value ``search`` passed."""
            known: dict[str, float] | None = self.__dict__.get("_entropies")
            if known is None:
                known = {}
                self._entropies = known
            value = known.get(data)
            if value is None:
                if len(known) >= _ENTROPIES_KEPT:
                    known.clear()
                value = known[data] = super().calculate_shannon_entropy(data)
            return value

        def analyze_line(
            self,
            filename: str,
            line: str,
            line_number: int = 0,
            context: Any = None,
            enable_eager_search: bool = False,
            **kwargs: Any,
        ) -> set[Any]:
            if not enable_eager_search and not self.search(line):
                return set()
            found: set[Any] = super().analyze_line(
                filename=filename,
                line=line,
                line_number=line_number,
                context=context,
                enable_eager_search=enable_eager_search,
                **kwargs,
            )
            return found

    Gated.__name__ = Gated.__qualname__ = type(plugin).__name__
    return _copy(plugin, Gated)


def _copy(plugin: Any, cls: Any) -> Any:
    """An instance of ``cls`` carrying the plugin's own settings."""
    clone = cls.__new__(cls)
    clone.__dict__.update(vars(plugin))
    return clone


# What the IBM and SoftLayer plugins' regexes hold around their value that only narrows
# a match: dropped, the rest matches wherever the whole does (``line_checks``).
_LOOKBEHIND = "(?:(?<=\\W)|(?<=^))"
_LOOKAHEAD = re.compile(r"\(\?!\[[^\]]*\]\)")
_IGNORECASE = re.IGNORECASE | re.UNICODE
_SHAPED = ("IbmCloudIamDetector", "IbmCosHmacDetector", "SoftlayerDetector")
_OWN_REGEX = ("IPPublicDetector",)


class _AsciiShape:
    """Whether a plugin of ``_SHAPED`` can match on a line: its regexes without the
    look-arounds, as one RE2 program, on an ASCII line (where RE2's ``(?i)`` folds as
    Python's does); a line that is not ASCII is always handed over."""

    def __init__(self, program: Any) -> None:
        self._first = Linear(program).first

    def search(self, line: str, /) -> bool:
        return not line.isascii() or self._first(line.encode("ascii"), 0) >= 0


class _OwnRegexes:
    """Whether a plugin's own regexes match on a line: what it runs first."""

    def __init__(self, patterns: Iterable[re.Pattern[str]]) -> None:
        self._patterns = tuple(patterns)

    def search(self, line: str, /) -> bool:
        return any(pattern.search(line) for pattern in self._patterns)


def line_checks(plugins: Iterable[Any], replaced: Mapping[int, Any]) -> dict[str, Any]:
    """Plugin class name -> a check that passes every line on which that plugin (or its
    stand-in, in ``replaced``: ``stand_ins``) can report anything, for the prefilter
    (``Prefilter``'s ``narrower``).

    A high-entropy plugin's trigger passes every quoted run long enough to pass its
    limit, and most such runs are words and paths far below it: its stand-in's own
    early answer is the check.

    Their triggers pass every line with a run of 44 identifier characters (IBM,
    SoftLayer) or four dot-separated numbers (IP addresses): thousands of lines of
    hashes, keys and versions, where the plugins find nothing. A plugin reports only
    what one of its regexes matched (``RegexBasedDetector.analyze_string``). The IBM
    and SoftLayer regexes without their look-arounds match wherever they do, on the
    line the spaced stand-in reads too (their blank runs are unbounded, so shortening
    a run changes no match); the IP plugin runs on Python's ``re`` either way, so its
    own regex is its check. Only for the analysed release (``known_regexes``)."""
    out: dict[str, Any] = {}
    for plugin in plugins:
        name = type(plugin).__name__
        if not type(plugin).__module__.startswith("detect_secrets.plugins."):
            continue
        stand_in = replaced.get(id(plugin))
        if isinstance(plugin, HighEntropyStringsPlugin) and hasattr(stand_in, "search"):
            out[name] = stand_in
            continue
        if not isinstance(plugin, RegexBasedDetector) or not triggers.known_regexes(plugin):
            continue
        if name in _OWN_REGEX:
            out[name] = _OwnRegexes(plugin.denylist)
        elif name in _SHAPED and all(p.flags == _IGNORECASE for p in plugin.denylist):
            forms = [
                translate(_LOOKAHEAD.sub("", p.pattern.replace(_LOOKBEHIND, "", 1)))
                for p in plugin.denylist
            ]
            check = _shape_check(forms) if None not in forms else None
            if check is not None:
                out[name] = check
    return out


def _shape_check(forms: Iterable[str | None]) -> _AsciiShape | None:
    """The forms as one case-blind RE2 check, or None (the trigger's check stays)."""
    try:
        return _AsciiShape(compile_re2("(?i)" + "|".join(f"(?:{form})" for form in forms)))
    except Exception:  # re2.error, or a binding without ``Match``
        return None


def stand_ins(plugins: Iterable[Any]) -> dict[int, Any]:
    """``id(plugin)`` -> what to run in its place; plugins left out run as they are.

    Only for the detect-secrets release the prefilter was written against: its
    fingerprints say the regexes are the ones analysed here, and the entropy plugins'
    source digests (``_ENTROPY_SOURCES``) that their code is."""
    out: dict[int, Any] = {}
    for plugin in plugins:
        name = type(plugin).__name__
        if not type(plugin).__module__.startswith("detect_secrets.plugins."):
            continue
        if name == "KeywordDetector":
            replacement = keyword_stand_in(plugin)
        elif type(plugin) in (Base64HighEntropyString, HexHighEntropyString):
            replacement = _entropy_stand_in(plugin)
        elif not isinstance(plugin, RegexBasedDetector) or not triggers.known_regexes(plugin):
            replacement = None
        elif name in _SPACED:
            replacement = _spaced_stand_in(plugin)
        else:
            replacement = _regex_stand_in(plugin)
        if replacement is not None:
            out[id(plugin)] = replacement
    return out
