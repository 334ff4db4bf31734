"""Redaction by detection: secret-shaped values found in the text itself.

The run's candidate values cover what the scanner found in the tree it scanned. A
model can still read more: a secret committed and later removed (``git_show`` of
an old commit), a git-ignored ``.env``, a CI file that writes an ``Authorization``
header, or a value it quotes from memory. So every text that leaves the process is
also searched for the shape of a secret (``thresher.redaction.patterns``), and each
one found is replaced by a stable token, ``[REDACTED:github-token:3f2a]``: the
same value gives the same token in every text and every run, so a model can still
tell that two mentions are one secret. The four hex digits are 16 bits of the
value's SHA-256: enough to correlate mentions, far too few to recover a value.

What stays readable, and why:

- public documentation values (the bundled skills' examples, placeholder words): a
  model must read ``AKIAIOSFODNN7EXAMPLE`` to tell it is AWS's documentation key;
- hex strings of 7-40 or 64 characters. Those are the lengths of git object ids
  (abbreviated, SHA-1, SHA-256), which ``git_log`` and ``git_show`` print and tool
  data carries quoted in JSON; a model needs them to ask for a commit. The hex
  entropy plugin would flag nearly all of them, so it is not applied at those
  lengths. A hex secret assigned to a secret-sounding name is still redacted by the
  keyword rule;
- references rather than values: ``${DB_PASSWORD}``, ``$TOKEN``, ``{{ secret }}``,
  ``settings.SECRET_KEY``, ``get_password()``, ``DB_PASSWORD``;
- the redacted forms themselves (handled by ``thresher.redaction.redactor``).

Every pattern runs on RE2 over the UTF-8 bytes of the text, so the pass is linear in
the text's length. For a short text (most are: ids, dates, names) the rules run
combined, fifteen to a pattern: one scan per combined pattern answers "nothing here",
and only the rules of a combined pattern that matched run on their own. Measured:
about 2 ms for 20 kB of code, 25-50 ms for 20 kB of configuration holding 300 secrets,
under 10 ms for a hostile 60 kB line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, assert_never

from thresher.errors import UsageError
from thresher.redaction.patterns import (
    ASSIGNMENTS,
    FORMATS,
    KEYWORD_SLUGS,
    Kind,
    Rule,
    entropy_plugins,
    entropy_rule,
    is_password_keyword,
    keyword_rule,
    keyword_slug,
    plugin_patterns,
    slugify,
    widen_for_re2,
)

_RE2_MAX_MEM = 64 << 20  # the combined patterns' DFAs; RE2 falls back to its NFA beyond it
# Below this, a search with the rules combined answers "nothing here" at the cost of a
# few calls (most texts are short: ids, dates, names). Above it the combined automata
# have too many states to stay fast, and each rule runs on its own. On the 6,945 texts
# the offline panel redacts on the dev corpus tree (ids, paths, rationales, windows of
# code) the combined automata of two of the four groups cost about 300 us a window of
# 1-2 kB, three times what the rules alone cost there: 512 bytes took half the time
# 2048 did (0.45 s against 0.85 s), and both 256 and 1024 did worse than 512.
_COMBINED_MAX_BYTES = 512
# Rules to a combined pattern. All sixty in one made a DFA whose states thrashed its
# cache: a 1.5 kB text took about 120 us, as long as every rule on its own. Fifteen to a
# pattern kept each DFA warm: about 12 us, measured on windows of the dev corpus.
_COMBINED_RULES = 15
# The rule set's DFA (``_rule_set``): on the dev corpus tree's short texts 8 MB ran as
# fast as 64 and held 25 MB less; 2 MB made it no faster than the combined patterns.
# Past it RE2 starts the DFA's cache afresh, or fails the search (then the combined
# patterns answer).
_SET_MAX_MEM = 8 << 20
_UNGATED = frozenset({Kind.KEYWORD, Kind.ASSIGNED})  # run on every short text (``_rule_set``)
GIT_ID_LENGTHS = frozenset((*range(7, 41), 64))
_EXTEND = 256  # at most this far into an adjoining token run
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_DELIMITERS = " \t\r\n=:\"'"
_MAX_CHECKED = 256  # longer values are never references or words
_TEMPLATE_STARTS = "$%{<"  # ${X}, $X, %(x)s, {x}, <your-token>
_TEMPLATE_PARTS = ("{{", "${", "::", "->")  # {{ secrets.X }}, Config::KEY, $this->key
_NAME = re.compile(  # settings.SECRET_KEY, process.env.TOKEN; DB_PASSWORD, a variable's name
    r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
)
_LOCATION = re.compile(r"[a-z][a-z0-9+.-]*://[^@\s]*|\.{0,2}/\S*|~/\S*")  # no credentials
_LITERALS = frozenset(
    {
        *("true", "false", "null", "none", "nil", "undefined", "yes", "no", "on", "off"),
        *("required", "optional", "empty", "string", "int", "bool", "str", "bytes", "env"),
    }
)
_RUN = re.compile(r"(.)\1{7}", re.DOTALL)
_PUNCTUATION = ".,;:!?'\"`()[]{}<>"
_WORD = re.compile(r"[A-Za-z]+(?:[-_.][A-Za-z]+)*")


class RedactionRuleError(UsageError):
    """A custom rule that the linear-time engine used for redaction cannot run."""


@dataclass(frozen=True, slots=True)
class Found:
    """A secret-shaped value at ``text[start:end]``."""

    start: int
    end: int
    slug: str
    value: str


def _re2() -> Any:
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension

    return re2


def _options(max_mem: int | None = None, *, capture: bool = True) -> Any:
    options = _re2().Options()
    options.log_errors = False
    options.never_capture = not capture
    if max_mem is not None:
        options.max_mem = max_mem
    return options


@dataclass(frozen=True)
class _Compiled:
    rule: Rule
    regex: Any
    values: tuple[int, ...]  # capture groups that may hold the value, in order
    groups: dict[str, int]


def _compile(rule: Rule) -> _Compiled:
    regex = _re2().compile(rule.pattern, _options())
    index: dict[str, int] = dict(regex.groupindex)
    if rule.kind is Kind.PLUGIN:
        values = tuple(range(1, regex.groups + 1))
    elif rule.kind is Kind.CUSTOM:
        values = (index["secret"],) if "secret" in index else ()
    else:
        values = tuple(i for name, i in sorted(index.items(), key=lambda x: x[1]) if name[0] == "v")
    return _Compiled(rule, regex, values, index)


@cache
def _builtin() -> tuple[tuple[_Compiled, ...], tuple[str, ...]]:
    """The built-in rules, compiled once per process, and the secret types of
    detect-secrets plugins that none of them covers (empty for the pinned release)."""
    b64, hexa = entropy_plugins()
    rules: list[Rule] = [*FORMATS, *ASSIGNMENTS, keyword_rule()]
    rules.append(entropy_rule(b64, Kind.BASE64_ENTROPY, "high-entropy-string"))
    rules.append(entropy_rule(hexa, Kind.HEX_ENTROPY, "hex-high-entropy-string"))
    compiled = [_compile(rule) for rule in rules]
    uncovered: list[str] = []
    for secret_type, _name, pattern in plugin_patterns():
        try:
            if pattern is None:
                raise ValueError(pattern)
            compiled.append(_compile(Rule(slugify(secret_type), pattern, Kind.PLUGIN)))
        except (ValueError, _re2().error):
            uncovered.append(secret_type)
    return tuple(compiled), tuple(sorted(set(uncovered)))


def _custom(rules: Sequence[tuple[str, str]]) -> list[_Compiled]:
    compiled: list[_Compiled] = []
    for rule_id, pattern in rules:
        # A custom rule runs line by line in the scanner: (?m) keeps ^ and $ per line.
        rule = Rule(slugify(rule_id), f"(?m:{widen_for_re2(pattern)})", Kind.CUSTOM)
        try:
            compiled.append(_compile(rule))
        except _re2().error as exc:
            detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
            raise RedactionRuleError(
                f"custom rule {rule_id!r}: its pattern cannot be used for redaction ({detail})",
                hint="redaction runs custom rules on RE2 (linear time): rewrite the pattern "
                "without backreferences",
            ) from None
    return compiled


def _rule_set(rules: Sequence[_Compiled]) -> tuple[Any, int, tuple[int, ...]]:
    """The rules but the ungated ones in one RE2 set, the index of a pattern in it that
    matches every text, and the rule each other index stands for.

    On a short text (an id, a path, a rationale: most of what the offline panel redacts)
    one pass of the set says which rules can match at all, where the combined
    alternations ran every rule of each group that held a match. The keyword and
    assignment rules stay out (``_UNGATED``) and run on every short text: their broad
    contexts multiplied the set's DFA states, and the keyword rule matches a third of
    those texts anyway. On the 19,115 short texts the offline panel redacts on the dev
    corpus tree the set then takes 0.10 s, and those rules 0.12 s, where the set of
    every rule took 0.56 s and the combined patterns about 0.7 s. On a long text the
    set's DFA thrashes (a window of code took longer than every rule on its own), so
    long texts keep the rules. (None, -1, ()) when the rules do not compile as one set."""
    members = tuple(i for i, c in enumerate(rules) if c.rule.kind not in _UNGATED)
    try:
        candidate = _re2().Set.SearchSet(_options(_SET_MAX_MEM, capture=False))
        for index in members:
            candidate.Add(rules[index].rule.pattern)
        sentinel = candidate.Add("")  # a result without it: the search failed
        candidate.Compile()
    except (_re2().error, TypeError, UnicodeEncodeError):
        return None, -1, ()
    return candidate, sentinel, members


@cache
def _operated() -> frozenset[str]:
    """The ungated patterns every match of which holds ":" or "=": the URL's ``://``
    (``url-password``), the header's ``[:=]`` (``authorization-header``) and the
    keyword rule's assignment operator (``(?::=|=>|::|=|:)``), each outside any optional
    part of its pattern. A pattern not among them keeps its run on every short text."""
    return frozenset(
        (
            *(rule.pattern for rule in ASSIGNMENTS if rule.kind is Kind.ASSIGNED),
            keyword_rule().pattern,
        )
    )


def documented(value: str) -> bool:
    """A word of thresher's bundled agents, skills and prompts (lower-cased)."""
    from thresher.resources import public_vocabulary

    return value.strip().lower() in public_vocabulary()


