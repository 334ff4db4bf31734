"""Read-only tools over an untrusted checkout: paths stay inside the workspace
after symlinks are resolved, a named pipe or swapped-in link can neither hang nor
escape a read, and git runs with the repository's own config neutralised, because
a scanned repository may ship a ``.git/config`` written to run commands."""

from __future__ import annotations

import copy
import os
import re
import stat
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.toolspecs import GitLogArgs, GitShowArgs, GrepArgs, ListDirArgs, ReadFileArgs
from thresher.gitstream import GitStream
from thresher.history import (
    COMMIT_FIELDS,
    DIFF_SAFETY,
    GIT_ARGV,
    MARKER,
    NOT_A_REPOSITORY,
    HistoryIndex,
    HistoryMode,
    HistoryStats,
    ValueHistory,
    git_env,
)

DEFAULT_READ_LINES = 200
MAX_READ_BYTES = 5 * 1024 * 1024
MAX_GREP_FILE_BYTES = 1024 * 1024
MAX_GREP_LINE_CHARS = 2000
MAX_GREP_TEXT_CHARS = 300
MAX_DIR_ENTRIES = 500
BINARY_SNIFF_BYTES = 8192
GIT_TIMEOUT_S = 30.0
MAX_SCANNED_COMMITS = 5000

_GIT = GIT_ARGV
_DIFF_SAFETY = DIFF_SAFETY
_REV = re.compile(r"[0-9A-Za-z][0-9A-Za-z._/~^@{}-]{0,199}")
_FIELDS = COMMIT_FIELDS
_MARKER = MARKER
_COMMIT_TEXT = frozenset(("author", "subject", "path"))


_git_env = git_env


# .git/ holds credentials (actions/checkout's http.extraheader in .git/config) and
# hooks; history is read through git_log and git_show instead.
_GIT_INTERNALS = "{shown}: .git/ internals are refused; use git_log or git_show for history"
_RE2_MAX_MEM = 8 << 20  # bytes of compiled program: a pathological pattern fails, fast
# Longer than any single credential (an RSA-4096 PEM block is about 3.3 kB)...
_REDACTION_MARGIN = 8 * 1024
# ...and than any in lines (an RSA-8192 PEM block is about 100 lines).
_REDACTION_LINES = 200
# Only key blocks span lines (see ``thresher.detection_rules``): where none starts or
# ends within the margin, a value reaching into the range lies on the range's own lines.
_MULTILINE_MARKERS = ("-----BEGIN", "-----END", "PuTTY-User-Key-File-")
_NARROW_LINES = 1


