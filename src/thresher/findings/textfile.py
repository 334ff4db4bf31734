"""Bytes to lines: a fallback decoding, and large files in bounded, overlapping chunks.

Two things used to drop files silently. A single Latin-1 byte in a comment made a
file "not UTF-8", and a file over 2 MiB was not read at all; a secret in either was
never seen. Text now decodes as UTF-8, else as Windows-1252, else as Latin-1 (which
decodes any bytes), and says when it needed the fallback. A file larger than
``CHUNK_BYTES`` is read a chunk at a time, cut after a line break, so memory stays
bounded whatever its size.

Each chunk is scanned together with up to ``CONTEXT_LINES`` lines of its neighbours
on either side (a PEM block that starts near the end of a chunk is whole in the
window), and reports only the lines it owns, so every line is reported once. A
single line longer than a chunk is cut into segments that keep its line number, each
repeating the last ``CUT_OVERLAP`` characters of the one before, so a value near a
cut is still whole in one of them.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO, cast, overload

from thresher.findings.options import DEFAULT_CHUNK_BYTES

CHUNK_BYTES = DEFAULT_CHUNK_BYTES
CONTEXT_LINES = 120  # the longest PEM block the engine reads, in lines
CONTEXT_CHARS = 64 * 1024  # ... and at most this much text of neighbouring lines
CUT_OVERLAP = 4096  # characters a segment of a very long line repeats from the one before
_FALLBACKS = ("cp1252", "latin-1")


def decode(data: bytes) -> tuple[str, bool]:
    """The text, and whether it needed a fallback: UTF-8, else Windows-1252 (what a
    stray accented byte in a comment usually is), else Latin-1 (never fails)."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        pass
    for encoding in _FALLBACKS:
        try:
            return data.decode(encoding), True
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes every byte string")  # pragma: no cover


def universal_newlines(text: str) -> str:
    """What reading in text mode does, and what detect-secrets sees (one search of a
    text without a carriage return, where each replacement would search it again)."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


class FileLines(Sequence[str]):
    """``readlines`` of a text, each line with its newline, read from the text split at
    its newlines (``text.split("\\n")``, which the engine makes anyway) one line at a
    time, as asked for: detect-secrets' plugins read a few lines around each line that
    may hold a secret, and a list of every line, each copied with its newline, cost
    more than all of those reads."""

    __slots__ = ("_last", "_length", "_split")

    def __init__(self, split: list[str]) -> None:
        self._split = split
        self._last = len(split) - 1  # the piece after the last newline: none follows it
        self._length = self._last if split[-1] == "" else len(split)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self._line(i) for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._line(index)

    def _line(self, index: int) -> str:
        line = self._split[index]
        return line + "\n" if index < self._last else line


@dataclass(frozen=True, slots=True)
class _Block:
    lines: list[str]
    numbers: list[int]  # the line number of each entry (a segment repeats its line's)
    fallback: bool


@dataclass(frozen=True, slots=True)
class Window:
    """Lines to scan together: ``lines[own]`` are reported, the rest are context.
    ``numbers[i]`` is the file's line number of ``lines[i]``."""

    lines: list[str]
    numbers: list[int]
    own: range
    fallback: bool


