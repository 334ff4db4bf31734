"""The texts the prefilter's whole-text passes search: a file's lines joined, its fold,
and both in UTF-8 with the byte offset of each line (see ``triggers``)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from operator import add

from thresher.findings.re2_classes import searchable_utf8


class Haystacks:
    """A text (``False``) and its fold (``True``), folded only when first asked for."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._folded: str | None = None

    def __getitem__(self, lowered: bool) -> str:
        if not lowered:
            return self._text
        if self._folded is None:
            self._folded = fold(self._text)
        return self._folded


def utf8(text: str, starts: list[int], lines: Sequence[str]) -> tuple[bytes, list[int]]:
    """``text`` as RE2 reads it, and the byte offset of each line start in ``starts``.

    ``text`` is ``lines`` joined by newlines, or its fold (the same length, line for
    line, and ASCII where the line is). Only a line that is not ASCII is longer in
    bytes than in characters; only those are encoded to count by how much.

    A lone surrogate (a YAML escape can make one) becomes U+FFFD, which no trigger
    class holds either, and which is three bytes long, as the surrogate is."""
    if text.isascii():
        return text.encode("ascii"), starts
    longer = [0] * len(starts)
    for index in [i for i, line in enumerate(lines) if not line.isascii()]:
        if index + 1 < len(longer):
            begin = starts[index]
            piece = text[begin : begin + len(lines[index])]
            longer[index + 1] = len(piece.encode("utf-8", "surrogatepass")) - len(piece)
    offsets = list(map(add, starts, accumulate(longer)))
    return searchable_utf8(text), offsets


def fold(text: str) -> str:
    """Lower case, same length, and every case-insensitive match of an ASCII
    letter (or of n-tilde) in ``text`` becomes that lower-case letter.

    ``str.lower`` changes the length of one character only (U+0130, dotted
    capital I, to "i" plus a combining dot), and leaves the dotless i and the
    long s, which ``re.IGNORECASE`` equates with i and s, as they are."""
    if text.isascii():
        return text.lower()
    return text.replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")
