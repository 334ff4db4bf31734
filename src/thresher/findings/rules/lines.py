"""Which lines of a text each rule can match on, found in RE2's C loop, not line by line.

Running a rule's pattern on each line that holds one of its keywords costs a call
into RE2 per (line, rule): most of a scan's time, and nearly all of it on lines where
the pattern matches nothing. Here patterns run over the whole text instead, compiled so
that they match exactly what they match on each line alone: ``(?m)`` makes ``^`` and
``$`` a line's ends, and RE2's ``never_nl`` keeps every match inside one line (no class,
``\\s`` or ``[^x]`` included, ever matches the newline). One search finds the next line
a pattern matches on; the next search starts at the line after it. Every search is RE2
over text no match can leave a line of, so a pattern reads the text once, linear
whatever it holds, in one call per line it matches on, plus one.

A rule whose pattern means something else on a whole text (``\\A``, ``\\z``, ``(?-m)``,
the byte class ``\\C``), or one with a newline in a keyword, is not handled here
(``handles``); the matcher runs it line by line, as before.

Which rules may run on a text is asked of one RE2 set of all keywords over the
lower-cased text; a line of a rule with keywords must hold one of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from thresher.findings.options import _RULE_MAX_MEM
from thresher.findings.re2_classes import Encoded, RE2Set, searchable_utf8
from thresher.findings.rules.book import Rule
from thresher.findings.textpass import line_numbers

# What makes a pattern mean something else on a whole text than on one line.
_WHOLE_TEXT = re.compile(r"\\[AzC]|\(\?[A-Za-z]*-[A-Za-z]*m")


def _options(*, lines: bool) -> Any:
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension

    options = re2.Options()
    options.log_errors = False
    options.max_mem = _RULE_MAX_MEM  # as ``compile_rule_pattern``: the rule's own budget
    if lines:
        options.never_nl = True  # no match crosses a line's end
        options.never_capture = True  # only where it starts is read: no submatches
    return options


def line_program(pattern: str) -> Any:
    """``pattern`` compiled to find, in a whole text, the lines it matches on alone;
    None when it cannot mean the same there (see the module docstring)."""
    import re2

    if _WHOLE_TEXT.search(pattern):
        return None
    try:
        return re2.compile("(?m)" + pattern, _options(lines=True))
    except (re2.error, TypeError, UnicodeEncodeError):
        return None


def matching_lines(
    first: Callable[[bytes, int, int], int],
    encoded: bytes,
    span: tuple[int, int] | None = None,
) -> Iterator[tuple[int, int]]:
    """The lines on which a ``line_program`` matches (``first``: its ``first_start``), in
    order, each once, as (first byte, the byte after the last: its newline or the end).
    ``span``: only the lines from the one holding its first offset to the one holding
    its last."""
    position, end = 0, len(encoded)
    if span is not None:
        position = encoded.rfind(b"\n", 0, span[0]) + 1
        stop = encoded.find(b"\n", span[1])
        end = end if stop < 0 else stop
    while position <= end:
        start = first(encoded, position, end)
        if start < 0:
            return
        newline = encoded.rfind(b"\n", position, start)  # ``position`` starts a line
        stop = encoded.find(b"\n", start)
        stop = len(encoded) if stop < 0 else stop
        yield (position if newline < 0 else newline + 1), stop
        position = stop + 1


def first_start(program: Any) -> Callable[[bytes, int, int], int]:
    """Where ``program``'s first match in ``data[position:end]`` starts, or -1.

    The binding's ``search`` runs a Python generator and builds a match object for
    each of the many calls (one per line a rule matches on); the program's own
    ``Match`` answers with the offsets alone, as ``textpass.Linear`` reads it. Both
    are google-re2's private names: a release without them goes through ``search``."""
    try:
        import re2  # lazy: a C++ extension

        match, unanchored = program._regexp.Match, re2._Anchor.UNANCHORED
    except AttributeError:

        def searched(data: bytes, position: int, end: int) -> int:
            found = program.search(data, position, end)
            return -1 if found is None else int(found.start())

        return searched

    def matched(data: bytes, position: int, end: int) -> int:
        start: int = match(unanchored, data, position, end)[0][0]
        return start

    return matched


class KeywordSet:
    """All rules' keywords as one RE2 set: one pass over a lower-cased text says which
    keywords it holds. ``present`` gives None when it cannot tell (the set did not
    compile, or RE2 ran out of memory on this text): then every rule may run."""

    def __init__(self, keywords: Sequence[str]) -> None:
        import re2

        self._keywords = tuple(keywords)
        self._set = RE2Set((re2.escape(k) for k in self._keywords), _options(lines=False))

    def present(self, lowered: bytes) -> frozenset[str] | None:
        """The keywords ``lowered`` holds, or None when unknown."""
        if not self._keywords:
            return frozenset()
        found = self._set.which(lowered)
        return None if found is None else frozenset(self._keywords[i] for i in found)