class Detector:
    """Finds secret-shaped values in a text; holds no state between texts."""

    def __init__(
        self,
        custom_rules: Sequence[tuple[str, str]] = (),
        *,
        is_public: Callable[[str], bool] = documented,
    ) -> None:
        """``custom_rules`` are (id, pattern) pairs; ``is_public`` tells a public
        documentation value, which stays readable."""
        builtin, self.uncovered = _builtin()
        self._rules = (*_custom(custom_rules), *builtin)
        self._is_public = is_public
        self._entropy = dict(
            zip((Kind.BASE64_ENTROPY, Kind.HEX_ENTROPY), entropy_plugins(), strict=True)
        )
        # Consecutive rules, so the rules of the patterns that match keep their order.
        self._combined: tuple[tuple[Any, tuple[_Compiled, ...]], ...] | None = None
        groups = [
            self._rules[i : i + _COMBINED_RULES]
            for i in range(0, len(self._rules), _COMBINED_RULES)
        ]
        budget = _RE2_MAX_MEM // max(1, len(groups))
        try:
            self._combined = tuple(
                (
                    _re2().compile(
                        "|".join(f"(?:{c.rule.pattern})" for c in group),
                        _options(budget, capture=False),
                    ),
                    group,
                )
                for group in groups
            )
        except _re2().error:
            pass  # too large to combine: every rule runs on every text
        self._set, self._sentinel, self._members = _rule_set(self._rules)
        self._ungated = frozenset(  # every short text runs them (``_rule_set``)
            i for i, c in enumerate(self._rules) if c.rule.kind in _UNGATED
        )
        # Short texts with neither ":" nor "=" (an id, a path: most of what is redacted)
        # can hold no match of the ungated rules when each is one of ``_OPERATED``.
        self._operated = all(self._rules[i].rule.pattern in _operated() for i in self._ungated)
        # Every slug a ``Found`` of this detector can carry: the keyword rule names its
        # value by the keyword (``keyword_slug``), every other rule by its own slug.
        self.slugs = frozenset(
            (*(c.rule.slug for c in self._rules if c.rule.kind is not Kind.KEYWORD), *KEYWORD_SLUGS)
        )

    def _matching(self, data: bytes) -> list[_Compiled] | None:
        """The rules that match somewhere in ``data``, in their order, from one pass of
        the rule set; None when the set cannot tell (it did not compile, or RE2 ran out
        of memory on this text: the pattern that matches every text is missing)."""
        if self._set is None:
            return None
        found = self._set.Match(data) or ()
        if self._sentinel not in found:
            return None
        members = self._members
        hit = {members[i] for i in found if i != self._sentinel}
        if not (self._operated and b":" not in data and b"=" not in data):
            hit.update(self._ungated)
        rules = self._rules
        return [rules[i] for i in sorted(hit)]  # in the rules' order

    def find(self, text: str) -> list[Found]:
        """Every secret-shaped value in ``text``, in order of the rules that found it."""
        data = text.encode("utf-8", errors="replace")  # a lone surrogate: one byte, "?"
        rules: Sequence[_Compiled] | None = self._rules
        if len(data) <= _COMBINED_MAX_BYTES:
            rules = self._matching(data)
        if rules is None:
            rules = self._rules
            if len(data) <= _COMBINED_MAX_BYTES and self._combined is not None:
                # A rule can match only where the alternation holding it matches.
                rules = [
                    rule
                    for combined, group in self._combined
                    if combined.search(data) is not None
                    for rule in group
                ]
        raw = [(c, m) for c in rules for m in c.regex.finditer(data)]
        if not raw:
            return []
        offsets = _char_offsets(text, data, raw)
        found: list[Found] = []
        for compiled, match in raw:
            hit = self._judge(text, compiled, match, offsets)
            if hit is not None and hit.value and not self._public(hit.value):
                found.append(hit)
        return found

    def _public(self, value: str) -> bool:
        """A documentation value, also when quoted or followed by punctuation in prose."""
        return self._is_public(value) or self._is_public(value.strip(_PUNCTUATION))

    def _judge(
        self, text: str, compiled: _Compiled, match: Any, at: dict[int, int]
    ) -> Found | None:
        rule, kind = compiled.rule, compiled.rule.kind
        group = next((g for g in compiled.values if _filled(match, g, kind)), 0)
        start, end = (at[x] for x in match.span(group))
        if group == 0 and kind is Kind.PLUGIN:
            start, end = _trim(text, start, end)
        if kind in (Kind.FORMAT, Kind.RANDOM, Kind.PLUGIN):
            start, end = _extend(text, start, end)
        value = text[start:end]
        if rule.slug != "private-key" and _placeholder(value):
            return None
        if kind is Kind.PLUGIN and group and _reference(value):
            return None  # https://user:<token>@host, as detect-secrets' own filters say
        match kind:
            case Kind.BASE64_ENTROPY | Kind.HEX_ENTROPY:
                secret = self._entropy[kind].passes(value) and not _hex_id(value, kind)
            case Kind.RANDOM:
                secret = any(c.isdigit() for c in value)
            case Kind.ASSIGNED:
                secret = not _reference(value) and "…" not in value and _has_alnum(value)
            case Kind.KEYWORD:
                keyword = match.group(compiled.groups["kw"]).decode("utf-8", errors="replace")
                return self._keyword(text, compiled, match, keyword, start, end)
            case Kind.FORMAT | Kind.PLUGIN | Kind.CUSTOM:
                secret = True
            case _:
                assert_never(kind)
        return Found(start, end, rule.slug, value) if secret else None

    def _keyword(
        self, text: str, compiled: _Compiled, match: Any, keyword: str, start: int, end: int
    ) -> Found | None:
        """A value assigned to a secret-sounding name, unless it reads as a reference or
        a word: ``token: ${{ secrets.X }}``, ``secret = settings.SECRET``,
        ``tokenizer: bert-base``, ``Password: must be long``."""
        bare = match.span(compiled.groups["v3"])[0] >= 0
        value = text[start:end]
        if bare:
            trimmed = value.rstrip(".,;:!?")
            end -= len(value) - len(trimmed)
            value = trimmed
            if match.span(compiled.groups["call"])[1] > match.span(compiled.groups["call"])[0]:
                return None  # get_password(), env["TOKEN"]
        if len(value) < 4 or _reference(value) or value.lower() in _LITERALS or "…" in value:
            return None
        password = is_password_keyword(keyword)
        if not password and (any(c.isspace() for c in value) or not _has_letter(value)):
            return None  # prose (only a passphrase holds spaces); a count (max_tokens: 4096)
        if len(value) <= _MAX_CHECKED and _WORD.fullmatch(value):
            # A plain word. Only a password may be one, and not in the middle of prose.
            prose = bare and match.span(compiled.groups["more"])[0] >= 0
            if not password or prose:
                return None
        if not _has_alnum(value) or len(set(value)) == 1:
            return None  # "*****", "xxxxxxxx"
        return Found(start, end, keyword_slug(keyword), value)


