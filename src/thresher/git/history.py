"""Git history of every candidate value, read once per run.

Asking git, per finding, which commits added or removed a value costs one full
``git log -p`` read per finding: history x findings. This module reads the log
once, as a stream, and matches every value at once with an Aho-Corasick
automaton, so a run costs history + findings. What it answers per value is what
the agents' ``git_log`` tool answered per call: the commits whose diff added or
removed the value, per path, counted net (an edit that keeps the value is not a
change), plus when the value first appeared, whether it was removed (or replaced
by another candidate) and how many commits and files touched it.

Values are matched here, never passed to git: ``git log -S<value>`` would put the
secret in the process list. The read is bounded in commits (``--history-depth``)
and in time, and the run reports how far back it got. A ``--diff`` scan reads only
the range's own commits, plus each value's files at the range's base, to say
whether the value was already there before the change.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import ahocorasick  # type: ignore[import-not-found]

from thresher.findings.options import ScanError
from thresher.git.scope import git, read_blobs
from thresher.git.stream import GitStream

# Deep enough to read a large project's whole history in seconds (the GitHub CLI has
# about 8,000 commits: a synthetic 8,000-commit history reads in about 2 s); beyond
# that the oldest commits rarely decide whether a secret is live, and a 100,000-commit
# repository stays bounded (10,000 of its commits: a 5 s scan, 86 MB peak, git included).
DEFAULT_HISTORY_DEPTH = 10_000
HISTORY_TIMEOUT_S = 600.0
MAX_BASE_FILE_BYTES = 16 * 1024 * 1024
NOT_A_REPOSITORY = "not a git repository"
_PIPE_BUFFER_BYTES = 1024 * 1024  # lines are short: one read per line would cost a syscall

GIT_ARGV = (
    "git", "-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null",
    "-c", "log.showSignature=false", "-c", "diff.external=", "-c", "safe.directory=*",
    # Keep headers, names and subjects in the shape the parser below expects.
    "-c", "core.quotePath=false", "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
    "-c", "log.mailmap=false", "-c", "i18n.logOutputEncoding=UTF-8", "--no-pager",
)  # fmt: skip
DIFF_SAFETY = ("--no-ext-diff", "--no-textconv", "--no-color")
COMMIT_FIELDS = "%H%x1f%an%x1f%aI%x1f%s"  # unit separators, unlike tabs, are never in a name
MARKER = b"\x1e\x1e"
LOG_VALUE_ARGS = ("log", "-p", "-U0", *DIFF_SAFETY, f"--format=%x1e%x1e{COMMIT_FIELDS}")


def git_env(root: Path) -> dict[str, str]:
    """Inherited GIT_* could redirect git; the ceiling stops a checkout without
    ``.git`` from reporting the history of an enclosing repository."""
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {
        "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "LC_ALL": "C",
        "GIT_CEILING_DIRECTORIES": str(root.parent), "GIT_LITERAL_PATHSPECS": "1",
        "GIT_OPTIONAL_LOCKS": "0", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_NO_LAZY_FETCH": "1",
    }  # fmt: skip


class HistoryMode(StrEnum):
    FULL = "full"  # every branch and tag, newest first, up to the depth
    RANGE = "range"  # a --diff scan: the range's own commits
    OFF = "off"  # --history-depth 0, or no git repository


class Change(StrEnum):
    ADDED = "added"
    REMOVED = "removed"


@dataclass(frozen=True)
class Touch:
    """One commit whose diff changed how often a value occurs in one file.

    ``header`` is git's ``hash\\x1fauthor\\x1fdate\\x1fsubject`` line, unmasked: whoever
    shows it masks the value out of the subject first."""

    header: str
    change: Change
    path: str
    # A removal in a commit that added another candidate value to the same file: a
    # rotation, or a placeholder swapped for a real-looking value.
    replaced: bool = False

    @property
    def commit(self) -> str:
        return self.header.split("\x1f", 1)[0]


@dataclass(frozen=True)
class ValueHistory:
    """Everything the read learned about one value; touches are newest first."""

    touches: tuple[Touch, ...] = ()
    # A --diff scan: whether the value was in one of its files at the range's base.
    existed_before: bool | None = None

    @property
    def first_added(self) -> Touch | None:
        return next((t for t in reversed(self.touches) if t.change is Change.ADDED), None)

    @property
    def removed(self) -> Touch | None:
        """The newest change, when it took the value out: the value's last word in history."""
        return (
            self.touches[0] if self.touches and self.touches[0].change is Change.REMOVED else None
        )

    @property
    def commits(self) -> int:
        return len({t.header for t in self.touches})

    @property
    def files(self) -> int:
        return len({t.path for t in self.touches})