def _is_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def _split_lines(data: bytes | str) -> list[str]:
    """Newlines only, as editors count; ``splitlines`` also splits on form feeds."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    return [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")] if text else []


class _Searcher(Protocol):
    def search(self, text: str) -> object: ...


def _linear_regex(pattern: str) -> _Searcher:
    """A model-written pattern compiled by RE2, whose matching time is linear in the text:
    ``^(a+)+$`` on a long line cannot stall the session (Python's ``re`` backtracks
    exponentially on it). RE2 has no backreferences or lookaround; such a pattern comes
    back to the model as a tool error it can correct."""
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension, not needed at start

    options = re2.Options()
    options.log_errors = False  # errors go to the model, not to the user's terminal
    options.max_mem = _RE2_MAX_MEM
    try:
        compiled: _Searcher = re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise ToolError(
            f"invalid regex {pattern!r}: {detail} (patterns run on RE2: linear time, no "
            "backreferences or lookaround)"
        ) from None
    return compiled


def _printable(name: str) -> str:
    """A file name holding a newline could otherwise forge lines of tool output."""
    return name if name.isprintable() else repr(name)


def _commit(header: str, change: str | None, path: str | None) -> dict[str, Any]:
    commit, author, date, subject = [*header.split("\x1f", 3), "", "", ""][:4]
    return {"commit": commit, "author": author, "date": date, "subject": subject,
            "change": change, "path": path}  # fmt: skip


def _commit_row(c: dict[str, Any]) -> str:
    change = f" {c['change']} in {c['path']}" if c["change"] else ""
    return f"{c['commit'][:12]} {c['date']} {c['author']}{change}: {c['subject']}"


class _GitTimeout(ToolError):
    """Lets a history scan keep what it found before git ran out of time."""


class _Pickaxe:
    """``git log -S`` in Python, so the secret never reaches git's argv: per file,
    added occurrences net against removed ones; hunk state tells ``--- a/f`` apart."""

    def __init__(self, value: str) -> None:
        self.value, self.needle, self.header = value, value.encode(), ""
        self.path, self.in_hunk, self.net = "", False, dict[str, int]()
        self.at_line_start, self.sign, self.tail = True, 0, b""

    def start_commit(self, line: bytes) -> None:
        self.header = line[len(_MARKER) :].decode("utf-8", errors="replace").rstrip("\n")
        self.path, self.in_hunk, self.net = "", False, {}

    def feed(self, chunk: bytes) -> None:
        if self.at_line_start:
            self.sign, self.tail = 0, b""
            if chunk.startswith(b"diff --git "):
                self.path, self.in_hunk = "", False
            elif chunk.startswith(b"@@"):
                self.in_hunk = True
            elif self.in_hunk and chunk[:1] in (b"+", b"-"):
                self.sign, chunk = (1 if chunk[:1] == b"+" else -1), chunk[1:]
            elif not self.in_hunk and chunk[:4] in (b"--- ", b"+++ "):
                # Git quotes odd names and tab-terminates names holding spaces.
                name = chunk[4:].rstrip(b"\n").removesuffix(b"\t").strip(b'"')
                if name[:2] in (b"a/", b"b/"):
                    self.path = name[2:].decode("utf-8", errors="replace")
        if self.sign:
            # The tail catches a value split across two chunks of one long line.
            window, keep = self.tail + chunk, len(self.needle) - 1
            self.net[self.path] = self.net.get(self.path, 0) + self.sign * window.count(self.needle)
            self.tail = window[-keep:] if keep else b""
        self.at_line_start = chunk.endswith(b"\n")

    def finish_commit(self) -> list[dict[str, Any]]:
        header, net, self.header, self.net = self.mask(self.header), self.net, "", {}
        return [
            _commit(header, "added" if n > 0 else "removed", self.mask(path))
            for path, n in sorted(net.items())
            if n and header
        ]

    def mask(self, text: str) -> str:
        """A subject such as "add key <value>" must not carry the value out."""
        return text.replace(self.value, "[finding value]")


def _under(path: str, prefix: str) -> bool:
    """git's literal pathspec: the file itself or anything inside the directory."""
    return prefix == "." or path == prefix or path.startswith(prefix.rstrip("/") + "/")


def _index_note(stats: HistoryStats, history: ValueHistory, *, more: bool) -> str:
    """Why the rows may not be the whole story, in the words the old scan used."""
    read = stats.commits_read
    if more:
        return f"[stopped at max_count after {read} commits read; older history not searched]"
    match stats.mode:
        case HistoryMode.OFF:
            return "[history not read (--history-depth 0); older history not searched]"
        case HistoryMode.RANGE:
            where = "already" if history.existed_before else "not"
            return (f"[--diff scan: read only the range's {read} commit(s); the value was "
                    f"{where} in its file(s) at the range's base]")  # fmt: skip
        case HistoryMode.FULL:
            if stats.timed_out:
                return f"[history scan timed out after {read} commits; results are partial]"
            if stats.stopped_at_depth:
                return (f"[stopped after {read} commits (--history-depth {stats.depth}); "
                        "older history not searched]")  # fmt: skip
            return ""


def _summary(history: ValueHistory) -> dict[str, Any]:
    """The value's history in a line: first seen, removed or replaced, how widely touched."""
    first, removed = history.first_added, history.removed
    return {
        "commits": history.commits, "files": history.files,
        "first_added": first.commit if first else None,
        "removed": removed.commit if removed else None,
        "replaced": bool(removed and removed.replaced),
        "existed_before": history.existed_before,
    }  # fmt: skip


