"""Files read once for all their findings: the offline panel's shared reads.

The heuristic reads the lines around each finding, and the workspace redacts a margin
around every read, so a file holding 400 candidates (a test fixture of keys and
certificates) was read, split and redacted 400 times over. A file with findings is
instead read once through the workspace (containment, binary and size checks: nothing
the workspace refuses is seen here either), and each finding's line comes from that
read, redacted as ``read_file`` redacts it: the lines the panel reads around its
findings -- their context windows, overlapping ones merged into one range -- each with
the workspace's own margin, on first use. The rest of the file is never redacted, since
nothing reads it: redacting whole files cost more than deciding their findings. A file
with one finding is read the same way: the panel then asks the redactor first whether
it needs the redacted line at all (``thresher.tribunal.offline``), and most of the time
the file is never redacted.

So the redactor learns the values detection finds where the panel reads redacted
lines, and nowhere else. Nothing the panel reads reaches a model, and its decisions are
redacted whole, by detection and by every value learned, before they are written; the
LLM path reads through the workspace with its wide margin.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from thresher.agents.tooling import ToolError
from thresher.agents.workspace import Workspace
from thresher.findings import Finding

CONTEXT_LINES = 10  # lines either side of the finding the heuristic reads
_MAX_CHARS = 64 * 1024 * 1024  # file text kept for the whole run


def context_range(line: int) -> tuple[int, int]:
    """The lines the heuristic reads around a finding on ``line`` (``end`` may lie past
    the end of the file: ``read_file`` stops at the last line)."""
    return max(1, line - CONTEXT_LINES), line + CONTEXT_LINES


class RedactedLines(Sequence[str]):
    """A file's lines as ``read_file`` shows them: the findings' context windows
    (``ranges``) redacted as ``Workspace.redacted_ranges`` merges them, each merged text
    on the first read of one of its lines, any other line with its own context window
    when it is read."""

    def __init__(
        self, workspace: Workspace, raw: Sequence[str], ranges: list[tuple[int, int]]
    ) -> None:
        self._workspace = workspace
        self._raw = raw
        self._ranges = ranges
        self._redacted: dict[int, str] = {}  # the lines redacted so far, by number
        self._starts = [start for start, _ in ranges]  # sorted, disjoint (``_merged``)

    def __len__(self) -> int:
        return len(self._raw)

    def raw(self, number: int) -> str:
        """Line ``number`` (from 1) as the file holds it: for a caller that shows it to
        no one and only asks the redactor what redaction would leave of it."""
        return self._raw[number - 1]

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._raw)))]
        number = range(1, len(self._raw) + 1)[index]  # raises IndexError as a list does
        line = self._redacted.get(number)
        if line is None and self._in_range(number):
            # The text that holds the line, with the windows around it that it merges with.
            shown = self._workspace.redacted_ranges(self._raw, self._ranges, holding=number)
            for n, text in shown.items():
                self._redacted.setdefault(n, text)
            line = self._redacted.get(number)
        if line is None:
            start, end = context_range(number)
            window = [(start, min(end, len(self._raw)))]
            for n, text in self._workspace.redacted_ranges(self._raw, window).items():
                self._redacted.setdefault(n, text)
            line = self._redacted[number]
        return line

    def _in_range(self, number: int) -> bool:
        index = bisect_right(self._starts, number) - 1
        return index >= 0 and number <= self._ranges[index][1]


class SharedReads:
    """Redacted lines of the files that hold findings, read on first use."""

    def __init__(self, workspace: Workspace | None) -> None:
        self.workspace = workspace
        self.expected: Counter[str] = Counter()
        self._wanted: defaultdict[str, set[int]] = defaultdict(set)
        self._lines: dict[str, RedactedLines | None] = {}
        self._chars = 0  # the text of the files held now
        self._sizes: dict[str, int] = {}
        self._decided: Counter[str] = Counter()

    def expect(self, findings: Iterable[Finding]) -> None:
        """The findings about to be decided: which files are worth one shared read, and
        which of their lines the panel will read."""
        for finding in findings:
            location = finding.locations[0]
            self.expected[location.path] += 1
            self._wanted[location.path].add(location.line)

    def lines(self, path: str) -> RedactedLines | None:
        """The file's redacted lines, or None: read it per finding as the heuristic does
        (no finding expected there, a read error to report exactly, or the memory bound
        reached)."""
        if self.workspace is None or not self.expected[path]:
            return None
        if path not in self._lines:
            raw = self._read(self.workspace, path)
            size = raw.chars if raw is not None else 0
            if raw is not None and self._chars + size > _MAX_CHARS:
                raw = None
            if raw is not None:
                self._chars += size
                self._sizes[path] = size
            self._lines[path] = (
                None
                if raw is None
                else RedactedLines(self.workspace, raw, _merged(self._wanted[path], len(raw)))
            )
        return self._lines[path]

    def decided(self, path: str) -> None:
        """One more finding in ``path`` decided: after the last one its lines are let go,
        so a run holds the files it is deciding, not every file it has read, and
        ``_MAX_CHARS`` bounds the text of those."""
        self._decided[path] += 1
        if self._decided[path] >= self.expected[path]:
            self._lines.pop(path, None)
            self._chars -= self._sizes.pop(path, 0)

    def context_ok(self, path: str, start_line: int) -> bool | None:
        """Whether ``read_file(path, start_line, ...)`` succeeds, if known from a shared
        read; None when the file is read per finding."""
        lines = self.lines(path)
        if lines is None:
            return None
        return bool(lines) and start_line <= len(lines)

    @staticmethod
    def _read(workspace: Workspace, path: str) -> PackedLines | None:
        try:
            lines = workspace.text_lines(path)
        except ToolError:
            return None  # a binary or unreadable file: the exact call says why
        except Exception:  # odd input the exact call reports as a tool failure
            return None
        return PackedLines(lines) if lines else None  # an empty file: the exact call says so


class PackedLines(Sequence[str]):
    """A file's lines kept as one string and where each line starts.

    A run holds the files of the findings it is deciding, and decides them in the order
    of risk, not of paths, so it holds hundreds at once: as a list, each line was a
    string object of its own, about fifty bytes over its text. Here a line costs eight,
    and is cut out of the text when read: the same string as the list held."""

    def __init__(self, lines: list[str]) -> None:
        self._text = "\n".join(lines)  # no line holds a line break (``_split_lines``)
        starts = array("Q", [0])
        at = 0
        for line in lines:
            at += len(line) + 1
            starts.append(at)
        self._starts = starts  # line i is text[starts[i]:starts[i + 1] - 1]
        self.chars = at - len(lines)  # the lines' characters, as their lengths sum

    def __len__(self) -> int:
        return len(self._starts) - 1

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return (
                    self._text[self._starts[start] : self._starts[max(start, stop)] - 1].split("\n")
                    if stop > start
                    else []
                )
            return [self[i] for i in range(start, stop, step)]
        number = range(len(self))[index]  # raises IndexError as a list does
        return self._text[self._starts[number] : self._starts[number + 1] - 1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._text.split("\n"))


def _merged(lines: Iterable[int], total: int) -> list[tuple[int, int]]:
    """The context windows of findings on ``lines`` within a file of ``total`` lines,
    overlapping or adjacent ones merged, sorted."""
    merged: list[tuple[int, int]] = []
    for line in sorted(n for n in lines if 1 <= n <= total):
        start, end = context_range(line)
        end = min(end, total)
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