@dataclass(frozen=True)
class HistoryStats:
    """How far back the run read: the report says so, since a shallow read can miss a leak."""

    mode: HistoryMode
    depth: int
    commits_read: int = 0
    stopped_at_depth: bool = False
    timed_out: bool = False
    diff_range: str | None = None
    error: str | None = None

    @property
    def complete(self) -> bool:
        return not (self.stopped_at_depth or self.timed_out or self.error)

    def describe(self) -> str:
        """The stderr line after the history read."""
        if self.error:
            return f"history: not read ({self.error})"
        if self.mode is HistoryMode.OFF:
            why = "--history-depth 0" if self.depth <= 0 else "no candidate values"
            return f"history: not read ({why})"
        where = f"the {self.diff_range} range" if self.mode is HistoryMode.RANGE else "history"
        text = f"history: read {self.commits_read} commit(s) of {where}"
        if self.stopped_at_depth:
            text += f"; stopped at --history-depth {self.depth}, older commits not searched"
        if self.timed_out:
            text += "; timed out, older commits not searched"
        return text


@dataclass(frozen=True)
class HistoryIndex:
    """Per value, its history; built by ``build`` with one streaming read of the log."""

    stats: HistoryStats
    by_value: dict[str, ValueHistory] = field(default_factory=dict)

    def of(self, value: str) -> ValueHistory:
        return self.by_value.get(value, ValueHistory())

    @classmethod
    def build(
        cls,
        root: Path,
        values: Mapping[str, Sequence[str]],
        *,
        depth: int = DEFAULT_HISTORY_DEPTH,
        diff: str | None = None,
        timeout: float = HISTORY_TIMEOUT_S,
        exclude: Sequence[str] = (),
        repository: bool | None = None,
    ) -> HistoryIndex:
        """``values``: each value with the paths it was found in (used by a --diff scan).

        ``exclude``: paths the log leaves out, whatever their commit: a partial clone's
        paths whose blobs it does not hold, which ``git log -p`` would otherwise stop at.
        ``repository``: False where git already said ``root`` holds no repository (the
        scan asked): the log is not run, and reads as it would have, no repository. Run
        after a scan, from a process grown to the scan's size, it was the run's last
        child process, which a memory sampler can count at its parent's size."""
        wanted = {v: tuple(p) for v, p in values.items() if v}
        if depth <= 0 or not wanted:
            return cls(HistoryStats(HistoryMode.OFF, depth))
        revs: tuple[str, ...] = ("--all",)
        base: str | None = None
        if diff is not None:
            try:
                resolved = _resolve_range(root, diff)
            except ScanError as exc:
                resolved = str(exc)
            if isinstance(resolved, str):
                return cls(HistoryStats(HistoryMode.OFF, depth, diff_range=diff, error=resolved))
            base, head = resolved
            revs = ("--end-of-options", f"{base}..{head}", "--")
        mode = HistoryMode.RANGE if diff is not None else HistoryMode.FULL
        if repository is False and diff is None:
            # No log to match: every value has no history, as a failed ``git log`` says
            # (and no automaton of thousands of values is built for nothing).
            read = _Read(error=NOT_A_REPOSITORY)
            stats = HistoryStats(
                mode, depth, read.commits, read.stopped, read.timed_out, diff, read.error
            )
            return cls(stats, {value: ValueHistory((), None) for value in wanted})
        matcher = _Matcher(list(wanted))
        argv = (*GIT_ARGV, *LOG_VALUE_ARGS, f"--max-count={depth + 1}", *revs)
        if exclude:
            # Magic pathspecs, each literal: a hostile name is never a glob nor an option.
            argv += (*(() if "--" in revs else ("--",)), *(_excluded(p) for p in exclude))
        read = _read_log(root, argv, matcher, depth, timeout, literal=not exclude)
        stats = HistoryStats(
            mode, depth, read.commits, read.stopped, read.timed_out, diff, read.error
        )
        try:
            before = _present_at(root, base, wanted, matcher) if base is not None else set()
        except ScanError as exc:  # git vanished or timed out after the scan used it
            return cls(replace(stats, error=f"cannot read the range's base: {exc}"))
        by_value = {
            value: ValueHistory(
                tuple(read.touches.get(number, [])), (value in before) if base else None
            )
            for number, value in enumerate(matcher.values)
        }
        return cls(stats, by_value)


