"""One RE2 program searched over a whole text, and the lines it hits.

The prefilter's triggers (``triggers``) and the keyword plugin's line check
(``keyword_re2``) search a file's lines joined by newlines in one pass each, with
programs that never match across a newline; a hit's byte offset is mapped back to its
line, and the search goes on from the next line.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Any


def hit_lines(first: Callable[[bytes, int], int], data: bytes, offsets: list[int]) -> Iterator[int]:
    """The lines an RE2 search (``first``: a hit's byte offset from a position, or -1)
    hits in ``data``, each once, in order: a hit's offset mapped to its line through the
    lines' byte ``offsets``, the search going on from the next line."""
    position = 0
    while (start := first(data, position)) >= 0:
        index = bisect_right(offsets, start) - 1
        yield index
        if index + 1 >= len(offsets):
            return
        position = offsets[index + 1]


def line_hits(first: Callable[[bytes, int], int], data: bytes) -> Iterator[int]:
    """``hit_lines`` without a table of the lines' offsets: the first byte of each line
    the search hits, each once, in order (``line_numbers`` numbers them). A line ends at
    a newline; the one before a hit and the one after it are found by ``rfind`` and
    ``find``, in C."""
    position = 0
    while (start := first(data, position)) >= 0:
        newline = data.rfind(b"\n", position, start)  # ``position`` starts a line
        yield position if newline < 0 else newline + 1
        position = data.find(b"\n", start) + 1
        if not position:
            return


def line_numbers(data: bytes | str, begins: Iterable[int]) -> dict[int, int]:
    """The line (counted from 0) of each offset in ``begins``, a line's first byte in
    ``data`` (or character, in a string): the newlines before it, counted in one sweep
    over the text in C, where a table of every line's offset would cost a step in
    Python per line."""
    numbers: dict[int, int] = {}
    line = position = 0
    count = data.count
    newline: Any = b"\n" if isinstance(data, bytes) else "\n"
    for begin in sorted(begins):
        line += count(newline, position, begin)
        numbers[begin] = line
        position = begin
    return numbers


class Linear:
    """An RE2 program searched from an offset of a byte string.

    The binding's ``search`` and ``finditer`` run a Python generator and build a match
    object for every hit (thousands for the keyword list on a large file); the
    program's own ``Match`` answers with the offsets alone, and the scan skips to the
    next line after a hit as the Python path does."""

    def __init__(self, program: Any) -> None:
        import re2  # type: ignore[import-untyped]  # lazy: a C++ extension

        self._match = program._regexp.Match
        self._unanchored = re2._Anchor.UNANCHORED
        if self.first(b"", 0) != (0 if program.search(b"") else -1):
            raise ValueError("the binding's Match does not answer as its search does")

    def first(self, text: bytes, position: int) -> int:
        """Where the first match at or after ``position`` starts, or -1."""
        start: int = self._match(self._unanchored, text, position, len(text))[0][0]
        return start
