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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, repeat
from operator import add
from typing import Any, Protocol

from detect_secrets.plugins import keyword as keyword_plugin
from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin

from thresher.findings.haystacks import Haystacks, utf8
from thresher.findings.re2_classes import compile_re2
from thresher.findings.textpass import Linear, hit_lines

_MARGIN = 1e-9  # float slack when comparing log2(length) with an entropy limit
_MAX_PLANS = 4096  # sets of triggers whose checks are kept (a real scan meets dozens)


@dataclass(frozen=True)
class _Spec:
    """One trigger. ``exact`` (with the plugin's own flags) is checked on a
    single line; ``fast`` is what the whole-text pass searches — in the folded
    text when ``lowered`` — and must hit wherever ``exact`` does."""

    exact: str
    flags: int = 0
    fast: str | None = None
    lowered: bool = False


def _ci(lower_pattern: str, exact: str | None = None) -> _Spec:
    """A case-insensitive trigger written in lower case."""
    return _Spec(exact or lower_pattern, re.IGNORECASE, lower_pattern, lowered=True)


_KEY_OR_PASS = "(?:key|pwd|pw|password|pass|token)"
_KEYWORDS = "|".join(keyword_plugin.DENYLIST)
_ID_RUN = r"[a-z0-9_\-]"
# The look-behind lets the engine try each run once, from its start: the
# maximal run around any 44 such characters starts after a character outside it.
_ID_RUN_44 = _ci(f"(?<!{_ID_RUN}){_ID_RUN}{{44}}", "[a-zA-Z0-9_\\-]{44}")

_DISCORD = r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"

