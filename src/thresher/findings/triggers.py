"""The prefilter: which lines could any detect-secrets plugin possibly report?

detect-secrets spends almost all of its time calling ~27 plugins and a chain of
filters through a reflective dependency injector on every line, although on
ordinary source code fewer than 2 % of lines can match anything. Every plugin
only reports a value that one of its regular expressions matched on the line,
and every filter only ever removes candidates; so a line on which no plugin's
regex can match yields nothing, and skipping it cannot change the result.

For each default plugin this module holds a *trigger*: a regex that is a
necessary condition for that plugin to match on a line — a literal or a
sub-expression taken from the plugin's own pattern, with the same flags, so
every string the plugin matches contains a substring the trigger matches. The
triggers are written against the exact regexes of the detect-secrets release
that was analysed; each plugin's regexes are fingerprinted, and when a release
changes them the plugin falls back to running on every line (slow, never
wrong). High-entropy plugins are bounded mathematically: the Shannon entropy
of a string of n characters is at most log2(n), so a quoted run shorter than
2**limit characters can never pass the entropy limit.

Texts are searched whole, one pass per trigger, and hits are mapped back to
lines; none of the triggers can match a newline, so a hit never straddles two
lines. Case-insensitive triggers search a *folded* copy of the text instead,
with a lower-case pattern, which keeps the regex engine on its fast
literal-prefix path: folding lower-cases the text and maps the only non-ASCII
characters that Python's case-insensitive matching equates with an ASCII
letter (dotted and dotless i, long s, the Kelvin sign) to that letter, so it
has the same length and every case-insensitive match of the original is a
plain match in the fold.
"""

from __future__ import annotations

import hashlib
import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, repeat
from operator import add
from typing import Any, NamedTuple, Protocol

from detect_secrets.plugins import keyword as keyword_plugin
from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin

from thresher.findings.haystacks import Haystacks, utf8
from thresher.findings.re2_classes import Encoded, RE2Set, compile_re2, searchable_utf8
from thresher.findings.textpass import Linear, hit_lines, line_hits, line_numbers
from thresher.findings.trigger_specs import (
    _ID_RUN,
    _ID_RUN_44,
    _KEYWORDS,
    _REGEX_PLUGINS,
    _SHARED_PASSES,
    _VERBATIM,
    _ci,
    _Spec,
)

_MARGIN = 1e-9  # float slack when comparing log2(length) with an entropy limit
_MAX_PLANS = 4096  # sets of triggers whose checks are kept (a real scan meets dozens)


def _fingerprint(patterns: Sequence[re.Pattern[str]]) -> str:
    material = "\x00".join(f"{p.flags}:{p.pattern}" for p in patterns)
    return hashlib.sha256(material.encode()).hexdigest()[:16]


def keyword_fingerprint() -> str:
    tables = [*keyword_plugin.REGEX_BY_FILETYPE.values()]
    tables.append(keyword_plugin.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP)
    patterns = sorted({f"{p.flags}:{p.pattern}" for table in tables for p in table})
    return hashlib.sha256("\x00".join(patterns).encode()).hexdigest()[:16]


KEYWORD_FINGERPRINT = "ad34f8e60ed84eec"


def min_entropy_length(limit: float) -> int:
    """The shortest length whose log2 reaches ``limit``: anything shorter cannot pass."""
    length = 1
    while math.log2(length) < limit - _MARGIN:
        length += 1
    return length


def _entropy_specs(plugin: HighEntropyStringsPlugin) -> tuple[_Spec, ...] | None:
    charset = re.escape(plugin.charset)
    if plugin.regex.pattern != "([\\'\"])([" + charset + "]+)(\\1)":
        return None
    minimum = min_entropy_length(plugin.entropy_limit)
    return (_Spec(f"(?P<q>['\"])[{charset}]{{{minimum},}}(?P=q)"),)


def known_regexes(plugin: Any) -> bool:
    """Whether a regex plugin's patterns are those of the analysed release."""
    known = _REGEX_PLUGINS.get(type(plugin).__name__)
    denylist = getattr(plugin, "denylist", None)
    return known is not None and denylist is not None and _fingerprint(list(denylist)) == known[0]


