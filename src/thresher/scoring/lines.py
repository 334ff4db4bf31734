"""The lines of a scan's files, as the scorer's contexts read them.

A file is read once however many findings it holds, at most ``MAX_FILE_BYTES`` of it,
and a line handed on is capped at ``MAX_LINE_CHARS``, so a huge minified file cannot
make scoring slow. Also here: whether a line sits inside test code its path does not
reveal (``in_test_block``).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from thresher.git.resolved import ResolvedDirectories
from thresher.scoring.docstrings import LogicalLines, docstring_lines, python_source
from thresher.scoring.reading import read_head

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_LINE_CHARS = 64 * 1024

# A line a context may read: its path and number, and whether it may be asked whether
# the line sits in a test block and in a docstring (``scoring.context.reads_of``).
Read = tuple[str, int, bool, bool]
T = TypeVar("T")


class LineReader:
    """Lines of files under ``root``, each file read once and cached.

    ``scanned`` holds the text of the lines the scanner read (a diff or staged scan reads
    git blobs, which the working tree need not match): those win over the disk, and the
    disk is trusted for the surrounding lines only where it still agrees with them.
    """

    def __init__(self, root: Path, scanned: Mapping[tuple[str, int], str] | None = None) -> None:
        self._root = root.resolve()
        self._files: dict[str, tuple[str, ...]] = {}
        self._docstrings: dict[str, frozenset[int]] = {}
        self._logical: dict[str, LogicalLines] = {}  # files not parsed (yet)
        self._directories = ResolvedDirectories(str(self._root))  # each file's
        self._margins: dict[str, list[int]] = {}  # per file: ``in_test_block``'s indents
        self._scanned = dict(scanned or {})

    def forget(self, path: str) -> None:
        """Let go of what was read of ``path``: no finding left needs it (asked again,
        it is read again)."""
        self._files.pop(path, None)
        self._margins.pop(path, None)
        self._docstrings.pop(path, None)
        self._logical.pop(path, None)

    def lines(self, path: str) -> tuple[str, ...]:
        lines = self._files.get(path)
        if lines is None:
            lines = self._read(path)
            self._files[path] = lines
        return lines

    def line(self, path: str, number: int) -> str:
        known = self._scanned.get((path, number))
        if known is not None:
            return known[:MAX_LINE_CHARS]
        lines = self.lines(path)
        if 1 <= number <= len(lines):
            return lines[number - 1][:MAX_LINE_CHARS]
        return ""

    def _agrees(self, path: str, number: int, lines: tuple[str, ...]) -> bool:
        """Whether the disk's line is the one the scanner read: where the working tree is
        not what was scanned, there is no context around it to read."""
        known = self._scanned.get((path, number))
        return known is None or (
            number <= len(lines) and lines[number - 1][:MAX_LINE_CHARS] == known[:MAX_LINE_CHARS]
        )

    def in_test_block(self, path: str, number: int) -> bool:
        known = self._scanned.get((path, number))
        if known is not None and known[:1] not in (" ", "\t"):
            # At the margin as scanned: no block encloses it, and where the disk differs
            # there is no context either (``_agrees``), so the file need not be read.
            return False
        lines = self.lines(path)
        if not self._agrees(path, number, lines):
            return False
        margins = self._margins.get(path)
        if margins is None:
            margins = self._margins[path] = [_UNKNOWN] * len(lines)
        return in_test_block(lines, number, margins)

    def in_docstring(self, path: str, number: int) -> bool:
        """Whether line ``number`` of a Python file is inside a docstring (parsed once a
        file, and only when its tokens cannot tell: ``LogicalLines``); as for test
        blocks, only where the working tree is what was scanned."""
        if not python_source(path):
            return False
        lines = self.lines(path)
        if not self._agrees(path, number, lines):
            return False
        docstrings = self._docstrings.get(path)
        if docstrings is None:
            logical = self._logical.get(path)
            if logical is None:
                logical = self._logical[path] = LogicalLines(lines)
            if logical.outside_docstrings(number):
                return False
            del self._logical[path]
            docstrings = self._docstrings[path] = docstring_lines(lines)
        return number in docstrings

    def _target(self, path: str) -> Path | None:
        """The regular file ``path`` names, resolved as ``Path.resolve`` resolves it, or
        None outside the root or where no regular file is.

        Resolving checks every component of the path, a system call each; a file's
        directory is resolved once for all its files, and the file itself checked with
        one ``lstat``. A link, a looping link on the way, or a last name of ``.`` or
        ``..`` is resolved whole, as before."""
        head, _, name = path.rpartition("/")
        if name in ("", ".", ".."):
            return self._resolved(path)
        target = os.path.join(self._directories.of(head), name)  # noqa: PTH118
        try:
            status = os.lstat(target)
        except OSError as error:
            if error.errno == errno.ELOOP:  # a looping link on the way: as ``resolve`` says
                return self._resolved(path)
            return None  # nothing there (``resolve`` keeps the name, ``is_file`` says no)
        if stat.S_ISLNK(status.st_mode):
            return self._resolved(path)
        resolved = Path(target)
        if not stat.S_ISREG(status.st_mode) or not resolved.is_relative_to(self._root):
            return None
        return resolved

    def _resolved(self, path: str) -> Path | None:
        target = (self._root / path).resolve()
        if not target.is_relative_to(self._root) or not target.is_file():
            return None
        return target

    def _read(self, path: str) -> tuple[str, ...]:
        target = self._target(path)
        if target is None:
            return ()
        try:
            data = read_head(target, MAX_FILE_BYTES)
        except OSError:
            return ()
        # Split as the scanner counts lines (universal newlines, then "\n"): str.splitlines
        # would also break on form feeds and other separators and give the wrong line.
        text = data.decode("utf-8", "replace")
        if b"\r" in data:  # a carriage return decodes from that byte alone
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        # A tuple of strings: the collector stops tracking it at its first pass, where a
        # list of every line of every file read stayed for each full collection to walk.
        return tuple(text.split("\n"))


# How far back to look for the enclosing test function or test module.
_LOOKBACK = 400
_RUST_TEST_ATTR = re.compile(r"^\s*#\[cfg\(test\)\]\s*$")
_RUST_MOD = re.compile(r"^\s*(?:pub\s+)?mod\s+\w+\s*\{")
_DEF = re.compile(
    r"^\s*(?:pub\s+)?(?:async\s+)?(def|fn|func|function)\s+(?:\([^)]{0,80}\)\s*)?"
    r"([A-Za-z_]\w{0,80})"
)
_JS_TEST = re.compile(r"^\s*(?:it|test|describe)\s*\(")
_TEST_NAMES = ("test", "Test", "Benchmark", "Fuzz")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def in_test_block(lines: Sequence[str], number: int, margins: list[int] | None = None) -> bool:
    """Whether line ``number`` sits inside test code that its path does not reveal: a
    Rust ``#[cfg(test)] mod … {``, a ``test_*`` / ``Test*`` function, an ``it(`` /
    ``test(`` block. Rust, Go and Python keep such tests inside ordinary source files.

    Walks outwards through the enclosing blocks (each less indented than the last) and
    stops at the first function that is not a test: code after a test is not a test.
    ``margins`` (one slot a line, ``_UNKNOWN`` until read) keeps each line's indent, or
    ``_BLANK``, across the calls of one file: the findings of a file walk the same
    lines again and again.
    """
    if not 1 <= number <= len(lines):
        return False
    current = _indent(lines[number - 1])
    if current == 0:
        return False  # no line encloses one at the margin (every indent is >= 0)
    if margins is None:
        margins = [_UNKNOWN] * len(lines)
    for index in range(number - 2, max(-1, number - 2 - _LOOKBACK), -1):
        margin = margins[index]
        if margin == _UNKNOWN:
            text = lines[index][:300]
            body = text.lstrip(" \t")  # ``_indent`` inline: this loop runs 400 lines a finding
            margin = margins[index] = len(text) - len(body) if body.strip() else _BLANK
        if margin >= current:
            continue  # as deep as the line below, or blank
        current = margin
        text = lines[index][:300]
        if _JS_TEST.match(text):
            return True
        if _RUST_MOD.match(text):
            previous = lines[index - 1][:300] if index > 0 else ""
            if _RUST_TEST_ATTR.match(previous):
                return True
            continue
        match = _DEF.match(text)
        if match:
            if match.group(2).startswith(_TEST_NAMES):
                return True
            if match.group(1) != "fn":  # a Rust helper fn may sit inside a test module
                return False
        if current == 0:
            return False
    return False


# A line's indent not read yet, and a blank line's (never less than the line below's).
_UNKNOWN = -1
_BLANK = sys.maxsize


class ReadAhead:
    """What contexts read of their findings' files, read ahead in the order of paths.

    A process that builds contexts in an order other than by path (``scoring.beside``:
    the order the findings are decided in) would read a file again each time its
    findings come back round, or keep every file. ``ahead`` reads each file once
    instead, keeps of it only the answers asked for (a line, whether it is in a test
    block, in a docstring) and lets it go. An answer not read ahead (``reads_of`` lists
    every one a context asks for: none should be) is read then, from ``reader``, and the
    file let go again. Each answer is the one ``reader`` gives, whenever it is asked.
    """

    def __init__(self, reader: LineReader) -> None:
        self._reader = reader
        self._lines: dict[tuple[str, int], str] = {}
        self._blocks: dict[tuple[str, int], bool] = {}
        self._docstrings: dict[tuple[str, int], bool] = {}

    def ahead(self, reads: Iterable[Read]) -> None:
        """Read the answers of ``reads``, sorted by path: a file at a time."""
        reader = self._reader
        current: str | None = None
        for path, number, block, docstring in reads:
            if path != current:
                if current is not None:
                    reader.forget(current)
                current = path
            key = (path, number)
            self._lines[key] = reader.line(path, number)
            if block:
                self._blocks[key] = reader.in_test_block(path, number)
            if docstring:
                self._docstrings[key] = reader.in_docstring(path, number)
        if current is not None:
            reader.forget(current)

    def line(self, path: str, number: int) -> str:
        known = self._lines.get((path, number))
        return known if known is not None else self._read(self._reader.line, path, number)

    def in_test_block(self, path: str, number: int) -> bool:
        known = self._blocks.get((path, number))
        return known if known is not None else self._read(self._reader.in_test_block, path, number)

    def in_docstring(self, path: str, number: int) -> bool:
        known = self._docstrings.get((path, number))
        return known if known is not None else self._read(self._reader.in_docstring, path, number)

    def _read(self, ask: Callable[[str, int], T], path: str, number: int) -> T:
        """An answer not read ahead, from the reader, which then lets go of the file."""
        try:
            return ask(path, number)
        finally:
            self._reader.forget(path)