class Workspace:
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
            target = (self._root / shown).resolve()
        except (OSError, RuntimeError) as exc:
            raise ToolError(f"{shown}: cannot resolve ({exc})") from exc
        if not target.is_relative_to(self._root):
            raise ToolError(f"{shown} resolves outside the workspace (symlink); refused")
        if ".git" in target.relative_to(self._root).parts:
            raise ToolError(_GIT_INTERNALS.format(shown=shown))
        if not target.exists():
            raise ToolError(f"{shown}: no such file or directory")
        return target, shown

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
        self, lines: list[str], ranges: Iterable[tuple[int, int]]
    ) -> dict[int, str]:
        """Lines of ``text_lines`` in each of ``ranges`` (``start``, ``end``: from 1,
        inclusive, within the file), by number, as ``read_file`` of that range shows them.

        Each range gets the margin ``read_file`` gives it; where margins meet, they are
        redacted as one text, so a file's many close ranges cost one pass over them and
        a value across their meeting lines is seen whole.
        """
        ranges = sorted(ranges)
        spans: list[list[int]] = []
        for low, high in sorted(self._margin(lines, start, end) for start, end in ranges):
            if spans and low <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], high)
            else:
                spans.append([low, high])
        shown: dict[int, str] = {}
        for low, high in spans:
            window = self._redact("\n".join(lines[low:high])).split("\n")
            if len(window) != high - low:
                whole = _split_lines(self._redact("\n".join(lines)))
                return {n: whole[n - 1] for start, end in ranges for n in range(start, end + 1)}
            shown.update(zip(range(low + 1, high + 1), window, strict=True))
        return {n: shown[n] for start, end in ranges for n in range(start, end + 1)}

    def _margin(self, lines: list[str], start: int, end: int) -> tuple[int, int]:
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

    def _git(self, *args: str) -> Generator[bytes, None, None]:
        """Streamed, so a scan can stop early and a huge blob is never held whole;
        the timer kill bounds even a blocked read."""
        stream = GitStream([*_GIT, *args], cwd=self._root, env=self._env, timeout=GIT_TIMEOUT_S)
        try:
            yield from stream.lines()
        except OSError as exc:
            raise ToolError(f"git is not available: {exc.strerror or exc}") from exc
        if stream.timed_out:
            raise _GitTimeout(f"git timed out after {GIT_TIMEOUT_S:.0f} s")
        code, message = stream.code, stream.message
        if code and "not a git repository" in message:
            raise ToolError("the workspace is not a git repository")
        if code:
            raise ToolError(f"git failed: {message or f'exit status {code}'}")

    def _git_output(self, *args: str) -> bytes:
        # UTF-8 needs at most four bytes a character; the margin lets a value that starts
        # before the cut be read whole, so redaction (in _cap) still recognises it.
        budget = 4 * self._max_chars + _REDACTION_MARGIN
        parts: list[bytes] = []
        with closing(self._git(*args)) as chunks:
            for chunk in chunks:
                parts.append(chunk)
                if (budget := budget - len(chunk)) < 0:
                    break
        return b"".join(parts)

    def git_log(self, args: GitLogArgs) -> ToolOutput:
        """History tells an old, since-removed secret from one still being shipped."""
        pathspec = [] if args.path is None else ["--", self._relative(args.path).as_posix()]
        if args.finding_id is not None and self._history is not None:
            return self._log_indexed(self._history, args.finding_id, args.max_count, args.path)
        if args.finding_id is not None:
            return self._log_value(args.finding_id, args.max_count, pathspec)
        count = f"--max-count={args.max_count}"
        raw = self._git_output("log", *_DIFF_SAFETY, count, f"--format={_FIELDS}", *pathspec)
        lines = raw.decode(errors="replace").splitlines()
        commits = [self._redacted(_commit(line, None, args.path)) for line in lines]
        text, _ = self._cap("\n".join(map(_commit_row, commits)) or "no commits", "lower max_count")
        return ToolOutput(text, {"commits": commits})

    def _log_value(self, finding_id: str, max_count: int, pathspec: list[str]) -> ToolOutput:
        """Matched here, as ``git log -S<value>`` would put the secret in the process list."""
        value = self._value_for(finding_id)
        if not value:
            raise ToolError(f"unknown finding id {finding_id!r} (or it has no value)")
        scan = _Pickaxe(value)
        commits: list[dict[str, Any]] = []
        note, matched, scanned = "", 0, 0
        log = ("log", "--all", "-p", "-U0", *_DIFF_SAFETY, f"--format=%x1e%x1e{_FIELDS}")
        try:
            with closing(self._git(*log, *pathspec)) as chunks:
                for chunk in chunks:
                    if not (scan.at_line_start and chunk.startswith(_MARKER)):
                        scan.feed(chunk)
                        continue
                    found = [self._redacted(c) for c in scan.finish_commit()]
                    commits.extend(found)
                    matched += bool(found)
                    if matched >= max_count or scanned >= MAX_SCANNED_COMMITS:
                        note = f"[stopped after {scanned} commits; older history not searched]"
                        break
                    scanned += 1
                    scan.start_commit(chunk)
        except _GitTimeout:
            note = f"[history scan timed out after {scanned} commits; results are partial]"
        commits.extend(self._redacted(c) for c in scan.finish_commit())
        rows = [_commit_row(c) for c in commits] or [f"no commit added or removed {finding_id}"]
        text, _ = self._cap("\n".join([*rows, note] if note else rows), "lower max_count")
        return ToolOutput(text, {"finding_id": finding_id, "commits": commits,
                                 "scanned_commits": scanned, "truncated": bool(note)})  # fmt: skip

    def _log_indexed(
        self, index: HistoryIndex, finding_id: str, max_count: int, path: str | None
    ) -> ToolOutput:
        """What ``_log_value`` answers, from the run's history index: no git at all."""
        value = self._value_for(finding_id)
        if not value:
            raise ToolError(f"unknown finding id {finding_id!r} (or it has no value)")
        stats = index.stats
        if stats.error == NOT_A_REPOSITORY:
            raise ToolError("the workspace is not a git repository")
        if stats.error:
            raise ToolError(f"history not available: {stats.error}")
        prefix = None if path is None else self._relative(path).as_posix()
        history = index.of(value)
        touches = [t for t in history.touches if prefix is None or _under(t.path, prefix)]
        kept, headers = [], set[str]()
        for touch in touches:
            if touch.header not in headers and len(headers) == max_count:
                break
            headers.add(touch.header)
            kept.append(touch)
        mask = _Pickaxe(value).mask
        commits = [
            self._redacted(_commit(mask(t.header), t.change.value, mask(t.path))) for t in kept
        ]
        note = _index_note(stats, history, more=len(kept) < len(touches))
        rows = [_commit_row(c) for c in commits] or [f"no commit added or removed {finding_id}"]
        text, _ = self._cap("\n".join([*rows, note] if note else rows), "lower max_count")
        return ToolOutput(text, {
            "finding_id": finding_id, "commits": commits, "scanned_commits": stats.commits_read,
            "truncated": bool(note) and history.existed_before is not False,
            "summary": _summary(history),
        })  # fmt: skip

    def _redacted(self, commit: dict[str, Any]) -> dict[str, Any]:
        """A commit's free text (author, subject, path) redacted, like the rows shown: the
        data goes back with the text, and a subject can quote a secret."""
        return {k: self._redact(v) if k in _COMMIT_TEXT and v else v for k, v in commit.items()}

    def git_show(self, args: GitShowArgs) -> ToolOutput:
        """A strict rev syntax, then --end-of-options: ``--output=...`` is never an option."""
        if not _REV.fullmatch(args.rev):
            raise ToolError(f"invalid rev {args.rev!r}: use a commit id or ref name "
                            "(letters, digits and ._/~^@{}-, not starting with '-')")  # fmt: skip
        show = ("show", *_DIFF_SAFETY)
        if args.path is None:
            raw = self._git_output(*show, "--stat", "--patch", "--end-of-options", args.rev)
            hint = "pass path= to show one file"
        else:
            rel = self._relative(args.path).as_posix()
            spec = f"{args.rev}:" if rel == "." else f"{args.rev}:{rel}"
            raw = self._git_output(*show, "--end-of-options", spec)
            if _is_binary(raw):
                raise ToolError(f"{rel} at {args.rev} is a binary file")
            hint = "use read_file on the checkout for line ranges"
        text, cut = self._cap(raw.decode("utf-8", errors="replace"), hint)
        return ToolOutput(text or "(no output)", {"rev": args.rev, "path": args.path,
                                                  "truncated": cut})  # fmt: skip