def _specs_for(plugin: Any) -> tuple[_Spec, ...] | None:
    """The triggers for one plugin instance, or None: run it on every line."""
    name = type(plugin).__name__
    if not type(plugin).__module__.startswith("detect_secrets.plugins."):
        return None
    if name == "KeywordDetector":
        if keyword_fingerprint() != KEYWORD_FINGERPRINT:
            return None
        return (_ci(_KEYWORDS.lower(), _KEYWORDS),)
    if isinstance(plugin, HighEntropyStringsPlugin):
        if type(plugin).__name__ not in {"Base64HighEntropyString", "HexHighEntropyString"}:
            return None
        return _entropy_specs(plugin)
    known = _REGEX_PLUGINS.get(name)
    denylist = getattr(plugin, "denylist", None)
    if known is None or denylist is None or _fingerprint(list(denylist)) != known[0]:
        return None
    if name in _VERBATIM:
        return tuple(_Spec(p.pattern, p.flags) for p in denylist)
    return known[1]


class LineCheck(Protocol):
    """What the prefilter asks on a line: a plugin's exact regex, or a narrower check."""

    def search(self, line: str, /) -> object: ...


@dataclass(frozen=True)
class _Compiled:
    exact: re.Pattern[str]
    fast: re.Pattern[str]
    lowered: bool


