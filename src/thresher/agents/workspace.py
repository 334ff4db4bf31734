"""Read-only tools over an untrusted checkout: paths stay inside the workspace
after symlinks are resolved, a named pipe or swapped-in link can neither hang nor
escape a read, and git runs with the repository's own config neutralised, because
a scanned repository may ship a ``.git/config`` written to run commands.

File reading lives here; history tools are in ``workspace_git`` and shared text
helpers in ``workspace_text``. Their public constants are re-exported below, so
imports from here keep working."""

from __future__ import annotations

import copy
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.toolspecs import GrepArgs, ListDirArgs, ReadFileArgs
from thresher.agents.workspace_git import GIT_TIMEOUT_S as GIT_TIMEOUT_S
from thresher.agents.workspace_git import MAX_SCANNED_COMMITS as MAX_SCANNED_COMMITS
from thresher.agents.workspace_git import GitTools
from thresher.agents.workspace_text import (
    _MULTILINE_MARKERS,
    _NARROW_LINES,
    _REDACTION_LINES,
    _is_binary,
    _linear_regex,
    _printable,
    _split_lines,
)
from thresher.agents.workspace_text import BINARY_SNIFF_BYTES as BINARY_SNIFF_BYTES
from thresher.git.history import HistoryIndex, git_env
from thresher.git.resolved import ResolvedDirectories, is_link

DEFAULT_READ_LINES = 200
MAX_READ_BYTES = 5 * 1024 * 1024
MAX_GREP_FILE_BYTES = 1024 * 1024
MAX_GREP_LINE_CHARS = 2000
MAX_GREP_TEXT_CHARS = 300
MAX_DIR_ENTRIES = 500


_git_env = git_env


# .git/ holds credentials (actions/checkout's http.extraheader in .git/config) and
# hooks; history is read through git_log and git_show instead.
_GIT_INTERNALS = "{shown}: .git/ internals are refused; use git_log or git_show for history"


def _resolved_whole(path: str) -> str:
    """``Path.resolve``: a looping link is a ``RuntimeError`` the tools report."""
    return str(Path(path).resolve())


