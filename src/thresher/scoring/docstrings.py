"""Which lines of a Python file are docstrings: documentation inside source code.

A plugin's module docstring shows its users a credentials file to write
(``dns_cloudflare_api_token = 0123456789abcdef...`` under ``.. code-block:: ini``);
Sphinx renders it as the plugin's manual. The line looks like configuration to a
scanner, but it is prose that no program loads, so the placement rule treats it as
documentation (``placement.Placement.DOCUMENTATION``).

Only a docstring counts: the string that is the first statement of a module, a class
or a function. Any other triple-quoted string may be a template a program writes out
(``CONFIG = \"\"\"password = ...\"\"\"``) and stays deployable text. The file is parsed
with ``ast``, which is linear in the text; a file that does not parse (another
Python's syntax, a template, hostile bytes, nesting deeper than the parser allows) has
no docstrings.

Most lines asked about are code (``password = "..."``, a keyword argument in a call):
``LogicalLines`` proves that much from the tokens alone (strings, comments, brackets,
continuations), ten times cheaper than the syntax tree, and the file is parsed only
when a line asked about may be in a docstring.
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from collections.abc import Sequence
from itertools import accumulate

from thresher.scoring.collector import collector_paused

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")

_WITH_DOCSTRINGS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
# The fields of a node that hold statements (or, for ``try`` and ``match``, the clauses
# that do): every place a ``def`` or a ``class`` can be written.
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def python_source(path: str) -> bool:
    return path.lower().endswith(PYTHON_SUFFIXES)


def docstring_lines(lines: Sequence[str]) -> frozenset[int]:
    """1-based numbers of the lines inside a docstring (its quotes' lines included).

    The cyclic collector is paused while the tree lives (``collector``): a large file is
    hundreds of thousands of nodes, none in a cycle, and the collections they started
    walked the scan's whole heap again and again, doubling the parse's cost."""
    with collector_paused():
        return _docstring_lines(lines)


def _docstring_lines(lines: Sequence[str]) -> frozenset[int]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in old code: still a docstring
            tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    numbers: set[int] = set()
    # Only statements hold a docstring's owner (no expression contains a ``def`` or a
    # ``class``), so the walk descends through statement bodies alone: ``ast.walk`` would
    # visit every expression node too, several times as many.
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, _WITH_DOCSTRINGS) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                and first.end_lineno is not None
            ):
                numbers.update(range(first.lineno, first.end_lineno + 1))
        for field in _BODIES:
            pending.extend(getattr(node, field, ()))
    return frozenset(numbers)


# Python's string and comment tokens, each matched whole from its opening (leftmost
# first, as the tokenizer reads them): any prefix (``r``, ``b``, ``f``) is left as code,
# a backslash escapes the next character in every kind of string (raw ones too, for the
# tokenizer), and a string ends at its first closing quote(s). Every alternative always
# matches (an unclosed string runs to the line's or the text's end), so the search never
# backtracks over a failed attempt: linear in the text. What it makes of a file that does
# not parse does not matter: such a file has no docstrings, which every answer says.
_TOKENS = re.compile(
    r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*(?:"""|\\?\Z)'
    r"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*(?:'''|\\?\Z)"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*(?:"|\n|\\?\Z)'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*(?:'|\n|\\?\Z)"
    r"|#[^\n]*",
    re.DOTALL,
)
# A string's text as ``LogicalLines`` keeps it: no bracket, quote, backslash or ``#`` left
# to count, and its line breaks marked (``_IN_STRING``) apart from the code's.
_IN_STRING = "\x01"
_STRING_TEXT = str.maketrans({"\n": _IN_STRING, **dict.fromkeys("()[]{}\\#'\"", "S")})
# From 3.12 an f-string (and from 3.14 a t-string) is tokenized as its parts, quotes
# nested in its fields included: a file holding one is left to the parser.
_NESTING_PREFIX = frozenset("fFtT") if sys.version_info >= (3, 12) else frozenset()
# A logical line that opens with a name, and the names that may open a docstring's owner.
_OPENING_NAME = re.compile(r"[ \t\f]*([A-Za-z_]\w*)")
_OWNERS = frozenset({"def", "class", "async"})
_MAX_WALK = 2000  # lines walked back to a logical line's start before the parser decides
_EVERY = 64  # lines between the checkpoints of the brackets' depth


