"""The workspace's history tools (``git_log``, ``git_show``) and the pickaxe that
matches a finding's value in Python, so the secret never reaches git's argv. Split
from ``workspace`` to keep history reading apart from file reading; ``Workspace``
inherits ``GitTools`` and supplies the state declared under ``TYPE_CHECKING``."""

from __future__ import annotations

import re
from collections.abc import Callable, Generator
from contextlib import closing
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from thresher.agents.tooling import ToolError, ToolOutput
from thresher.agents.toolspecs import GitLogArgs, GitShowArgs
from thresher.agents.workspace_text import _REDACTION_MARGIN, _is_binary
from thresher.git.history import (
    COMMIT_FIELDS,
    DIFF_SAFETY,
    GIT_ARGV,
    MARKER,
    NOT_A_REPOSITORY,
    HistoryIndex,
    HistoryMode,
    HistoryStats,
    ValueHistory,
)
from thresher.git.stream import GitStream

GIT_TIMEOUT_S = 30.0
MAX_SCANNED_COMMITS = 5000

_GIT = GIT_ARGV
_DIFF_SAFETY = DIFF_SAFETY
_REV = re.compile(r"[0-9A-Za-z][0-9A-Za-z._/~^@{}-]{0,199}")
_FIELDS = COMMIT_FIELDS
_MARKER = MARKER
_COMMIT_TEXT = frozenset(("author", "subject", "path"))


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


class GitTools:
    """The git half of ``Workspace``: read-only history, with the repository's own
    config neutralised by ``thresher.git.history.git_env``."""

    if TYPE_CHECKING:
        _root: Path
        _env: dict[str, str]
        _max_chars: int
        _history: HistoryIndex | None
        _value_for: Callable[[str], str | None]
        _redact: Callable[[str], str]

        def _relative(self, raw: str) -> PurePosixPath: ...

        def _cap(self, text: str, hint: str) -> tuple[str, bool]: ...

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