# Rules whose lines are found by one RE2 union of their patterns, one pass over the text
# instead of one each: the generic assignments, whose keywords are in nearly every file;
# the rules searched on nearly every file for a rare shape (no keyword, or ``:``); the
# XML ones. Each union stays a small automaton (measured: a larger one did not).
SHARED_PASSES: tuple[frozenset[str], ...] = (
    frozenset(
        {
            "generic-api-key", "generic-key-material", "generic-password", "generic-credential",
            "generic-token", "generic-secret", "generic-setter-call",
        }
    ),
    frozenset({"pgpass-password", "twilio-api-key", "nats-nkey-seed"}),
    frozenset({"generic-xml-key-value", "generic-xml-element", "generic-xml-value-attribute"}),
)  # fmt: skip


class SharedPass:
    """Several rules' patterns as one union, which finds the lines any of them matches on,
    and as one RE2 set, which says which of them match on such a line alone (as each
    rule's own search would: a match never leaves its line)."""

    def __init__(self, union: Any, numbers: Sequence[int], rules_set: RE2Set) -> None:
        self.union = union
        self.first = first_start(union)  # built once: a pass runs on every file
        self._numbers = tuple(numbers)
        self._set = rules_set
        self._programs: dict[int, Any] = {}

    @classmethod
    def built(cls, patterns: dict[int, str]) -> SharedPass | None:
        """The pass for these rules (number -> pattern), or None: fewer than two, or RE2
        refused the union or the set (then each rule searches alone)."""
        import re2

        if len(patterns) < 2:
            return None
        options = _options(lines=True)
        try:
            union = re2.compile("(?m)" + "|".join(f"(?:{p})" for p in patterns.values()), options)
        except (re2.error, TypeError, UnicodeEncodeError):
            return None
        rules_set = RE2Set(("(?m)" + pattern for pattern in patterns.values()), options)
        if not rules_set.ready:
            return None
        shared = cls(union, list(patterns), rules_set)
        shared._programs = {n: line_program(p) for n, p in patterns.items()}
        return shared

    def matching(self, encoded: bytes, begin: int, end: int) -> list[int]:
        """The rules (numbers) that match on the line ``encoded[begin:end]``."""
        found = self._set.which(encoded[begin:end])
        if found is not None:
            return [self._numbers[i] for i in found]
        # The set ran out of memory on this line: each rule's own search, in the text.
        return [
            number
            for number, program in self._programs.items()
            if program is not None and first_start(program)(encoded, begin, end) >= 0
        ]


def _hull(spans: Sequence[tuple[int, int] | None]) -> tuple[int, int] | None:
    """From the first to the last offset of all ``spans``; None (the whole text) when one
    is None (a rule without keywords)."""
    if any(span is None for span in spans):
        return None
    present = [span for span in spans if span is not None]
    return min(s[0] for s in present), max(s[1] for s in present)


