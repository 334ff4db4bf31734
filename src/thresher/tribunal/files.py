"""Files read once for all their findings: the offline panel's shared reads.

The heuristic reads the lines around each finding, and the workspace redacts a margin
of a few hundred lines around every read, so a file holding 400 candidates (a test
fixture of keys and certificates) was redacted 400 times over. A file with several
findings is instead read once through the workspace, in chunks its output limit
allows, and each finding's line and context come from those redacted lines; a file
with one finding is read as before. The reads still go through ``Workspace.read_file``
(containment, binary and size checks, redaction), so nothing the workspace refuses is
seen here either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from thresher.agents.tooling import ToolError
from thresher.agents.toolspecs import ReadFileArgs
from thresher.agents.workspace import Workspace
from thresher.findings import Finding

SHARED_FROM = 3  # findings in one file before it is read once for all of them
_CHUNK_LINES = 2_000  # lines asked for per read; the workspace cuts long output shorter
_MAX_CHARS = 64 * 1024 * 1024  # redacted text kept for the whole run


class SharedReads:
    """Redacted lines of the files that hold several findings, read on first use."""

    def __init__(self, workspace: Workspace | None) -> None:
        self.workspace = workspace
        self.expected: Counter[str] = Counter()
        self._lines: dict[str, list[str] | None] = {}
        self._chars = 0

    def expect(self, findings: Iterable[Finding]) -> None:
        """The findings about to be decided: which files are worth one shared read."""
        self.expected.update(f.locations[0].path for f in findings)

    def lines(self, path: str) -> list[str] | None:
        """The file's redacted lines, or None: read it per finding as the heuristic does
        (one finding there, a read error to report exactly, or the memory bound reached)."""
        if self.workspace is None or self.expected[path] < SHARED_FROM:
            return None
        if path not in self._lines:
            lines = self._read(self.workspace, path)
            size = sum(len(line) for line in lines) if lines is not None else 0
            if lines is not None and self._chars + size > _MAX_CHARS:
                lines = None
            self._chars += size
            self._lines[path] = lines
        return self._lines[path]

    def context_ok(self, path: str, start_line: int) -> bool | None:
        """Whether ``read_file(path, start_line, ...)`` succeeds, if known from a shared
        read; None when the file is read per finding."""
        lines = self.lines(path)
        if lines is None:
            return None
        return bool(lines) and start_line <= len(lines)

    @staticmethod
    def _read(workspace: Workspace, path: str) -> list[str] | None:
        lines: list[str] = []
        start = 1
        while True:
            try:
                output = workspace.read_file(
                    ReadFileArgs(path=path, start_line=start, end_line=start + _CHUNK_LINES - 1)
                )
            except ToolError:
                return None  # an empty, binary or unreadable file: the exact call says why
            except Exception:  # odd input the exact call reports as a tool failure
                return None
            got = [str(line) for line in output.data.get("lines") or []]
            total = int(output.data.get("total_lines", 0))
            if not got:
                return None
            lines += got
            start += len(got)
            if start > total:
                return lines