# plugin class -> (fingerprint of its regexes, triggers). Each comment names the
# part of the plugin's pattern that every match must contain.
_REGEX_PLUGINS: dict[str, tuple[str, tuple[_Spec, ...]]] = {
    # (?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}... and ...AP[\dABCDEF][a-zA-Z0-9]{8,}...
    "ArtifactoryDetector": ("03ca10aeff554ff6", (_Spec(r"AKC|AP[\dABCDEF]"),)),
    # (?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)... and (?i)aws.{0,20}?key...
    "AWSKeyDetector": ("42e52c23842e43b7", (_Spec("A3T|ABIA|ACCA|AKIA|ASIA"), _ci("aws"))),
    "AzureStorageKeyDetector": ("b4ac01445d8a6681", (_Spec("AccountKey="),)),
    # ://[^reserved\s]+:([^reserved\s]+)@ : the plugin's own regex, which cannot
    # cross a newline; reused verbatim below.
    "BasicAuthDetector": ("f8c9e6adef0cd7ca", ()),
    # (?i) (?:cloudant|cl|clou)(?:_|-|)(?:api|)<key-or-pass>... and https?://...cloudant\.com
    "CloudantDetector": (
        "7f086fa0fa87ebc1",
        (_ci(f"cloudant|cl(?:ou)?(?:_|-|)(?:api|){_KEY_OR_PASS}"),),
    ),
    # [MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}: the whole-text pass
    # searches its tail from the first dot, where the automaton can skip ahead.
    "DiscordBotTokenDetector": (
        "e8cc08c35f53130c",
        (_Spec(_DISCORD, 0, r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),),
    ),
    "GitHubTokenDetector": ("c06412cd4c3599b5", (_Spec("(?:ghp|gho|ghu|ghs|ghr)_"),)),
    "GitLabTokenDetector": (
        "3734982b6a72add4",
        (_Spec("gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-"), _Spec("GR1348941")),
    ),
    # (?i) ...([a-zA-Z0-9_\-]{44}(?![a-zA-Z0-9_\-])): a run of 44 such characters.
    "IbmCloudIamDetector": ("fc0bf3786c5eb2a1", (_ID_RUN_44,)),
    # (?i) ...([a-f0-9]{48}(?![a-f0-9])): 48 hex digits are also a run of 44 of
    # [a-z0-9_-], so the whole-text pass shares the trigger above.
    "IbmCosHmacDetector": (
        "59503c343fe889d3",
        (_Spec("[a-f0-9]{48}", re.IGNORECASE, _ID_RUN_44.fast, lowered=True),),
    ),
    # four dot-separated groups of one to three ASCII digits
    "IPPublicDetector": ("3ad9c91a5b1d5faa", (_Spec(r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]"),)),
    "JwtTokenDetector": ("90f09773dba97319", (_Spec("eyJ"),)),
    "MailchimpDetector": ("dee1cfb51abb80c2", (_Spec("-us[0-9]"),)),
    "NpmDetector": ("98490516304a893f", (_Spec("/:_authToken="),)),
    "OpenAIDetector": ("86f831ee4d4281f5", (_Spec("T3BlbkFJ"),)),
    "PrivateKeyDetector": ("490a13217fabbd41", (_Spec("PRIVATE KEY|PuTTY-User-Key-File-2"),)),
    "PypiTokenDetector": ("b7c6ecf08d7f5d4d", (_Spec("pypi-AgE"),)),
    "SendGridDetector": ("4dfd257ab90f16da", (_Spec(r"SG\."),)),
    "SlackDetector": (
        "af6560b9c2879517",
        (_ci(r"xox(?:a|b|p|o|s|r)-"), _ci(r"hooks\.slack\.com/services/")),
    ),
    # (?i) both regexes end in ([a-z0-9]{64}): also a run of 44 of [a-z0-9_-].
    "SoftlayerDetector": (
        "876d92a124202e12",
        (_Spec("[a-z0-9]{64}", re.IGNORECASE, _ID_RUN_44.fast, lowered=True),),
    ),
    "SquareOAuthDetector": ("71af0e102c08dd03", (_Spec("sq0csp-"),)),
    "StripeDetector": ("fd51cbb18180f5e4", (_Spec("k_live_"),)),
    # \d{8,10}:... ends in eight digits and a colon; the fast form starts at the
    # colon so the engine can skip ahead to it.
    "TelegramBotTokenDetector": ("b3a83412d0c30407", (_Spec(r"\d{8}:", 0, r":(?<=\d{8}:)"),)),
    "TwilioKeyDetector": ("52c2441e378ffbf1", ()),  # verbatim: no newline possible
}
_VERBATIM = {"BasicAuthDetector", "TwilioKeyDetector"}

# Plugins whose triggers are searched as one RE2 union, one pass over the text instead of
# one per trigger: short literal-led triggers, and the two quoted runs. A line the
# union hits is checked with the exact regexes of every plugin in it, and each of those
# hits only where its own trigger does, so the lines kept are the same. (The slow
# passes left alone would make a union slower than they are apart.)
_SHARED_PASSES: dict[str, frozenset[str]] = {
    "tokens": frozenset(
        {
            "ArtifactoryDetector",
            "AWSKeyDetector",
            "AzureStorageKeyDetector",
            "GitHubTokenDetector",
            "GitLabTokenDetector",
            "IPPublicDetector",
            "JwtTokenDetector",
            "MailchimpDetector",
            "NpmDetector",
            "OpenAIDetector",
            "PrivateKeyDetector",
            "PypiTokenDetector",
            "SendGridDetector",
            "SquareOAuthDetector",
            "StripeDetector",
            "TwilioKeyDetector",
        }
    ),
    "quoted": frozenset({"Base64HighEntropyString", "HexHighEntropyString"}),
}


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

    def _shared_passes(self) -> tuple[list[tuple[Linear, bool, frozenset[int]]], list[int]]:
        """The unions of ``_SHARED_PASSES`` (each with the haystack it searches and the
        triggers it stands for) and the triggers searched alone: a trigger joins a union
        when it has an RE2 form and every plugin it stands for is in that pass."""
        groups: dict[tuple[str, bool], list[int]] = {}
        for number, compiled in enumerate(self._all):
            if self._linear[number] is None:
                continue
            names = {type(self.plugins[n]).__name__ for n in self._by_trigger[number]}
            shared = [key for key, members in _SHARED_PASSES.items() if names <= members]
            if shared:
                groups.setdefault((shared[0], compiled.lowered), []).append(number)
        merged: list[tuple[Linear, bool, frozenset[int]]] = []
        joined: set[int] = set()
        for (_name, lowered), numbers in groups.items():
            forms = [_linear_pattern(self._all[n].fast) for n in numbers]
            union = _union(tuple(f for f in forms if f is not None))
            if len(numbers) < 2 or None in forms or union is None:
                continue
            merged.append((union, lowered, frozenset(numbers)))
            joined.update(numbers)
        return merged, [n for n in range(len(self._all)) if n not in joined]

    def candidate_lines(
        self, lines: Sequence[str], *, plain: bool = False
    ) -> list[tuple[int, list[Any]]]:
        """(index, plugins to run) for every line some plugin could match on.

        A plugin is checked on a line only when one of its whole-text triggers hit
        that line, and then only with the exact regexes behind those triggers: each
        exact regex hits only where its trigger does, so the answer is the one a check
        of every plugin's every regex would give. ``plain``: no line holds a newline
        but at its end (a file's own lines, not a parser's values): a text search
        (``texts``) may then stand in for a plugin's triggers."""
        if not lines:
            return []
        if not self.complete:
            return [(i, self.plugins) for i in range(len(lines))]
        out: list[tuple[int, list[Any]]] = []
        for index, triggers in sorted(self._flag(lines, plain).items()):
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

    def _flag(self, lines: Sequence[str], single: bool = False) -> dict[int, set[int]]:
        """Each line some trigger hits, with the triggers (positions in ``_all``, or a
        text search's slot).

        The triggers with an RE2 form search the UTF-8 text with it (see
        ``_linear_form``); a hit's byte offset is mapped to its line through the lines'
        byte offsets. ``single``: no line holds a newline but at its end."""
        text = "\n".join(lines)
        starts = [0, *accumulate(map(add, map(len, lines[:-1]), repeat(1)))]
        plain = Haystacks(text)
        encoded: dict[bool, tuple[bytes, list[int]]] = {}
        flagged: dict[int, set[int]] = {}
        replaced: frozenset[int] = frozenset()
        if text.isascii():  # a character is a byte; the fold only lowers ASCII letters
            data = text.encode("ascii")
            encoded = {False: (data, starts), True: (data.lower(), starts)}
            for gate, slot, triggers in self._gates if single else ():
                replaced |= triggers
                for index in hit_lines(gate.first, data, starts):
                    flagged.setdefault(index, set()).add(slot)
        for union, lowered, members in self._merged:
            if lowered not in encoded:
                encoded[lowered] = utf8(plain[lowered], starts, lines)
            for index in hit_lines(union.first, *encoded[lowered]):
                flagged.setdefault(index, set()).update(members)
        for number in self._alone:
            if number in replaced:
                continue
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