class Prefilter:
    """Maps a list of lines to the lines each plugin needs to see.

    ``plugins`` is detect-secrets' own plugin list; the result keeps its order,
    so the plugins run on a kept line exactly as detect-secrets runs them.
    """

    def __init__(
        self,
        plugins: Sequence[Any],
        narrower: Mapping[str, LineCheck] | None = None,
        texts: Mapping[str, Linear] | None = None,
    ) -> None:
        """``narrower``: plugin class name -> a check that holds on every line on which
        that plugin can report anything (and is cheaper than the plugin); it replaces
        the plugin's exact regexes on the lines its triggers hit. ``texts``: plugin
        class name -> a search that never matches across a newline and hits, in an
        ASCII text of lines, every line on which that plugin can report anything; on
        such a text (``candidate_lines``' ``plain``) it stands in for the plugin's
        triggers and their checks, when those triggers stand for no other plugin."""
        self.plugins = list(plugins)
        self._per_plugin: list[tuple[_Compiled, ...] | None] = []
        for plugin in self.plugins:
            specs = _specs_for(plugin)
            self._per_plugin.append(None if specs is None else tuple(map(_compile, specs)))
        self.complete = all(p is not None for p in self._per_plugin)
        unique = {_key(c): c for g in self._per_plugin if g for c in g}
        self._all = list(unique.values())
        self._linear = [_linear_form(c.fast) for c in self._all]
        # For each whole-text trigger, the plugins it stands for, each with the exact
        # regexes to check on a line that trigger hit (in the plugin's own order).
        slot = {key: number for number, key in enumerate(unique)}
        self._by_trigger: list[list[int]] = [[] for _ in self._all]
        self._exact: list[dict[int, tuple[LineCheck, ...]]] = []
        for number, group in enumerate(self._per_plugin):
            exact: dict[int, list[LineCheck]] = {}
            check = (narrower or {}).get(type(self.plugins[number]).__name__)
            for compiled in group or ():
                exact.setdefault(slot[_key(compiled)], []).append(check or compiled.exact)
            self._exact.append({k: tuple(v) for k, v in exact.items()})
            for trigger in exact:
                self._by_trigger[trigger].append(number)
        self._plans: dict[frozenset[int], list[tuple[Any, tuple[LineCheck, ...]]]] = {}
        self._merged, self._alone = self._shared_passes()
        # Each text search: a trigger slot of its own, which passes any line it hit, and
        # the triggers it stands in for (searched alone, each for that plugin only).
        self._gates: list[tuple[Linear, int, frozenset[int]]] = []
        for number, plugin in enumerate(self.plugins):
            gate = (texts or {}).get(type(plugin).__name__)
            replaced = frozenset(self._exact[number])
            if gate is None or not replaced or not replaced <= set(self._alone):
                continue
            if any(self._by_trigger[trigger] != [number] for trigger in replaced):
                continue
            self._exact[number][len(self._by_trigger)] = (_PASSED,)
            self._gates.append((gate, len(self._by_trigger), replaced))
            self._by_trigger.append([number])

    def _shared_passes(self) -> tuple[list[_Union], list[int]]:
        """The unions of ``_SHARED_PASSES`` and the triggers searched alone: a trigger
        joins a union when it has an RE2 form and every plugin it stands for is in that
        pass."""
        groups: dict[tuple[str, bool], list[int]] = {}
        for number, compiled in enumerate(self._all):
            if self._linear[number] is None:
                continue
            names = {type(self.plugins[n]).__name__ for n in self._by_trigger[number]}
            shared = [key for key, members in _SHARED_PASSES.items() if names <= members]
            if shared:
                groups.setdefault((shared[0], compiled.lowered), []).append(number)
        merged: list[_Union] = []
        joined: set[int] = set()
        for (_name, lowered), numbers in groups.items():
            forms = [_linear_pattern(self._all[n].fast) for n in numbers]
            union = _union(tuple(f for f in forms if f is not None))
            if len(numbers) < 2 or None in forms or union is None:
                continue
            members = RE2Set(f for f in forms if f is not None)  # as ``_union`` compiles them
            merged.append(_Union(union, lowered, tuple(numbers), members))
            joined.update(numbers)
        return merged, [n for n in range(len(self._all)) if n not in joined]

    def candidate_lines(
        self, lines: Sequence[str], *, text: str | None = None, shared: Encoded | None = None
    ) -> list[tuple[int, list[Any]]]:
        """(index, plugins to run) for every line some plugin could match on.

        A plugin is checked on a line only when one of its whole-text triggers hit
        that line, and then only with the exact regexes behind those triggers: each
        exact regex hits only where its trigger does, so the answer is the one a check
        of every plugin's every regex would give. ``text``: the lines' own text, when
        each line ends at one of its newlines (the last may not) and holds no other (a
        file's own lines, not a parser's values): searched as it is (``_flag_text``)."""
        if not lines:
            return []
        if not self.complete:
            return [(i, self.plugins) for i in range(len(lines))]
        out: list[tuple[int, list[Any]]] = []
        flagged = self._flag(lines) if text is None else self._flag_text(text, len(lines), shared)
        for index, triggers in sorted(flagged.items()):
            line = lines[index].rstrip()
            chosen = [
                plugin
                for plugin, regexes in self._checks(frozenset(triggers))
                if any(regex.search(line) for regex in regexes)
            ]
            if chosen:
                out.append((index, chosen))
        return out

    def _checks(self, triggers: frozenset[int]) -> list[tuple[Any, tuple[LineCheck, ...]]]:
        """For a set of triggers that hit a line: each plugin they stand for, in the
        plugins' order, with the exact regexes behind those triggers (kept per set:
        a scan meets few distinct sets)."""
        checks = self._plans.get(triggers)
        if checks is None:
            numbers = sorted({n for t in triggers for n in self._by_trigger[t]})
            checks = [
                (
                    self.plugins[n],
                    tuple(
                        regex
                        for trigger, regexes in self._exact[n].items()
                        if trigger in triggers
                        for regex in regexes
                    ),
                )
                for n in numbers
            ]
            if len(self._plans) < _MAX_PLANS:
                self._plans[triggers] = checks
        return checks

    def _flag(self, lines: Sequence[str]) -> dict[int, set[int]]:
        """Each line some trigger hits, with the triggers (positions in ``_all``).

        The triggers with an RE2 form search the UTF-8 text with it (see
        ``_linear_form``); a hit's byte offset is mapped to its line through the lines'
        byte offsets."""
        text = "\n".join(lines)
        starts = [0, *accumulate(map(add, map(len, lines[:-1]), repeat(1)))]
        plain = Haystacks(text)
        encoded: dict[bool, tuple[bytes, list[int]]] = {}
        if text.isascii():  # a character is a byte; the fold only lowers ASCII letters
            data = text.encode("ascii")
            encoded = {False: (data, starts), True: (data.lower(), starts)}
        flagged: dict[int, set[int]] = {}
        for union in self._merged:
            if union.lowered not in encoded:
                encoded[union.lowered] = utf8(plain[union.lowered], starts, lines)
            data, offsets = encoded[union.lowered]
            for index in hit_lines(union.linear.first, data, offsets):
                end = offsets[index + 1] - 1 if index + 1 < len(offsets) else len(data)
                flagged.setdefault(index, set()).update(union.hit(data[offsets[index] : end]))
        for number in self._alone:
            compiled = self._all[number]
            linear = self._linear[number]
            if linear is not None:
                if compiled.lowered not in encoded:
                    encoded[compiled.lowered] = utf8(plain[compiled.lowered], starts, lines)
                for index in hit_lines(linear.first, *encoded[compiled.lowered]):
                    flagged.setdefault(index, set()).add(number)
                continue
            pattern, haystack = compiled.fast, plain[compiled.lowered]
            position = 0
            while (match := pattern.search(haystack, position)) is not None:
                index = bisect_right(starts, match.start()) - 1
                flagged.setdefault(index, set()).add(number)
                if index + 1 >= len(starts):
                    break
                position = starts[index + 1]  # one hit per line is enough
        return flagged

    def _flag_text(
        self, text: str, count: int, shared: Encoded | None = None
    ) -> dict[int, set[int]]:
        """``_flag`` on the ``count`` lines' own text, searched as it is: its lines are
        the lines (none of the triggers matches a newline, so a hit's line is the same
        in it as in ``_flag``'s). A pass yields the first offset of each line it hits in
        what it searches (the text or its fold, in UTF-8 for RE2), and those offsets
        are numbered once at the end, by the newlines before each (``line_numbers``):
        no table of the lines' offsets is built. The fold keeps every line (no lower
        case is or holds a newline). On an ASCII text the text searches (``texts``)
        stand in for the triggers they replace."""
        plain = Haystacks(text)
        encoded: dict[bool, bytes] = {}
        if text.isascii():  # a character is a byte; the fold only lowers ASCII letters
            same = shared.of(text) if shared is not None else None
            if same is not None:  # the UTF-8 of an ASCII text is its ASCII
                encoded = {False: same.utf8, True: same.lowered}
            else:
                data = text.encode("ascii")
                encoded = {False: data, True: data.lower()}
        # For each text searched (the text, its fold; as bytes, as a string): the first
        # offset of each line hit there, with the triggers that hit it.
        found: dict[tuple[bool, bool], dict[int, set[int]]] = {}
        passes: list[tuple[Callable[[bytes, int], int], bool, Set[int]]] = []
        replaced: set[int] = set()
        for gate, slot, triggers in self._gates if encoded else ():
            replaced |= triggers
            passes.append((gate.first, False, {slot}))
        for union in self._merged:
            if union.lowered not in encoded:
                encoded[union.lowered] = searchable_utf8(plain[union.lowered])
            data = encoded[union.lowered]
            hits = found.setdefault((union.lowered, True), {})
            for begin in line_hits(union.linear.first, data):
                end = data.find(b"\n", begin)
                hits.setdefault(begin, set()).update(
                    union.hit(data[begin:] if end < 0 else data[begin:end])
                )
        for number in self._alone:
            compiled, linear = self._all[number], self._linear[number]
            if number in replaced:
                continue
            if linear is not None:
                passes.append((linear.first, compiled.lowered, {number}))
                continue
            haystack, position = plain[compiled.lowered], 0
            hits = found.setdefault((compiled.lowered, False), {})
            while (match := compiled.fast.search(haystack, position)) is not None:
                begin = haystack.rfind("\n", position, match.start()) + 1 or position
                hits.setdefault(begin, set()).add(number)
                position = haystack.find("\n", match.start()) + 1  # one hit per line
                if not position:
                    break
        for first, lowered, members in passes:
            if lowered not in encoded:
                encoded[lowered] = searchable_utf8(plain[lowered])
            hits = found.setdefault((lowered, True), {})
            for begin in line_hits(first, encoded[lowered]):
                hits.setdefault(begin, set()).update(members)
        flagged: dict[int, set[int]] = {}
        for (lowered, in_bytes), hits in found.items():
            searched = encoded[lowered] if in_bytes else plain[lowered]
            for begin, line in line_numbers(searched, hits).items():
                # An empty line after the last newline holds no hit (no trigger is empty).
                if line < count:
                    flagged.setdefault(line, set()).update(hits[begin])
        return flagged