class _Matcher:
    """All values in one automaton over latin-1 text: each character is one byte, so
    matching is byte-exact on git's raw output and never fails on invalid UTF-8."""

    def __init__(self, values: list[str]) -> None:
        self.values = values
        self.keys = [v.encode("utf-8").decode("latin-1") for v in values]
        self.keep = max((len(k) for k in self.keys), default=1) - 1
        self.automaton: Any = None
        if values:
            automaton = ahocorasick.Automaton()
            for number, key in enumerate(self.keys):
                automaton.add_word(key, (number, len(key)))
            automaton.make_automaton()
            self.automaton = automaton

    def counts(self, text: str, skip_before: int = 0) -> dict[int, int]:
        """Non-overlapping occurrences per value, as ``bytes.count`` counts them, of
        matches ending at or after ``skip_before`` (earlier ones were counted already)."""
        found: dict[int, int] = {}
        if self.automaton is None:
            return found
        last_end: dict[int, int] = {}
        for end, (number, length) in self.automaton.iter(text):
            start = end - length + 1
            if end < skip_before or start < last_end.get(number, 0):
                continue
            last_end[number] = end + 1
            found[number] = found.get(number, 0) + 1
        return found


@dataclass
class _Read:
    touches: dict[int, list[Touch]] = field(default_factory=dict)
    commits: int = 0
    stopped: bool = False
    timed_out: bool = False
    error: str | None = None


class _LogParser:
    """The diff of ``git log -p -U0``, line by line: hunk state tells ``--- a/f`` (a
    header) from a removed line reading ``-- a/f``; a line longer than one read
    arrives in pieces, and a tail carries a value split across two of them."""

    def __init__(self, matcher: _Matcher, read: _Read) -> None:
        self.matcher, self.read = matcher, read
        self.header, self.path, self.in_hunk = "", "", False
        self.net: dict[tuple[int, str], int] = {}
        self.at_line_start, self.sign, self.tail = True, 0, ""

    def start_commit(self, line: bytes) -> None:
        self.finish_commit()
        self.header = line[len(MARKER) :].decode("utf-8", errors="replace").rstrip("\n")
        self.path, self.in_hunk = "", False

    def feed(self, chunk: bytes) -> None:
        if self.at_line_start:
            self.sign, self.tail = 0, ""
            first = chunk[:1]
            # Most lines of a -U0 log are hunk lines: tested first (no header starts so).
            if self.in_hunk and (first == b"+" or first == b"-"):
                self.sign, chunk = (1 if first == b"+" else -1), chunk[1:]
            elif chunk.startswith(b"diff --git "):
                self.path, self.in_hunk = "", False
            elif chunk.startswith(b"@@"):
                self.in_hunk = True
            elif not self.in_hunk and chunk[:4] in (b"--- ", b"+++ "):
                # Git quotes odd names and tab-terminates names holding spaces.
                name = chunk[4:].rstrip(b"\n").removesuffix(b"\t").strip(b'"')
                if name[:2] in (b"a/", b"b/"):
                    self.path = name[2:].decode("utf-8", errors="replace")
        ends = chunk.endswith(b"\n")
        if self.sign:
            window = self.tail + chunk.decode("latin-1")
            for number, count in self.matcher.counts(window, len(self.tail)).items():
                key = (number, self.path)
                self.net[key] = self.net.get(key, 0) + self.sign * count
            if not ends:  # the line goes on in the next read
                keep = self.matcher.keep
                self.tail = window[-keep:] if keep else ""
        self.at_line_start = ends

    def finish_commit(self) -> None:
        header, net, self.net = self.header, self.net, {}
        if not header:
            return
        gained = {(number, path) for (number, path), count in net.items() if count > 0}
        for (number, path), count in sorted(net.items(), key=lambda item: item[0][1]):
            if count > 0:
                touch = Touch(header, Change.ADDED, path)
            elif count < 0:
                other = any(p == path and n != number for n, p in gained)
                touch = Touch(header, Change.REMOVED, path, replaced=other)
            else:
                continue
            self.read.touches.setdefault(number, []).append(touch)


def _excluded(path: str) -> str:
    return f":(top,literal,exclude){path}"


