"""detect-secrets' keyword plugin, matched by RE2: the same values, in linear time.

The keyword plugin's regexes backtrack: a keyword followed by ``\\w*`` and then a lazy
``[^\\s]{0,50}?`` costs the square, nearly the cube, of a line's length when they fail.
A 60 kB minified line of ``password`` repeated took more than seven minutes, and a
repository can hold such a line on purpose.

Each regex of the plugin is rewritten here, piece by piece, into one RE2 accepts and
that matches exactly the same strings, with the same leftmost-first preferences, so
its match and its secret group are the ones Python's ``re`` would return:

- ``(?=[^\\v'"]*)(?=\\w+)[^\\v'"]*[^\\v,'"`]`` (the secret) is
  ``\\w(?:[^\\v'"]*[^\\v,'"`])?``: the first look-ahead always holds, the second only
  says the secret starts with a word character;
- ``(['"`]?)SECRET(\\N)`` (a quote, and the same quote again) becomes one alternative
  per quote character and a last one without quotes; only the quote that is really
  there can match, and the bare secret cannot start with a quote, so the order of
  preference is the one the optional group had;
- ``\\w``, ``\\s`` and the case-insensitive letters of the keywords are Python's,
  enumerated from Python's own ``re`` over every code point (RE2's ``\\w`` and ``\\s``
  are ASCII-only, and its case folding differs for a few letters such as the dotted
  capital I).

``tests/findings/test_plugins_re2.py`` compares the rewritten plugin with the original
on many lines; the detect-secrets parity tests compare whole scans. The rewrite is
tied to the analysed detect-secrets release by the same fingerprint as the prefilter:
another release keeps the plugin as it is.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Mapping
from functools import cache
from re import Pattern
from typing import Any, cast

from detect_secrets.plugins import keyword as kw
from detect_secrets.plugins.keyword import KeywordDetector

from thresher.findings import triggers
from thresher.findings.re2_classes import (
    _MAX_MEM,
    compile_re2,
    folded_letters,
    python_class,
    searchable,
)
from thresher.findings.textpass import Linear


@cache
def _pieces(ascii_only: bool = False) -> dict[str, str]:
    """The building blocks, computed once per process (about a tenth of a second).

    ``ascii_only``: every class cut down to its ASCII characters, for ASCII text only
    (a class is only ever asked about the characters of the text)."""
    letters = "".join(ch for word in kw.DENYLIST for ch in word if ch.isalpha())
    if ascii_only:
        folded = {
            letter: "[" + "".join(re.findall(f"(?i:{re.escape(letter)})", _ASCII)) + "]"
            for letter in set(letters)
        }
        word, space = _ascii_class(r"\w"), _ascii_class(r"\s")
    else:
        folded = folded_letters(letters)
        word, space = python_class(r"\w"), python_class(r"\s")
    w, s, ns = f"[{word}]", f"[{space}]", f"[^{space}]"
    secret = f"({w}(?:[^\\x0b'\"]*[^\\x0b,'\"`])?)"
    return {
        "W": w,
        "S": s,
        "NS": ns,
        "D": "(?:" + "|".join("".join(folded.get(c, c) for c in w_) for w_ in kw.DENYLIST) + ")",
        "DCS": "(?:" + "|".join(kw.DENYLIST) + ")",
        "C": "[\\]'\"]{0,2}",
        "SEC": secret,
        "Q3": f"(?:'{secret}'|\"{secret}\"|`{secret}`)",
        "Q4": f"(?:'{secret}'|\"{secret}\"|`{secret}`|{secret})",
    }


_ASCII = "".join(map(chr, range(128)))


def _ascii_class(pattern: str) -> str:
    """``python_class`` over the ASCII characters only."""
    return "".join(
        f"\\x{{{m.start():x}}}" + (f"-\\x{{{m.end() - 1:x}}}" if m.end() - 1 != m.start() else "")
        for m in re.finditer(f"(?:{pattern})+", _ASCII)
    )


# The original regex -> its rewrite, written with the pieces above.
_REWRITES: dict[Pattern[str], str] = {
    kw.FOLLOWED_BY_COLON_EQUAL_SIGNS_REGEX: "{D}{W}*{C}{S}*:={S}*{Q4}",
    kw.FOLLOWED_BY_COLON_REGEX: "{D}{W}*{C}:{S}*{Q4}",
    kw.FOLLOWED_BY_COLON_QUOTES_REQUIRED_REGEX: "{D}{W}*{C}:{S}*{Q3}",
    kw.FOLLOWED_BY_EQUAL_SIGNS_OPTIONAL_BRACKETS_OPTIONAL_AT_SIGN_QUOTES_REQUIRED_REGEX: (
        '{D}{W}*(?:\\[[0-9]*\\])?{S}*[!=]{{1,2}}{S}*@?"{SEC}"'
    ),
    kw.FOLLOWED_BY_OPTIONAL_ASSIGN_QUOTES_REQUIRED_REGEX: '{DCS}{W}*(?:.assign)?\\("{SEC}"',
    kw.FOLLOWED_BY_EQUAL_SIGNS_REGEX: "{D}{W}*{C}{S}*(?:={{1,3}}|!==?){S}*{Q4}",
    kw.FOLLOWED_BY_EQUAL_SIGNS_QUOTES_REQUIRED_REGEX: "{D}{W}*{C}{S}*(?:={{1,3}}|!==?){S}*{Q3}",
    kw.PRECEDED_BY_EQUAL_COMPARISON_SIGNS_QUOTES_REQUIRED_REGEX: (
        "{Q3}{S}*[!=]{{2,3}}{S}*{W}*{DCS}{W}*"
    ),
    kw.FOLLOWED_BY_QUOTES_AND_SEMICOLON_REGEX: "{D}{W}*{NS}{{0,50}}?{S}*{Q3};",
    kw.FOLLOWED_BY_ARROW_FUNCTION_SIGN_QUOTES_REQUIRED_REGEX: "{D}{W}*{C}{S}*=>?{S}*{Q3}",
}


class _Found:
    """What the plugin reads of a match: the secret, whichever group holds it."""

    def __init__(self, secret: str) -> None:
        self._secret = secret

    def group(self, *_: Any) -> str:
        return self._secret


class Twin:
    """An RE2 program standing in for one of the plugin's regexes (``search`` only).

    An ASCII line (nearly all) is searched through the program's own ``Match``, whose
    byte offsets are then the line's character offsets: the binding's ``search``
    builds a match object and maps every offset from bytes to characters, several
    times the cost of the search itself on a short line. Both are google-re2's private
    names: a release without them searches every line through the public ``search``.

    ``ascii_program``: the same rewrite with its classes cut down to ASCII (``_pieces``),
    which an ASCII line is searched with: it matches there exactly what ``program``
    does, and its automaton, without the UTF-8 of every letter's and blank's class, is
    about half as costly to build in each process (most of a twin's cost)."""

    def __init__(self, original: Pattern[str], program: Any, ascii_program: Any = None) -> None:
        import re2  # type: ignore[import-untyped]  # lazy: a C++ extension

        self.original = original
        self._program = program
        self._match: Any = None
        self._unanchored: Any = None
        try:
            self._match = (ascii_program or program)._regexp.Match
            self._unanchored = re2._Anchor.UNANCHORED
        except AttributeError:
            self._match = None

    def search(self, string: str) -> _Found | None:
        if self._match is not None and string.isascii():
            data = string.encode("ascii")
            spans = self._match(self._unanchored, data, 0, len(data))
            if spans[0][0] < 0:
                return None
            for start, end in spans[1:]:
                if start >= 0:
                    return _Found(string[start:end])
            return None
        match = self._program.search(searchable(string))
        if match is None:
            return None
        for index in range(1, self._program.groups + 1):
            start, end = match.span(index)
            if start >= 0:
                return _Found(string[start:end])
        return None


@cache
def twins() -> Mapping[Pattern[str], Twin] | None:
    """Every rewritten regex, or None when this detect-secrets release is not the one
    the rewrites were made from."""
    if triggers.keyword_fingerprint() != triggers.KEYWORD_FINGERPRINT:
        return None
    pieces, ascii_pieces = _pieces(), _pieces(ascii_only=True)
    return {
        original: Twin(
            original,
            compile_re2(rewrite.format(**pieces)),
            compile_re2(rewrite.format(**ascii_pieces)),
        )
        for original, rewrite in _REWRITES.items()
    }


class LinearKeywordDetector(KeywordDetector):
    """detect-secrets' ``KeywordDetector`` with each regex replaced by its twin.

    A subclass, so the filters that look at the plugin treat it as the original; its
    secret type and settings are the original's."""

    def __init__(self, original: KeywordDetector, table: Mapping[Pattern[str], Twin]) -> None:
        exclude = original.keyword_exclude
        super().__init__(keyword_exclude=exclude.pattern if exclude is not None else None)
        self._table = table
        # The plugin passes one of its module's tables on every line: their twins are
        # mapped once (id -> the table and its twins; any other table, every time).
        tables = [*kw.REGEX_BY_FILETYPE.values(), kw.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP]
        self._mapped = {
            id(t): (t, self._twins_of(t)) for t in tables if all(regex in table for regex in t)
        }

    def _twins_of(self, chosen: dict[Pattern[str], int]) -> dict[Pattern[str], int]:
        # The plugin only calls ``search`` and ``group`` on what it is given.
        return cast(
            "dict[Pattern[str], int]",
            {self._table[regex]: group for regex, group in chosen.items()},
        )

    def analyze_string(
        self, string: str, denylist_regex_to_group: dict[Pattern[str], int] | None = None
    ) -> Generator[str, None, None]:
        chosen = denylist_regex_to_group or kw.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP
        known = self._mapped.get(id(chosen))
        if known is None or known[0] is not chosen:
            known = (chosen, self._twins_of(chosen))
        yield from super().analyze_string(string, known[1])


def keyword_stand_in(plugin: KeywordDetector) -> LinearKeywordDetector | None:
    """The keyword plugin on RE2, or None when the rewrite does not apply."""
    table = twins()
    return LinearKeywordDetector(plugin, table) if table is not None else None


class KeywordLines:
    """Whether the keyword plugin can report anything on a line: one RE2 program, the
    union of every rewritten regex (each loosened, ``_check_forms``), with its classes
    cut down to ASCII (see ``_pieces``), searched on an ASCII line.

    The plugin reports only what one of its regexes (of the line's file type) matched
    on the line, and each rewrite matches what its original does; so a line no
    rewrite matches yields nothing. Most lines that hold a keyword do not assign
    anything to it: the prefilter (``triggers``) checks this instead of the bare
    keyword before it hands the line to the plugin. A line that is not ASCII is
    always handed over.

    ``text``: the same union searched over an ASCII text of lines joined by newlines,
    compiled never to match across one: it hits each line on which the check passes
    (the forms hold no anchor, so a match on a line stripped of its trailing blanks is
    one on the whole line), which the prefilter reads in one pass instead of its
    keyword trigger and a check per line (``Prefilter``'s ``texts``)."""

    def __init__(self, match: Any, text: Linear | None = None) -> None:
        import re2  # lazy: a C++ extension

        self._match = match
        self._unanchored = re2._Anchor.UNANCHORED
        self.text = text

    def search(self, line: str) -> bool:
        if not line.isascii():
            return True
        data = line.encode("ascii")
        return bool(self._match(self._unanchored, data, 0, len(data))[0][0] >= 0)


@cache
def keyword_lines() -> KeywordLines | None:
    """The line check above, or None (another detect-secrets release, a program RE2
    refuses, a google-re2 without the private ``Match``): then the keyword decides."""
    if twins() is None:
        return None
    union = _check_forms(_pieces(ascii_only=True))
    try:
        import re2

        options = re2.Options()
        options.log_errors = False
        options.max_mem = _MAX_MEM
        options.never_capture = True  # only whether it matches is read
        match = re2.compile(union, options)._regexp.Match
    except Exception:  # re2.error, or a binding without ``_regexp.Match``
        return None
    try:
        options.never_nl = True  # no match crosses a line's end
        return KeywordLines(match, Linear(re2.compile(union, options)))
    except Exception:  # as above: the check goes line by line
        return KeywordLines(match)


# The loosened form of the one rewrite whose counted run made the union's automaton
# ten times larger to build (RE2 counts a bounded repetition state by state).
_COUNTED, _UNCOUNTED = "{NS}{{0,50}}?", "{NS}*"


def _check_forms(pieces: Mapping[str, str]) -> str:
    """The union the line check searches: every rewrite, the counted run ``{0,50}?``
    read as ``*``. A line a rewrite matches on, its form matches on too (a run of at
    most fifty is a run), so the check still passes every line the plugin can report
    on; a line the form alone matches on is handed to the plugin, which finds nothing
    there."""
    forms = (rewrite.replace(_COUNTED, _UNCOUNTED) for rewrite in _REWRITES.values())
    return "|".join(f"(?:{form.format(**pieces)})" for form in forms)