def _has_letter(value: str) -> bool:
    return any(c.isalpha() for c in value)


def _has_alnum(value: str) -> bool:
    return any(c.isalnum() for c in value)


def _filled(match: Any, group: int, kind: Kind) -> bool:
    """A capture holding something; for a plugin's regex, not one that begins the match
    (GitHub's ``(ghp|gho|...)_...`` captures the prefix, and the secret is the match)."""
    start, end = match.span(group)
    return start >= 0 and end > start and (kind is not Kind.PLUGIN or start > match.start())


def _placeholder(value: str) -> bool:
    """Eight equal characters in a row (eight ``0``, eight of one letter) are a
    placeholder (the Slack documentation webhook), not a random secret."""
    return len(value) <= _MAX_CHECKED and _RUN.search(value) is not None


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """A plugin's whole match may hold its delimiters (Artifactory's ``=`` and quotes)."""
    while start < end and text[start] in _DELIMITERS:
        start += 1
    while end > start and text[end - 1] in _DELIMITERS:
        end -= 1
    return start, end


def _extend(text: str, start: int, end: int) -> tuple[int, int]:
    """Over the rest of an adjoining token run: a pattern of fixed length must not leave
    the end of a longer token readable."""
    low, high = max(0, start - _EXTEND), min(len(text), end + _EXTEND)
    while start > low and text[start - 1] in _TOKEN_CHARS:
        start -= 1
    while end < high and text[end] in _TOKEN_CHARS:
        end += 1
    return start, end