def windows(
    handle: BinaryIO, head: bytes, limit: int, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[Window]:
    """The file as overlapping windows of about ``chunk_bytes`` each; ``head`` is what
    was already read of it.

    Raises ``FileTooLarge`` as soon as more than ``limit`` bytes have been read."""
    previous: _Block | None = None
    current: _Block | None = None
    for block in _blocks(handle, head, limit, chunk_bytes):
        if current is not None:
            yield _window(previous, current, block)
        previous, current = current, block
    if current is not None:
        yield _window(previous, current, None)


class FileTooLarge(Exception):
    """The file grew past the size cap while it was read."""


def _window(before: _Block | None, block: _Block, after: _Block | None) -> Window:
    head = _context(before, tail=True)
    tail = _context(after, tail=False)
    lines = [*(before.lines[-head:] if before and head else ()), *block.lines]
    numbers = [*(before.numbers[-head:] if before and head else ()), *block.numbers]
    if after is not None and tail:
        lines += after.lines[:tail]
        numbers += after.numbers[:tail]
    own = range(head, head + len(block.lines))
    return Window(lines, numbers, own, block.fallback)


def _context(block: _Block | None, *, tail: bool) -> int:
    """How many lines of a neighbour to show: at most ``CONTEXT_LINES`` and about
    ``CONTEXT_CHARS`` of text."""
    if block is None:
        return 0
    taken = size = 0
    entries = reversed(block.lines) if tail else iter(block.lines)
    for line in entries:
        size += len(line) + 1
        if taken == CONTEXT_LINES or (taken and size > CONTEXT_CHARS):
            break
        taken += 1
    return taken


def _blocks(handle: BinaryIO, head: bytes, limit: int, chunk_bytes: int) -> Iterator[_Block]:
    pending, total, eof = head, len(head), False
    number = 1  # the line number of the next block's first entry
    cut_tail = ""  # the end of the last segment, when the block before cut a line
    while True:
        while not eof and len(pending) < chunk_bytes:
            more = handle.read(chunk_bytes - len(pending))
            total += len(more)
            if total > limit:
                raise FileTooLarge
            eof = not more
            pending += more
        if not pending:
            return
        end = len(pending) if eof else _cut(pending)
        raw, pending = pending[:end], pending[end:]
        text, fallback = decode(raw)
        text = universal_newlines(text)
        lines = text.split("\n")
        whole = text.endswith("\n")
        if whole:
            lines.pop()  # the empty string after the last newline
        cut = not whole and not (eof and not pending)
        if cut_tail:
            lines[0] = cut_tail + lines[0]
        numbers = list(range(number, number + len(lines)))
        number += len(lines) - (1 if cut else 0)
        cut_tail = lines[-1][-CUT_OVERLAP:] if cut else ""
        yield _Block(lines, numbers, fallback)


def _cut(data: bytes) -> int:
    """Where to end a block: after its last line break (LF, CRLF or a lone CR, as
    universal newlines read them; never between a CR and the LF that may follow it).
    Only a line longer than a whole block is cut inside, at a UTF-8 character
    boundary."""
    limit = len(data)
    if data.endswith(b"\r"):
        limit -= 1  # the next byte, not read yet, may be its LF
    end = max(data.rfind(b"\n", 0, limit), data.rfind(b"\r", 0, limit)) + 1
    if end > 0:
        return end
    end = len(data)
    for _ in range(3):
        if end > 1 and (data[end - 1] & 0xC0) == 0x80:
            end -= 1
    if end > 1 and data[end - 1] >= 0xC0:
        end -= 1  # the lead byte of a character cut short
    if end > 1 and data[end - 1 : end] == b"\r":
        end -= 1
    return end


def read_head(handle: BinaryIO, size: int, limit: int) -> bytes:
    """``handle.read(limit)`` as a buffered file answers it (up to the limit or the end),
    asked for the size the listing gave plus one byte first: a read of the whole limit
    allocates a buffer that large for every file, however small (2 MiB, most of a small
    file's read). A file that grew since it was listed is read on to the limit, as one
    read would have. ``handle`` may be unbuffered: a read may then return less than it
    was asked for before the end, and is repeated."""
    wanted = min(size + 1, limit)
    head = _read(handle, wanted)
    if len(head) < wanted or wanted == limit:
        return head  # the end of the file, or the limit
    return head + _read(handle, limit - wanted)


def _read(handle: BinaryIO, count: int) -> bytes:
    """``count`` bytes, fewer only at the end of the file."""
    data = handle.read(count)
    if len(data) == count or not data:
        return data
    pieces = [data]
    while count > (got := sum(map(len, pieces))) and (more := handle.read(count - got)):
        pieces.append(more)
    return b"".join(pieces)


def buffered(handle: BinaryIO) -> BinaryIO:
    """``handle`` read on through a buffer (a large file, read in chunks)."""
    if isinstance(handle, io.RawIOBase):
        return cast(BinaryIO, io.BufferedReader(handle))
    return handle