class LineFinder:
    """For a rule book: the (line, rule) pairs of a text worth a rule's exact run."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self._programs = [
            None
            if any("\n" in keyword for keyword in rule.keywords)
            else line_program(rule.pattern)
            for rule in rules
        ]
        # Each program's search, built once: a rule searches most files.
        self._firsts = [None if p is None else first_start(p) for p in self._programs]
        self._needles = [tuple(keyword.encode() for keyword in rule.keywords) for rule in rules]
        self._keywordless: list[int] = []
        self._by_keyword: dict[str, list[int]] = {}
        for number, rule in enumerate(rules):
            if self._programs[number] is None:
                continue
            if not rule.keywords:
                self._keywordless.append(number)
            for keyword in rule.keywords:
                self._by_keyword.setdefault(keyword, []).append(number)
        self._set = KeywordSet(list(self._by_keyword))
        self._all_needles = tuple(keyword.encode() for keyword in self._by_keyword)
        self._passes: list[SharedPass] = []
        self._shared_of: dict[int, int] = {}  # rule number -> its pass in ``_passes``
        for ids in SHARED_PASSES:
            members = [
                n
                for n, rule in enumerate(rules)
                if rule.id in ids and self._programs[n] is not None
            ]
            shared = SharedPass.built({n: rules[n].pattern for n in members})
            if shared is not None:
                self._shared_of.update(dict.fromkeys(members, len(self._passes)))
                self._passes.append(shared)

    def _search(self, number: int) -> Callable[[bytes, int, int], int]:
        first = self._firsts[number]
        assert first is not None  # only rules the finder handles are searched
        return first

    def handles(self, number: int) -> bool:
        """Whether ``lines`` finds rule ``number``'s lines (else: run it line by line)."""
        return self._programs[number] is not None

    def lines(
        self,
        text: str,
        chunk: Sequence[str],
        first: int,
        blocked: set[int],
        forms: Encoded | None = None,
    ) -> set[tuple[int, int]] | None:
        """(``first`` + position in ``chunk``, rule number) for each line that holds one of the
        rule's keywords (any line, for a rule without) and on which its pattern matches:
        the lines the rule's own run can find a value on. ``text`` is the chunk's lines
        joined by newlines; None when a line holds a newline (then ``lines`` cannot tell).
        ``forms``: the text's encoded forms, if the caller holds them."""
        if text.count("\n") != len(chunk) - 1:
            return None
        same = forms.of(text) if forms is not None else None
        encoded = same.utf8 if same is not None else searchable_utf8(text)
        # ASCII letters only, as the keywords are
        lowered = same.lowered if same is not None else encoded.lower()
        found: set[tuple[int, int]] = set()  # (a line's first byte, rule number)
        present = self._set.present(lowered)
        # Where each keyword is first and last: absent keywords are never searched for.
        spans: dict[bytes, tuple[int, int] | None] = {}
        if present is not None:
            spans = dict.fromkeys(self._all_needles, None)
            for keyword in present:
                spans.pop(keyword.encode(), None)
        grouped: dict[int, dict[int, tuple[int, int] | None]] = {}
        for number in sorted(self._active(present, blocked)):
            needles = self._needles[number]
            shared = self._shared_of.get(number)
            if shared is not None and present is not None:
                # Active, so one of its keywords is there (``_active``). A shared pass
                # reads the whole text: its rules' keywords (key, token, pass, ...) span
                # nearly all of it, and finding where each is first and last cost more
                # than the rest of the text a pass reads. (Lines without a keyword of
                # the rule are dropped by ``_add`` either way.)
                grouped.setdefault(shared, {})[number] = None
                continue
            span = _keyword_span(lowered, needles, spans) if needles else None
            if needles and span is None:
                continue
            if shared is not None:
                grouped.setdefault(shared, {})[number] = span
                continue
            lines = matching_lines(self._search(number), encoded, span)
            self._add(found, number, lines, lowered)
        for shared, members in grouped.items():
            if len(members) == 1:
                [(number, span)] = members.items()
                lines = matching_lines(self._search(number), encoded, span)
                self._add(found, number, lines, lowered)
                continue
            hull = _hull(list(members.values()))
            for begin, end in matching_lines(self._passes[shared].first, encoded, hull):
                held = lowered[begin:end]  # as ``_add`` reads it, once for all the rules
                for number in self._passes[shared].matching(encoded, begin, end):
                    kept = self._needles[number] if number in members else None
                    if kept is None or (kept and not any(needle in held for needle in kept)):
                        continue
                    found.add((begin, number))
        numbers = line_numbers(encoded, {begin for begin, _ in found})
        return {(first + numbers[begin], number) for begin, number in found}

    def _add(
        self,
        found: set[tuple[int, int]],
        number: int,
        lines: Iterable[tuple[int, int]],
        lowered: bytes,
    ) -> None:
        """(first byte, ``number``) for each of ``lines`` (first byte, the byte after the
        last) that holds one of the rule's keywords (each line, for a rule without)."""
        needles = self._needles[number]
        for begin, end in lines:
            if needles:
                held = lowered[begin:end]
                if not any(needle in held for needle in needles):
                    continue
            found.add((begin, number))

    def _active(self, present: frozenset[str] | None, blocked: set[int]) -> set[int]:
        """The rules that may match in a text (``present``: its keywords, None when
        unknown): a keyword of theirs is in it, or they have none."""
        if present is None:
            chosen = {n for n, program in enumerate(self._programs) if program is not None}
        else:
            chosen = set(self._keywordless)
            for keyword in present:
                chosen.update(self._by_keyword[keyword])
        return chosen - blocked


def _keyword_span(
    lowered: bytes, needles: Sequence[bytes], spans: dict[bytes, tuple[int, int] | None]
) -> tuple[int, int] | None:
    """From the first to the last offset of any of ``needles`` in ``lowered``, or None
    when none is there: a rule's lines lie between (``spans`` keeps each needle's)."""
    first, last = -1, -1
    for needle in needles:
        if needle not in spans:
            at = lowered.find(needle)
            spans[needle] = None if at < 0 else (at, lowered.rfind(needle))
        span = spans[needle]
        if span is not None:
            first = span[0] if first < 0 else min(first, span[0])
            last = max(last, span[1])
    return None if first < 0 else (first, last)