class LogicalLines:
    """Which lines of a Python file are certainly outside every docstring, told from its
    tokens: a docstring is the string statement opening a body, so a line whose logical
    line (the statement it belongs to, over continuations and brackets) opens with a
    name other than ``def``, ``class`` or ``async`` holds none. Nor does a blank or
    comment line between statements. Anything else is left to ``docstring_lines``.

    Exact for every file that parses (the only files with docstrings): the string,
    comment, bracket and continuation rules are the tokenizer's."""

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines
        self._nested = False
        # The text with every comment blanked and every string's brackets, quotes and
        # backslashes replaced, its line breaks marked: the same offsets as the text.
        self._code = _TOKENS.sub(self._blank, "\n".join(lines))
        # Each line's offset, less its number (the line breaks before it).
        self._lengths = list(accumulate(map(len, lines), initial=0))
        self._opening: dict[int, int] = {}  # line index -> its logical line's first
        self._checkpoints = [0]  # brackets open at the start of lines 0, _EVERY, ...

    def _blank(self, match: re.Match[str]) -> str:
        token = match.group()
        if token[0] == "#":
            return " " * len(token)
        if _NESTING_PREFIX and not _NESTING_PREFIX.isdisjoint(
            match.string[max(0, match.start() - 2) : match.start()]
        ):
            self._nested = True
        return token.translate(_STRING_TEXT) if "\n" in token else "S" * len(token)

    def outside_docstrings(self, number: int) -> bool:
        """Whether line ``number`` (1-based) is proven outside every docstring (False:
        not proven, ask the parser)."""
        index = number - 1
        if self._nested or not 0 <= index < len(self._lines):
            return False
        first = self._first(index)
        if first is None:
            return False
        if first == index and not self._code[self._start(index) : self._start(index + 1)].strip(
            " \t\f\n"
        ):
            return True  # a blank or comment line between statements
        line = self._lines[first]
        opening = _OPENING_NAME.match(line)
        if opening is None or opening.group(1) in _OWNERS:
            return False
        return line[opening.end() : opening.end() + 1] not in ('"', "'")  # not ``r"..."``

    def _start(self, index: int) -> int:
        return self._lengths[index] + index

    def _first(self, index: int) -> int | None:
        """The index of the line that opens line ``index``'s logical line, or None
        (over ``_MAX_WALK`` lines back)."""
        known = self._opening.get(index)
        if known is not None:
            return known
        code = self._code
        start = self._start(index)
        depth = self._depth(index)
        walked: list[int] = []
        while index > 0:
            if code[start - 1] != _IN_STRING and code[start - 2 : start] != "\\\n" and not depth:
                break  # a line that opens its logical line
            known = self._opening.get(index)
            if known is not None:
                break
            if len(walked) == _MAX_WALK:
                return None
            walked.append(index)
            index -= 1
            before = self._start(index)
            depth -= _net(code, before, start)
            start = before
        first = index if known is None else known
        for line in walked:
            self._opening[line] = first
        self._opening[index] = first
        return first

    def _depth(self, index: int) -> int:
        """Brackets open at the start of line ``index``: counted from the last of the
        checkpoints (every ``_EVERY`` lines, made as far as asked), so the file's
        brackets are counted once however many lines are asked about."""
        checkpoints = self._checkpoints
        while len(checkpoints) <= index // _EVERY:
            at = (len(checkpoints) - 1) * _EVERY
            checkpoints.append(
                checkpoints[-1] + _net(self._code, self._start(at), self._start(at + _EVERY))
            )
        at = index // _EVERY * _EVERY
        return checkpoints[index // _EVERY] + _net(self._code, self._start(at), self._start(index))


def _net(code: str, start: int, end: int) -> int:
    """Brackets opened less brackets closed in ``code[start:end]``."""
    return (
        code.count("(", start, end)
        + code.count("[", start, end)
        + code.count("{", start, end)
        - code.count(")", start, end)
        - code.count("]", start, end)
        - code.count("}", start, end)
    )