class _Union(NamedTuple):
    """Triggers searched as one RE2 union: the union, the haystack it searches (the text
    or its fold), the triggers (positions in ``Prefilter._all``), and which of them
    match a line the union hit (an ``RE2Set`` of the triggers' RE2 forms)."""

    linear: Linear
    lowered: bool
    triggers: tuple[int, ...]
    members: RE2Set

    def hit(self, line: bytes) -> Iterable[int]:
        """The triggers that match ``line`` (a line the union hit; all when unknown): only
        their plugins' exact regexes are checked there. A trigger that does not match a
        line stands for regexes that do not either, so the lines kept are the same."""
        found = self.members.which(line)
        return self.triggers if found is None else [self.triggers[i] for i in found]


# The entropy triggers: a quote, a run of the charset, the same quote.
_QUOTED_RUN = re.compile(r"\(\?P<q>\['\"\]\)(?P<run>\[[^\]]*\]\{[0-9]+,\})\(\?P=q\)")


_ANCHOR = re.compile(r"\$|(?<!\[)\^")


@cache
def _linear_form(fast: re.Pattern[str]) -> Any | None:
    """The trigger on RE2 (see ``_linear_pattern``), or None."""
    form = _linear_pattern(fast)
    if form is None:
        return None
    try:
        return Linear(compile_re2(form))
    except Exception:  # a form RE2 cannot take, or another binding: the Python pattern stays
        return None


