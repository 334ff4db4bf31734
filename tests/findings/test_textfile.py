"""Large files in chunks: every line is reported by exactly one window, with its own
line number, whatever the line breaks and wherever the chunks end."""

from __future__ import annotations

import io
import random

import pytest

from thresher.findings.textfile import (
    CONTEXT_LINES,
    FileTooLarge,
    decode,
    universal_newlines,
    windows,
)


def _lines(data: bytes) -> list[str]:
    text = universal_newlines(decode(data)[0])
    lines = text.split("\n")
    return lines[:-1] if text.endswith("\n") else lines


def _owned(data: bytes, chunk: int) -> list[tuple[int, str]]:
    handle = io.BytesIO(data)
    head = handle.read(chunk + 1)
    out: list[tuple[int, str]] = []
    for window in windows(handle, head, len(data), chunk):
        assert window.own.start <= CONTEXT_LINES
        assert len(window.lines) - window.own.stop <= CONTEXT_LINES
        out += [(window.numbers[i], window.lines[i]) for i in window.own]
    return out


@pytest.mark.parametrize("seed", range(40))
def test_every_line_is_owned_once_with_its_number(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ["a", "bc", "é", "€", "\n", "\r\n", "\r", " ", "x" * 50]
    data = "".join(rng.choices(pieces, k=rng.randint(0, 3000))).encode()
    chunk = rng.choice([64, 100, 257, 1024])
    expected = _lines(data)
    owned = _owned(data, chunk)
    numbers = sorted({n for n, _ in owned})
    assert numbers == list(range(1, len(expected) + 1))
    by_number: dict[int, list[str]] = {}
    for number, text in owned:
        by_number.setdefault(number, []).append(text)
    for number, texts in by_number.items():
        line = expected[number - 1]
        if len(texts) == 1 and len(line.encode()) <= chunk:
            assert texts[0] == line  # a line that fits a chunk is never cut
        # A cut line's segments each lie inside it, and together they cover it.
        assert all(text in line for text in texts)
        assert texts[0] == line[: len(texts[0])] and line.endswith(texts[-1])


def test_fallback_decoding_and_the_size_cap() -> None:
    assert decode("café".encode()) == ("café", False)
    assert decode(b"caf\xe9 \x80") == ("café €", True)  # Windows-1252
    assert decode(b"\x81\x8d") == ("\x81\x8d", True)  # Latin-1: bytes 1252 leaves undefined
    handle = io.BytesIO(b"line\n" * 1000)
    head = handle.read(101)
    with pytest.raises(FileTooLarge):
        list(windows(handle, head, 2000, 100))


def test_file_lines_read_as_readlines_does() -> None:
    """``FileLines`` answers every index and slice as the list ``readlines`` makes."""
    import io

    from thresher.findings.textfile import FileLines

    for text in ["", "\n", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "x\n\ny\n\n", "é\r\n\nz"]:
        expected = io.StringIO(text, newline="\n").readlines()
        lines = FileLines(text.split("\n"))
        assert len(lines) == len(expected), text
        assert list(lines) == expected, text
        for start in range(-4, 6):
            for stop in (None, -1, 0, 2, 9):
                assert lines[start:stop] == expected[start:stop], (text, start, stop)
        for index in range(-len(expected), len(expected)):
            assert lines[index] == expected[index]
        for index in (len(expected), -len(expected) - 1):
            try:
                lines[index]
            except IndexError:
                continue
            raise AssertionError((text, index))