class Workspace(GitTools):
    """What an agent may look at in one checkout; nothing here writes to it."""

    def __init__(
        self,
        root: Path,
        *,
        value_for: Callable[[str], str | None] = lambda _id: None,
        max_output_chars: int = 20_000,
        redact: Callable[[str], str] | None = None,
        history: HistoryIndex | None = None,
        narrow_redaction: bool = False,
    ) -> None:
        self._root, self._value_for, self._max_chars = root.resolve(), value_for, max_output_chars
        # The run's one read of the history; without it each finding re-reads the log.
        self._history = history
        self._env = _git_env(self._root)
        # Applied to whole texts before any cut: a value straddling a cut would no longer
        # be recognised afterwards, and up to all but one of its characters would leak.
        self._redact: Callable[[str], str] = redact or (lambda text: text)
        self._narrow = narrow_redaction
        # Each directory resolved once (``_resolved``): a run reads thousands of files.
        self._directories = ResolvedDirectories(str(self._root), _resolved_whole)

    def _relative(self, raw: str) -> PurePosixPath:
        """Lexical checks alone, enough for names that only git interprets."""
        rel = PurePosixPath(raw or ".")
        if "\x00" in raw or rel.is_absolute() or ".." in rel.parts:
            raise ToolError(f"{raw!r} refused: use a path relative to the workspace, without '..'")
        if ".git" in rel.parts:
            raise ToolError(_GIT_INTERNALS.format(shown=rel.as_posix()))
        return rel

    def _resolve(self, raw: str) -> tuple[Path, str]:
        """Resolved before the containment test, so an outward link is refused."""
        shown = self._relative(raw).as_posix()
        try:
            target = self._resolved(shown)
        except (OSError, RuntimeError) as exc:
            raise ToolError(f"{shown}: cannot resolve ({exc})") from exc
        if not target.is_relative_to(self._root):
            raise ToolError(f"{shown} resolves outside the workspace (symlink); refused")
        if ".git" in target.relative_to(self._root).parts:
            raise ToolError(_GIT_INTERNALS.format(shown=shown))
        if not target.exists():
            raise ToolError(f"{shown}: no such file or directory")
        return target, shown

    def _resolved(self, shown: str) -> Path:
        """``(root / shown).resolve()``, its directory resolved once a run: the resolved
        directory joined with a name that is not a link resolves to itself, and a link
        is resolved whole, as before (resolving every path whole was a twentieth of an
        offline decision's time)."""
        parent, _, name = shown.rpartition("/")
        if name in ("", ".", ".."):
            return (self._root / shown).resolve()
        return self._resolved_in(Path(self._directories.of(parent)), name)

    @staticmethod
    def _resolved_in(base: Path, name: str) -> Path:
        """``(base / name).resolve()`` for a resolved ``base``: the name itself unless it
        is a link (then resolved whole)."""
        target = base / name
        return target.resolve() if is_link(str(target)) else target

    def _read_regular(self, target: Path, shown: str, limit: int) -> bytes:
        """No-follow, non-blocking, regular files only: a swapped-in link or a FIFO
        can neither escape the workspace nor hang the agent."""
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(target, flags)
        except OSError as exc:
            raise ToolError(f"{shown}: cannot open ({exc.strerror})") from exc
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ToolError(f"{shown} is not a regular file")
            if info.st_size > limit:
                raise ToolError(f"{shown} is {info.st_size} bytes, over the {limit} byte limit")
            return handle.read(limit + 1)

    def _cap(self, text: str, hint: str) -> tuple[str, bool]:
        text = self._redact(text)
        limit = self._max_chars
        if len(text) <= limit:
            return text, False
        return f"{text[:limit]}\n[output cut at {limit} characters; {hint}]", True

    def _text_lines(self, path: str) -> tuple[str, list[str]]:
        """The path as shown, and the raw lines of the text file: contained, regular,
        under the size limit and not binary, or a ``ToolError`` saying why not."""
        target, shown = self._resolve(path)
        if target.is_dir():
            raise ToolError(f"{shown} is a directory; use list_dir")
        data = self._read_regular(target, shown, MAX_READ_BYTES)
        if _is_binary(data):
            raise ToolError(f"{shown} is a binary file; read_file shows text only")
        return shown, _split_lines(data.decode("utf-8", errors="replace"))

    def text_lines(self, path: str) -> list[str]:
        """The raw, unredacted lines ``read_file`` would number, after the same checks.

        For a caller that shows ranges of one file many times over (the offline panel's
        shared reads): what it shows must go through ``redacted_range`` first.
        """
        return self._text_lines(path)[1]

    def read_file(self, args: ReadFileArgs) -> ToolOutput:
        """Numbered lines, so evidence can cite the exact line; ranges keep it small."""
        shown, lines = self._text_lines(args.path)
        start = args.start_line or 1
        end = args.end_line if args.end_line is not None else start + DEFAULT_READ_LINES - 1
        if end < start:
            raise ToolError(f"end_line {end} is before start_line {start}")
        if start > len(lines):
            raise ToolError(f"start_line {start} is past the end of {shown} ({len(lines)} lines)"
                            if lines else f"{shown} is empty")  # fmt: skip
        end = min(end, len(lines))
        lines = self._redacted_lines(lines, start, end)
        width = max(4, len(str(end)))
        rows: list[str] = []
        used = 0
        # Cut on a line boundary, so the data holds the lines the model saw.
        for number in range(start, end + 1):
            rows.append(f"{number:>{width}}| {lines[number - 1]}")
            used += len(rows[-1]) + 1
            if used > self._max_chars:
                rows = rows[:-1] or [rows[-1][: self._max_chars]]
                break
        last, cut = start + len(rows) - 1, used > self._max_chars
        text = "\n".join([f"{shown} lines {start}-{last} of {len(lines)}", *rows])
        if cut:
            text += f"\n[output cut at {self._max_chars} characters; request a smaller line range]"
        elif last < len(lines):
            text += f"\n[{len(lines) - last} more lines; continue with start_line={last + 1}]"
        return ToolOutput(text, {
            "path": shown, "start_line": start, "end_line": last, "total_lines": len(lines),
            "lines": lines[start - 1 : last], "truncated": cut,
        })  # fmt: skip

    def redacts_with(self, redact: Callable[[str], str]) -> bool:
        """Whether this workspace redacts what it shows with ``redact``."""
        return bool(self._redact == redact)

    def narrowed(self) -> Workspace:
        """This workspace, redacting reads with a one-line margin unless a key block's
        marker is within the usual margin.

        For the offline panel only: what it reads never reaches a model, and its
        decisions are redacted again, whole, before they are written. The wide margin
        also lets the detector learn values near a read before a model could see them
        elsewhere; the LLM path keeps it.
        """
        view = copy.copy(self)
        view._narrow = True
        return view

    def _redacted_lines(self, lines: list[str], start: int, end: int) -> list[str]:
        """The file's lines with lines ``start``..``end`` redacted, and a margin around them.

        Redacting the whole of a 5 MB file to show 200 of its lines would cost seconds on
        every call. The margin holds any value that reaches into the range: values are one
        line long except private-key blocks, shorter than the margin, and redaction keeps
        line breaks, so the lines still line up. A redactor that does not keep them gets
        the whole text, as before.
        """
        low, high, window = self._window(lines, start, end)
        if window is None:
            return _split_lines(self._redact("\n".join(lines)))
        return [*lines[:low], *window, *lines[high:]]

    def redacted_ranges(
        self, lines: Sequence[str], ranges: Iterable[tuple[int, int]], *, holding: int | None = None
    ) -> dict[int, str]:
        """Lines of ``text_lines`` in each of ``ranges`` (``start``, ``end``: from 1,
        inclusive, within the file), by number, as ``read_file`` of that range shows them.

        Each range gets the margin ``read_file`` gives it; where margins meet, they are
        redacted as one text, so a file's many close ranges cost one pass over them and
        a value across their meeting lines is seen whole. ``holding``: only the text
        that holds that line is redacted, and only the lines of its ranges returned.
        """
        ranges = sorted(ranges)
        spans: list[list[int]] = []
        for low, high in sorted(self._margin(lines, start, end) for start, end in ranges):
            if spans and low <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], high)
            else:
                spans.append([low, high])
        if holding is not None:
            spans = [span for span in spans if span[0] < holding <= span[1]]
            ranges = [r for r in ranges if any(low < r[0] and r[1] <= high for low, high in spans)]
        shown: dict[int, str] = {}
        for low, high in spans:
            window = self._redact("\n".join(lines[low:high])).split("\n")
            if len(window) != high - low:
                whole = _split_lines(self._redact("\n".join(lines)))
                return {n: whole[n - 1] for start, end in ranges for n in range(start, end + 1)}
            shown.update(zip(range(low + 1, high + 1), window, strict=True))
        return {n: shown[n] for start, end in ranges for n in range(start, end + 1)}

    def _margin(self, lines: Sequence[str], start: int, end: int) -> tuple[int, int]:
        """``low``, ``high``: ``lines[low:high]`` is the range with the margin it is
        redacted with."""
        low, high = max(0, start - 1 - _REDACTION_LINES), min(len(lines), end + _REDACTION_LINES)
        # One text to search: no marker holds a line break, so none is found across two.
        reach = "\n".join(lines[low:high]) if self._narrow else ""
        if self._narrow and not any(marker in reach for marker in _MULTILINE_MARKERS):
            low = max(0, start - 1 - _NARROW_LINES)
            high = min(len(lines), end + _NARROW_LINES)
        return low, high

    def _window(self, lines: list[str], start: int, end: int) -> tuple[int, int, list[str] | None]:
        """``lines[low:high]``, the range with its margin, redacted as one text; None for
        the window when redaction did not keep the number of lines."""
        low, high = self._margin(lines, start, end)
        window = self._redact("\n".join(lines[low:high])).split("\n")
        return low, high, window if len(window) == high - low else None

    def list_dir(self, args: ListDirArgs) -> ToolOutput:
        """Links are shown as links, never followed, so a listing cannot leave the root."""
        target, shown = self._resolve(args.path)
        if not target.is_dir():
            raise ToolError(f"{shown} is not a directory; use read_file")
        try:
            with os.scandir(target) as scan:
                items = sorted((e for e in scan if e.name != ".git"), key=lambda e: e.name)
        except OSError as exc:
            raise ToolError(f"{shown}: cannot list ({exc.strerror})") from exc
        entries: list[dict[str, str]] = []
        labels = [f"{shown}/"]
        for entry in items[:MAX_DIR_ENTRIES]:
            name = _printable(entry.name)
            if entry.is_symlink():
                kind, label = "symlink", f"{name} -> (symlink)"
            elif entry.is_dir(follow_symlinks=False):
                kind, label = "dir", f"{name}/"
            else:
                kind, label = "file" if entry.is_file(follow_symlinks=False) else "other", name
            entries.append({"name": entry.name, "type": kind})
            labels.append(label)
        if len(items) > MAX_DIR_ENTRIES:
            labels.append(f"[showing {MAX_DIR_ENTRIES} of {len(items)} entries]")
        body = "\n".join(labels) if items else f"{shown}/ (empty directory)"
        text, _ = self._cap(body, "list a subdirectory instead")
        return ToolOutput(text, {"path": shown, "entries": entries, "total": len(items)})

    def _walk(self, top: Path) -> Iterator[Path]:
        """Sorted, so a capped search repeats; links are skipped, never followed."""
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d != ".git")
            for name in sorted(filenames):
                if not (path := Path(dirpath, name)).is_symlink():
                    yield path

    def source_texts(
        self, suffixes: frozenset[str], skip_dirs: frozenset[str]
    ) -> Iterator[tuple[str, str | None]]:
        """(relative path, raw text) of the regular files whose names end in one of
        ``suffixes``, in a stable order, skipping directories named in ``skip_dirs``;
        the text is None for a binary, oversized or unreadable file.

        For searches that read code rather than show it (``find_imports``): what a caller
        shows from the text must go through ``redact`` first. Links are never followed;
        the caller bounds how many files it reads by stopping the iteration.
        """
        for dirpath, dirnames, filenames in os.walk(self._root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d != ".git" and d not in skip_dirs)
            for name in sorted(filenames):
                if not name.endswith(tuple(suffixes)):
                    continue
                path = Path(dirpath, name)
                if path.is_symlink():
                    continue
                rel = path.relative_to(self._root).as_posix()
                try:
                    data = self._read_regular(path, rel, MAX_GREP_FILE_BYTES)
                except ToolError:
                    yield rel, None
                    continue
                yield rel, None if _is_binary(data) else data.decode("utf-8", errors="replace")

    def redact(self, text: str) -> str:
        """The run's redaction, for text a caller of ``source_texts`` shows."""
        return self._redact(text)

    def grep(self, args: GrepArgs) -> ToolOutput:
        """Capped per file, per line and in matches, so one minified file cannot flood it."""
        regex = _linear_regex(args.pattern)
        target, _ = self._resolve(args.path)
        explicit = not target.is_dir()
        matches: list[dict[str, Any]] = []
        note, skipped = "", 0
        for file in [target] if explicit else self._walk(target):
            rel = file.relative_to(self._root).as_posix()
            try:
                data = self._read_regular(file, rel, MAX_GREP_FILE_BYTES)
                if _is_binary(data):
                    raise ToolError(f"{rel} is a binary file; not searched")
            except ToolError:
                if explicit:
                    raise
                skipped += 1
                continue
            text = self._redact(data.decode("utf-8", errors="replace"))
            for number, line in enumerate(_split_lines(text), start=1):
                if not regex.search(line[:MAX_GREP_LINE_CHARS]):
                    continue
                if len(matches) == args.max_matches:
                    note = f"[stopped at max_matches={args.max_matches}; narrow the search]"
                    break
                matches.append({"path": rel, "line": number, "text": line[:MAX_GREP_TEXT_CHARS]})
            if note:
                break
        rows = [f"{_printable(m['path'])}:{m['line']}: {m['text']}" for m in matches]
        rows = [*(rows or ["no matches"]), *([note] if note else [])]
        rows += [f"[skipped {skipped} binary, oversized or unreadable files]"] if skipped else []
        text, _ = self._cap("\n".join(rows), "narrow the search")
        return ToolOutput(text, {"matches": matches, "truncated": "max_matches" in note})