@cache
def _union(forms: tuple[str, ...]) -> Linear | None:
    """One RE2 program matching wherever one of ``forms`` does, or None."""
    try:
        return Linear(compile_re2("|".join(f"(?:{form})" for form in forms)))
    except Exception:  # a union RE2 cannot take (two groups of one name): apart, then
        return None


@cache
def _linear_pattern(fast: re.Pattern[str]) -> str | None:
    """The trigger on RE2, when it hits the same lines; or None.

    Python's ``re`` tries the slowest triggers at nearly every position of the text (a
    run of 44 identifier characters, the keyword alternation, the quoted runs), and
    these few were two thirds of the prefilter's time; RE2's automaton reads the text
    once. The forms: the pattern itself as ``plugins_re2.translate`` spells it for RE2
    (the same matches); the run of 44 without its look-behind, which only spares
    Python's engine from retrying inside a run (a line holds such a run either way);
    a quoted run as one alternative per quote character in place of the back-reference."""
    from thresher.findings.plugins_re2 import translate  # here: it imports this module

    pattern = fast.pattern
    # Anchors stay with Python: a search from an offset need not treat them alike.
    if fast.flags & ~re.UNICODE or _ANCHOR.search(pattern):
        return None
    if _ID_RUN_44.fast is not None and pattern == _ID_RUN_44.fast:
        form: str | None = f"{_ID_RUN}{{44}}"
    elif (quoted := _QUOTED_RUN.fullmatch(pattern)) is not None:
        run = translate(quoted["run"])
        form = None if run is None else f"'{run}'|\"{run}\""
    else:
        form = translate(pattern)
    return form


class _Passed:
    """The check of a line a text search hit: that hit was the check."""

    def search(self, line: str, /) -> bool:
        return True


_PASSED = _Passed()


def _key(compiled: _Compiled) -> tuple[str, bool]:
    """Triggers with the same whole-text form share one pass."""
    return compiled.fast.pattern, compiled.lowered


def _compile(spec: _Spec) -> _Compiled:
    exact = re.compile(spec.exact, spec.flags)
    if spec.fast is None:
        return _Compiled(exact, exact, lowered=False)
    return _Compiled(exact, re.compile(spec.fast), spec.lowered)
