"""Running a rule book over a file's lines: a keyword gate, then RE2 on the lines it can match.

Most lines of a repository hold none of the rules' keywords, and most lines holding one
match no pattern. So one RE2 set of every keyword says which rules may run on a text,
and each of those finds the lines it matches on in one RE2 pass over the text between
its first and last keyword (``findings.rules.lines``); a rule's pattern then runs only on
a line that both matches and holds one of its own keywords. A pattern the whole-text
pass cannot stand in for (``\\A``, ``(?-m)``) falls back to an Aho-Corasick gate on the
keywords, line by line. Patterns are RE2: linear in the line whatever it holds, and
lines are already bounded by the engine's caps. A rule without keywords (an operator's
custom rule may have none) searches the whole text once, in RE2's C loop, and runs on
the lines it hits. Work in Python per line is bounded too: an assignment reads at most
``_VALUE_WINDOW`` characters after its key, and one rule reads at most
``_MATCHES_PER_LINE`` matches on one line, so a hostile minified line costs what an
ordinary one does.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from thresher.findings.detection import key_block
from thresher.findings.options import compile_rule_pattern
from thresher.findings.re2_classes import Encoded, searchable
from thresher.findings.re2_classes import hits as searched_hits
from thresher.findings.rules.blocks import block_default
from thresher.findings.rules.book import STRUCTURED, Rule, RuleKind
from thresher.findings.rules.lines import LineFinder
from thresher.findings.rules.manifests import Entry, secret_entries
from thresher.findings.rules.values import (
    REMEMBERED_KEY,
    entropy,
    key_named,
    literal_file,
    passes,
    plausible,
    read_value,
    unquote,
)

# How much of the line after ``key =`` an assignment reads its value from: every
# match of a line dense with keys reads this much again, so it bounds that work.
_VALUE_WINDOW = 1024
# Matches of one rule read on one line: a minified file's line can hold thousands of
# ``key: value`` pairs, and each costs a window's read; past this many, the line is
# left to the other rules (the matches already read are reported).
_MATCHES_PER_LINE = 256
_ASCII_LOWER = str.maketrans({chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)})


@dataclass(frozen=True, slots=True)
class RuleHit:
    """One value a rule found: ``index`` is the line's position in the scanned lines."""

    index: int
    rule_id: str
    value: str = field(repr=False)  # a traceback or a log line must not show it


@dataclass(frozen=True, slots=True)
class _Compiled:
    rule: Rule
    program: Any
    wanted: tuple[tuple[str, ...], ...]  # key_words, each split into its words
    index: int  # the value group's number
    key_index: int | None  # the key group's number, or None without a key group
    path: Any  # RE2 on the path, or None
    multiline: Any  # (?m) pattern: a whole text's prefilter, for an unlocated rule without keywords
    match: Any  # the program's own ``Match`` (google-re2's private name), or None
    # key -> whether it names what the rule wants (``key_named``), for the keys met so
    # far: a file repeats its keys, and the key asked about most is the same each time.
    named: dict[str, bool] = field(default_factory=dict)