def _hex_id(value: str, kind: Kind) -> bool:
    """A hex string as long as a git object id (see the module docstring)."""
    return kind is Kind.HEX_ENTROPY and len(value) in GIT_ID_LENGTHS


def _reference(value: str) -> bool:
    """A template, an environment or attribute reference, a URL or a path: not a value."""
    if value[0] in _TEMPLATE_STARTS or any(part in value for part in _TEMPLATE_PARTS):
        return True
    if len(value) > _MAX_CHECKED:
        return False
    return bool(_NAME.fullmatch(value) or _LOCATION.fullmatch(value))


def _char_offsets(text: str, data: bytes, raw: list[tuple[_Compiled, Any]]) -> dict[int, int]:
    """Byte offsets of every match and group, mapped to offsets in ``text``."""
    wanted = {x for c, m in raw for g in range(c.regex.groups + 1) for x in _spans(m, c, g)}
    if text.isascii():
        return {x: x for x in wanted}
    out: dict[int, int] = {}
    byte = char = 0
    for offset in sorted(wanted):
        char += len(data[byte:offset].decode("utf-8", errors="replace"))
        byte = offset
        out[offset] = char
    return out


def _spans(match: Any, compiled: _Compiled, group: int) -> Iterator[int]:
    start, end = match.span(group)
    if start >= 0:
        yield start
        yield end