def _read_log(
    root: Path,
    argv: tuple[str, ...],
    matcher: _Matcher,
    depth: int,
    timeout: float,
    *,
    literal: bool = True,
) -> _Read:
    """One pass over the log; ``depth + 1`` commits are asked for, so reaching the
    extra one says there was older history the bound left unread."""
    read = _Read()
    parser = _LogParser(matcher, read)
    try:
        with closing(_stream(root, argv, timeout, literal=literal)) as chunks:
            for chunk in chunks:
                if not (parser.at_line_start and chunk.startswith(MARKER)):
                    parser.feed(chunk)
                    continue
                if read.commits == depth:
                    read.stopped = True
                    break
                read.commits += 1
                parser.start_commit(chunk)
    except _Timeout:
        read.timed_out = True
    except _GitFailed as exc:
        read.error = str(exc)
    parser.finish_commit()
    return read


class _Timeout(Exception):
    pass


class _GitFailed(Exception):
    pass


def _stream(
    root: Path, argv: tuple[str, ...], timeout: float, *, literal: bool = True
) -> Generator[bytes, None, None]:
    """git's stdout in lines of at most one read; killed at ``timeout`` or when the
    reader stops early, so a huge history is neither buffered nor left running.
    ``literal=False``: pathspec magic on, for the ``exclude`` pathspecs (each of them
    still literal through its own ``literal`` magic)."""
    env = git_env(root)
    if not literal:
        del env["GIT_LITERAL_PATHSPECS"]
    stream = GitStream(argv, cwd=root, env=env, timeout=timeout,
                       bufsize=_PIPE_BUFFER_BYTES)  # fmt: skip
    try:
        yield from stream.lines()
    except OSError as exc:
        raise _GitFailed(f"git is not available: {exc.strerror or exc}") from exc
    code, message = stream.code, stream.message
    if stream.timed_out:
        raise _Timeout
    if code and "not a git repository" in message:
        raise _GitFailed(NOT_A_REPOSITORY)
    if code and "does not have any commits" in message:
        return
    if code:
        raise _GitFailed(f"git log failed: {message.splitlines()[0] if message else code}")


def _resolve_range(root: Path, spec: str) -> tuple[str, str] | str:
    """``BASE..HEAD`` or ``BASE...HEAD`` as two commit ids, or why not. The scan has
    already checked the spec; ids keep the log's argv free of anything else."""
    three = "..." in spec
    parts = spec.split("..." if three else "..")
    if len(parts) != 2 or not all(parts) or any(p.startswith("-") for p in parts):
        return f"--diff {spec!r} is not a range"
    ids: list[str] = []
    for part in parts:
        args = ("rev-parse", "--verify", "--quiet", "--end-of-options", f"{part}^{{commit}}")
        proc = git(root, *args)
        if proc.returncode != 0:
            return f"--diff: {part!r} is not a commit"
        ids.append(proc.stdout.decode().strip())
    if three:
        proc = git(root, "merge-base", *ids)
        if proc.returncode != 0:
            return f"--diff {spec!r}: the two sides have no merge base"
        ids[0] = proc.stdout.decode().strip()
    return ids[0], ids[1]


def _present_at(
    root: Path,
    base: str,
    values: Mapping[str, Sequence[str]],
    matcher: _Matcher,
) -> set[str]:
    """The values already in one of their own files at ``base``: the files go to git
    on stdin (``cat-file --batch-check``), their contents are searched here."""
    paths = sorted({p for ps in values.values() for p in ps if "\n" not in p})
    if not paths:
        return set()
    check = git(
        root, "cat-file", "--batch-check", stdin="".join(f"{base}:{p}\n" for p in paths).encode()
    )
    blob_of: dict[str, str] = {}
    for path, row in zip(paths, check.stdout.decode("utf-8", "replace").splitlines(), strict=False):
        fields = row.split()
        if len(fields) == 3 and fields[1] == "blob":
            blob_of[path] = fields[0]
    contents, _ = read_blobs(root, list(blob_of.values()), MAX_BASE_FILE_BYTES)
    found_in: dict[str, set[int]] = {}
    for path, blob in blob_of.items():
        if (data := contents.get(blob)) is not None:
            found_in[path] = set(matcher.counts(data.decode("latin-1")))
    number_of = {value: number for number, value in enumerate(matcher.values)}
    return {
        value
        for value, ps in values.items()
        if value in number_of and any(number_of[value] in found_in.get(p, ()) for p in ps)
    }