class Rulebook:
    """Compiled rules, ready to scan; built once per worker process."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        import ahocorasick  # type: ignore[import-not-found]  # lazy: a C extension

        chosen = list(rules)
        self._finder = LineFinder(chosen)
        self._rules: list[_Compiled] = []
        self._ungated: list[int] = []  # rules without keywords the finder does not handle
        self._by_path: list[int] = []  # rules that run on some files only
        gates: dict[str, list[int]] = {}  # keyword -> rules the finder does not handle
        for number, rule in enumerate(chosen):
            program = rule.compiled()
            wanted = tuple(tuple(words.lower().split()) for words in rule.key_words)
            path = rule.compiled_path()
            located = self._finder.handles(number)
            lines = None
            if not located and not rule.keywords:
                lines = compile_rule_pattern("(?m)" + rule.pattern)
            group = rule.group(program)
            index = group if isinstance(group, int) else program.groupindex[group]
            key_index = program.groupindex[rule.key_group] if rule.key_group else None
            match = getattr(getattr(program, "_regexp", None), "Match", None)
            self._rules.append(
                _Compiled(rule, program, wanted, index, key_index, path, lines, match)
            )
            if path is not None:
                self._by_path.append(number)
            if located:
                continue
            if not rule.keywords:
                self._ungated.append(number)
            for keyword in rule.keywords:
                gates.setdefault(keyword, []).append(number)
        self._automaton: Any = None
        if gates:
            automaton = ahocorasick.Automaton()
            for keyword, numbers in gates.items():
                automaton.add_word(keyword, tuple(numbers))
            automaton.make_automaton()
            self._automaton = automaton

    def __len__(self) -> int:
        return len(self._rules)

    def scan(
        self,
        path: str,
        lines: Sequence[str],
        indices: range,
        joined: str | None = None,
        shared: Encoded | None = None,
    ) -> list[RuleHit]:
        """Every value the rules find on ``lines[i]`` for ``i`` in ``indices``.

        ``joined``: those lines joined by newlines, when the caller has that text (a
        whole file's, which its lines were split from): not built again. ``shared``: that
        text's encoded forms, if the caller holds them."""
        if not self._rules or not len(indices):
            return []
        if indices == range(len(lines)) and isinstance(lines, list):
            chunk: Sequence[str] = lines  # all of them: read, never changed
        else:
            chunk = list(map(lines.__getitem__, indices))
        text = "\n".join(chunk) if joined is None else joined
        blocked = {n for n in self._by_path if not searched_hits(self._rules[n].path, path)}
        todo = self._located(text, chunk, indices.start, blocked, shared)
        if self._automaton is not None or self._ungated:
            starts = list(accumulate((len(line) + 1 for line in chunk), initial=0))
            todo |= self._gated(text, starts, indices.start)
        if self._ungated:
            searched = searchable(text)
            for number in self._ungated:
                for match in self._rules[number].multiline.finditer(searched):
                    # Every line the match touches: its first character may be the
                    # newline before the line that holds the value.
                    first = bisect_right(starts, match.start()) - 1
                    last = bisect_right(starts, max(match.start(), match.end() - 1)) - 1
                    todo.update((indices.start + i, number) for i in range(first, last + 1))
        literal = literal_file(path)
        hits: list[RuleHit] = []
        structured: dict[int, Rule] = {}
        reach: dict[str, int] = {}  # block-default rules: the last line a block read
        for index, number in sorted(todo):
            if number in blocked:
                continue
            compiled = self._rules[number]
            if compiled.rule.kind in STRUCTURED:
                # A gate line: the file's structure is read once, below.
                if number not in structured and compiled.program.search(searchable(lines[index])):
                    structured[number] = compiled.rule
                continue
            hits.extend(self._apply(compiled, lines, index, literal, reach))
        if structured:
            entries = secret_entries(lines, indices)
            # A line rule's report of the base64 on the same line stays: it puts the
            # encoded form in the vault too, so the redactor hides it from a model.
            for rule in structured.values():
                hits.extend(_structured(rule, entries))
            hits.sort(key=lambda hit: hit.index)
        return hits

    def _located(
        self,
        text: str,
        chunk: Sequence[str],
        first: int,
        blocked: set[int],
        shared: Encoded | None = None,
    ) -> set[tuple[int, int]]:
        """(line index, rule number) for the rules the finder handles: each line that
        holds one of the rule's keywords (any line, for a rule without) and that the
        rule can match on (``lines.LineFinder``)."""
        found = self._finder.lines(text, chunk, first, blocked, shared)
        if found is not None:
            return found
        # A line holds a newline (the scanner's never do): each line holding a keyword.
        todo: set[tuple[int, int]] = set()
        for at, line in enumerate(chunk):
            lowered = line.translate(_ASCII_LOWER)
            for number, compiled in enumerate(self._rules):
                keywords = compiled.rule.keywords
                if self._finder.handles(number) and (
                    not keywords or any(keyword in lowered for keyword in keywords)
                ):
                    todo.add((first + at, number))
        return todo

    def _gated(self, text: str, starts: list[int], first: int) -> set[tuple[int, int]]:
        """(line index, rule number) for each line holding one of the rule's keywords,
        for the rules the finder does not handle (see ``lines.line_program``)."""
        if self._automaton is None:
            return set()
        lowered = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
        todo: set[tuple[int, int]] = set()
        for end, numbers in self._automaton.iter(lowered):
            index = first + bisect_right(starts, end) - 1
            for number in numbers:
                todo.add((index, number))
        return todo

    def _apply(
        self,
        compiled: _Compiled,
        lines: Sequence[str],
        index: int,
        literal: bool,
        reach: dict[str, int] | None = None,
    ) -> list[RuleHit]:
        rule = compiled.rule
        line = lines[index]
        out: list[RuleHit] = []
        ascii_line = line.isascii()
        searched = line if ascii_line else searchable(line)
        matches = _ascii_matches(compiled, line) if ascii_line else None
        if matches is None:
            matches = compiled.program.finditer(searched)
        for seen, match in enumerate(matches):
            if seen == _MATCHES_PER_LINE:
                break
            at = index
            if rule.kind is RuleKind.BLOCK_DEFAULT:
                at, value = _block_value(
                    compiled, match, lines, index, reach if reach is not None else {}
                )
            else:
                value = self._value(compiled, match, literal)
            if value is None or not rule.min_length <= len(value) <= rule.max_length:
                continue
            if rule.min_entropy and entropy(value) < rule.min_entropy:
                continue
            if not all(passes(check, value) for check in rule.checks):
                continue
            if searched is not line and value not in lines[at]:
                continue  # U+FFFD stood in for a lone surrogate: not this value
            if rule.kind is RuleKind.PEM_BLOCK:
                value = key_block(lines, index) or value
            out.append(RuleHit(at, rule.id, value))
        return out

    @staticmethod
    def _value(compiled: _Compiled, match: Any, literal: bool) -> str | None:
        raw = match.group(compiled.index)
        if raw == "" and compiled.rule.kind is RuleKind.ASSIGNMENT:
            # An empty value group marks where the value starts: the rest of the line
            # is read here, not by a counted repetition in the pattern (a large RE2
            # program, slow to run on every line).
            start = match.start(compiled.index)
            raw = match.string[start : start + min(compiled.rule.max_length, _VALUE_WINDOW)]
        if not raw:
            return None
        rule = compiled.rule
        key = match.group(compiled.key_index) if compiled.key_index is not None else ""
        if compiled.wanted and not _named(compiled, key or ""):
            return None
        match rule.kind:
            case RuleKind.TOKEN | RuleKind.PEM_BLOCK:
                return str(raw)
            case RuleKind.LITERAL:
                value = unquote(str(raw).strip())
                return value if plausible(value, key=key or "", quoted=True, literal=True) else None
            case RuleKind.ASSIGNMENT:
                if raw[:1] in ("=", "~", ":"):  # ``==``, ``=~``, ``::``: not an assignment
                    return None
                named = compiled.key_index
                start = match.start(named) if named is not None else 0
                if start > 0 and match.string[start - 1] in "?&#":
                    return None  # a URL's query parameter: url-query-credential reads it
                value, quoted = read_value(raw, literal=literal)
                if not plausible(value, key=key or "", quoted=quoted, literal=literal):
                    return None
                return value
            case (
                RuleKind.BLOCK_DEFAULT | RuleKind.KUBERNETES_DATA | RuleKind.KUBERNETES_STRING_DATA
            ):
                return None  # read from the file's structure: ``_block_value``, ``_structured``


class _AsciiMatch:
    """What the rules read of an RE2 match on an ASCII line, whose byte offsets are its
    character offsets: the groups, their starts, the end, the line."""

    __slots__ = ("_spans", "string")

    def __init__(self, string: str, spans: Sequence[tuple[int, int]]) -> None:
        self.string = string
        self._spans = spans

    def group(self, index: int = 0) -> str | None:
        start, end = self._spans[index]
        return None if start < 0 else self.string[start:end]

    def start(self, index: int = 0) -> int:
        return self._spans[index][0]

    def end(self, index: int = 0) -> int:
        return self._spans[index][1]


def _ascii_matches(compiled: _Compiled, line: str) -> Iterator[_AsciiMatch] | None:
    """The rule's matches on an ASCII line, as the binding's ``finditer`` finds them,
    through the program's own ``Match`` (see ``lines.first_start``); None when this
    google-re2 release lacks it (then ``finditer`` runs)."""
    match = compiled.match
    if match is None:
        return None
    return _ascii_iter(match, line)


def _ascii_iter(match: Any, line: str) -> Iterator[_AsciiMatch]:
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension

    unanchored = re2._Anchor.UNANCHORED
    data = line.encode("ascii")
    position, end = 0, len(data)
    while True:
        spans = match(unanchored, data, position, end)
        if spans[0][0] < 0:
            return
        yield _AsciiMatch(line, spans)
        if position == end:
            return
        # An empty match at the position: one character on, as ``finditer`` steps.
        position = position + 1 if position == spans[0][1] else spans[0][1]


# Keys one rule remembers (``_Compiled.named``); past this many, the rest are asked anew.
_NAMES_KEPT = 8192


def _named(compiled: _Compiled, key: str) -> bool:
    """``key_named(key, compiled.wanted)``, remembered per rule: its cache is asked
    without hashing the rule's words on every match."""
    known = compiled.named.get(key)
    if known is None:
        known = key_named(key, compiled.wanted)
        if len(key) <= REMEMBERED_KEY and len(compiled.named) < _NAMES_KEPT:
            compiled.named[key] = known
    return known


def _structured(rule: Rule, entries: Sequence[Entry]) -> Iterable[RuleHit]:
    """The entries of the rule's field that pass its shape checks."""
    field = STRUCTURED[rule.kind]
    for entry in entries:
        value = entry.value
        if entry.field != field or not rule.min_length <= len(value) <= rule.max_length:
            continue
        if rule.min_entropy and entropy(value) < rule.min_entropy:
            continue
        if all(passes(check, value) for check in rule.checks):
            yield RuleHit(entry.index, rule.id, value)


def _block_value(
    compiled: _Compiled, match: Any, lines: Sequence[str], index: int, reach: dict[str, int]
) -> tuple[int, str | None]:
    """(line index, value) of the ``default = "..."`` of the block the match opens: a
    quoted literal that passes the value filters, else None. A block is not opened on a
    line an earlier block of this rule already read to (see ``rules.blocks``)."""
    rule = compiled.rule
    key = match.group(compiled.key_index) if compiled.key_index is not None else ""
    if compiled.wanted and not _named(compiled, key or ""):
        return index, None
    if index < reach.get(rule.id, -1):
        return index, None
    block = block_default(lines, index, match.end())
    reach[rule.id] = block.last
    if block.rest is None:
        return index, None
    value, quoted = read_value(block.rest[:_VALUE_WINDOW], literal=True)
    if not quoted or not plausible(value, key=key or "", quoted=True, literal=True):
        return block.line, None
    return block.line, value
