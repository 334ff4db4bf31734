"""detect-secrets' ``scan_file``, step for step, with the prefilter in front.

thresher must report exactly what ``detect-secrets scan --all-files`` reports,
so this module does not re-implement any detection: it calls detect-secrets'
own transformers, plugins and filters, in the order ``scan_file`` does —
filename filters, the non-eager transformers (or the raw lines), every plugin
on every line through the line and secret filters, and only when that finds
nothing the eager transformers. The one difference is that lines the
prefilter proves no plugin can match are not handed to the plugins at all.

What a file must be to be scanned is decided here too, and never silently: a file
that is not scanned comes back with a ``SkipReason``. Text that is not UTF-8 is
decoded with a fallback; a file over the chunk size is scanned in bounded chunks of
plain lines (no format parser can read a piece of a file), and so is a file whose
blank runs would make the config parser take the square of their length.

Time stays linear in the text whatever it holds: the plugins whose regexes backtrack
run as exact RE2 stand-ins (``plugins_re2``), the pragma filter runs on RE2
(``allowlist_re2``), and custom rules run on RE2.

thresher's own rules (``findings.rules``) run here too, on the same decoded text and
the same lines, so the second source costs no second read of the disk. They skip the
files detect-secrets skips by name (lock files, images), as custom rules never did.

This module is also the body of each worker process: ``init_worker`` sets up
detect-secrets once per process, ``scan_batch`` scans a batch of files.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import BinaryIO, cast

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.settings import (
    cache_bust,
    configure_settings_from_baseline,
    get_plugins,
    get_settings,
)
from detect_secrets.transformers import get_transformers
from detect_secrets.types import NamedIO
from detect_secrets.util.code_snippet import get_code_snippet

from thresher.findings import allowlist_re2, filters_fast
from thresher.findings.detection import Detection, Origin, aligned, detections
from thresher.findings.direct import LineScan
from thresher.findings.formats import has_format_parser, parsable, transformed
from thresher.findings.keyword_re2 import keyword_lines
from thresher.findings.plugins_re2 import line_checks, stand_ins
from thresher.findings.re2_classes import Encoded
from thresher.findings.rules.book import Rule, builtin_rules
from thresher.findings.rules.matcher import Rulebook
from thresher.findings.rules.values import literal_file
from thresher.findings.screen import Dropped, screen
from thresher.findings.skips import SkipReason
from thresher.findings.textfile import (
    CHUNK_BYTES,
    FileLines,
    FileTooLarge,
    buffered,
    decode,
    read_head,
    universal_newlines,
    windows,
)
from thresher.findings.triggers import Prefilter

# ``detect-secrets scan`` runs these two besides the defaults. The first checks the
# path against the current directory (thresher passes root-relative paths and
# only ever hands over regular files); the second calls provider APIs over the
# network, which a scan must never do.
_SKIPPED_FILTERS = (
    "detect_secrets.filters.common.is_invalid_file",
    "detect_secrets.filters.common.is_ignored_due_to_verification_policies",
)
BINARY_SNIFF_BYTES = 8192
# Longest line text kept for the scorer and the profile (they read only a window around
# the value): a longer line is cut around its first detection.
MAX_LINE_CHARS = 64 * 1024
_LINE_LEAD = 8 * 1024  # text kept before that detection
_SESSION = threading.Lock()


def configure_detect_secrets(*, honour_pragmas: bool = True) -> None:
    """Every built-in plugin with its defaults and the default filters — what
    ``detect-secrets scan --all-files`` uses — minus ``_SKIPPED_FILTERS``.

    ``honour_pragmas=False`` drops the ``pragma: allowlist secret`` filter: in a
    pull-request job the pull request wrote those comments, so they may not decide
    what is reported (the finding is decided on its evidence instead)."""
    cache_bust()
    settings = get_settings()
    classes: list[type] = list(get_mapping_from_secret_type_to_class().values())
    settings.configure_plugins([{"name": cls.__name__} for cls in classes])
    settings.disable_filters(*_SKIPPED_FILTERS, allowlist_re2.ORIGINAL, filters_fast.ORIGINAL)
    # The same reference filter, answered early on lines it cannot match.
    settings.filters[filters_fast.FAST] = {}
    # The same pragma filter, on RE2: the original is quadratic in a line of blanks.
    if honour_pragmas:
        settings.filters[allowlist_re2.LINEAR] = {}


@contextmanager
def detect_secrets_session(*, honour_pragmas: bool = True) -> Iterator[None]:
    """In-process scans: detect-secrets' settings are process-global, so they
    are set for the scan and put back after, one scan at a time."""
    with _SESSION:
        original = get_settings().json()
        configure_detect_secrets(honour_pragmas=honour_pragmas)
        try:
            yield
        finally:
            cache_bust()
            configure_settings_from_baseline(original)


@dataclass(frozen=True, slots=True)
class FileJob:
    """A file to scan: read from ``disk`` or given as ``content`` (a git blob).
    ``added`` limits the result to those line numbers (diff scans)."""

    path: str
    disk: str | None = None
    content: bytes | None = None
    added: frozenset[int] | None = None
    size: int = 0


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """A scanned file (``skipped`` is None) or a skipped one and why."""

    path: str
    skipped: SkipReason | None = None
    detections: tuple[Detection, ...] = ()
    detail: str = ""  # more than the reason: the OS error, the exception type
    fallback: bool = False  # decoded as Windows-1252 or Latin-1, not UTF-8
    unparsed: bool = False  # read as plain lines: too large or costly for a format parser
    # The text of each line that holds a detection, as scanned (a diff scan reads git
    # blobs, which the working tree need not match): what the scorer must read.
    lines: dict[int, str] = field(default_factory=dict, repr=False)
    dropped: tuple[Dropped, ...] = ()  # detections the screen judged no candidates

    @property
    def scanned(self) -> bool:
        return self.skipped is None


class _NamedText(io.StringIO):
    """The file object detect-secrets' transformers expect: text with a name."""

    def __init__(self, text: str, name: str) -> None:
        super().__init__(text, newline="\n")
        self.name = name


class Engine:
    """Scans one file at a time; build it only inside a configured session."""

    def __init__(
        self,
        rules: Sequence[Rule],
        max_file_bytes: int,
        chunk_bytes: int = CHUNK_BYTES,
        *,
        honour_pragmas: bool = True,
        builtin: bool = True,
        screened: bool = True,
    ) -> None:
        self.rules = Rulebook(rules)  # an operator's custom rules
        self.builtin = Rulebook(builtin_rules() if builtin else ())
        self.screened = screened
        # The generic rules (a key names the credential) are judged by the screen.
        self.generic = frozenset(
            rule.id for rule in builtin_rules() if rule.provider == "generic" and rule.key_group
        )
        self.honour_pragmas = honour_pragmas
        self.max_file_bytes = max_file_bytes
        self.chunk_bytes = chunk_bytes
        plugins = get_plugins()
        keyword = keyword_lines()
        self._stand_ins = stand_ins(plugins)
        narrower = line_checks(plugins, self._stand_ins)
        if keyword:
            narrower["KeywordDetector"] = keyword
        self.prefilter = Prefilter(
            plugins,
            narrower,
            {"KeywordDetector": keyword.text} if keyword and keyword.text else None,
        )
        self._scan = LineScan()
        get_transformers()  # the parsers' modules (PyYAML's), imported before a worker forks

    def scan_job(self, job: FileJob) -> FileOutcome:
        try:
            with self._open(job) as handle:
                head = read_head(handle, job.size, self.chunk_bytes + 1)
                if b"\x00" in head[:BINARY_SNIFF_BYTES]:
                    return FileOutcome(job.path, SkipReason.BINARY)
                if len(head) > self.max_file_bytes:
                    return _too_large(job.path, self.max_file_bytes)
                if len(head) <= self.chunk_bytes:
                    return self._whole(job, head)
                return self._chunked(job, buffered(handle), head)
        except OSError as exc:
            return FileOutcome(job.path, SkipReason.UNREADABLE, detail=str(exc.strerror or exc))
        except FileTooLarge:
            return _too_large(job.path, self.max_file_bytes)
        except Exception as exc:  # a parser bug in one file must not end the scan
            return FileOutcome(job.path, SkipReason.SCAN_FAILED, detail=type(exc).__name__)

    def _open(self, job: FileJob) -> BinaryIO:
        """The file unbuffered: most are read whole in one call (``_head``), and the
        buffered reader cost a terminal check and a buffer per file besides."""
        if job.content is not None:
            return io.BytesIO(job.content)
        assert job.disk is not None
        return open(job.disk, "rb", buffering=0)  # noqa: PTH123 - hot path, plain open

    def _whole(self, job: FileJob, data: bytes) -> FileOutcome:
        """A file that fits one chunk: exactly what ``detect-secrets scan`` does."""
        text, fallback = decode(data)
        text = universal_newlines(text)
        lines = text.split("\n")
        shared = Encoded(text)  # the passes below all read its encoded forms
        found, unparsed = self._detect_secrets(job.path, text, lines, shared)
        numbers = range(1, len(lines) + 1)
        ruled = self._rules(
            job.path,
            lines,
            range(len(lines)),
            numbers,
            by_name=found is None,
            joined=text,
            shared=shared,
        )
        if found is None and not len(self.rules):
            return FileOutcome(job.path, SkipReason.EXCLUDED_BY_NAME, fallback=fallback)
        kept = _added([*(found or ()), *aligned(ruled, found or ())], job.added)
        kept, texts, dropped = self._screen(job.path, kept, _line_texts(kept, lines))
        return FileOutcome(
            job.path,
            None,
            tuple(kept),
            fallback=fallback,
            unparsed=unparsed,
            lines=texts,
            dropped=tuple(dropped),
        )

    def _chunked(self, job: FileJob, handle: BinaryIO, head: bytes) -> FileOutcome:
        """A larger file, a window at a time: raw lines, each reported by one window."""
        by_name = self._scan.name_filtered({"filename": job.path})
        if by_name and not len(self.rules):
            return FileOutcome(job.path, SkipReason.EXCLUDED_BY_NAME)
        found: dict[tuple[int, str, str, str], Detection] = {}
        texts: dict[int, str] = {}
        dropped: dict[tuple[int, str, str], Dropped] = {}
        fallback = False
        for window in windows(handle, head, self.max_file_bytes, self.chunk_bytes):
            fallback = fallback or window.fallback
            hits = (
                []
                if by_name
                else self._process(window.lines, job.path, window.numbers, "\n".join(window.lines))
            )
            ruled = self._rules(job.path, window.lines, window.own, window.numbers, by_name=by_name)
            hits += aligned(ruled, hits)
            first, last = window.numbers[window.own.start], window.numbers[window.own.stop - 1]
            kept = [d for d in _added(hits, job.added) if first <= d.line <= last]
            here = _line_texts(kept, window.lines, window.numbers)
            kept, here, out = self._screen(job.path, kept, here)
            # A cut line's segments overlap: the same value can be seen twice.
            for d in kept:
                found.setdefault((d.line, d.type, d.ds_value, d.value), d)
            for item in out:
                dropped.setdefault((item.line, item.detector, item.reason), item)
            texts.update(here)
        return FileOutcome(
            job.path,
            None,
            tuple(found.values()),
            fallback=fallback,
            unparsed=has_format_parser(job.path),
            lines=texts,
            dropped=tuple(dropped.values()),
        )

    def _screen(
        self, path: str, kept: list[Detection], texts: dict[int, str]
    ) -> tuple[list[Detection], dict[int, str], list[Dropped]]:
        """The detections the screen keeps (``findings.screen``), the line texts they
        need, and the ones it drops; everything when the screen is off."""
        if not self.screened or not kept:
            return kept, texts, []
        kept, dropped = screen(kept, texts, self.generic, code=_code(path))
        if dropped:
            held = {d.line for d in kept}
            texts = {number: text for number, text in texts.items() if number in held}
        return kept, texts, dropped

    def _detect_secrets(
        self, path: str, text: str, split: list[str], shared: Encoded | None = None
    ) -> tuple[list[Detection] | None, bool]:
        """detect-secrets' findings, or None when it skips the file by name; and whether
        the format parsers had to be left out (see ``parsable``). ``split``: the text
        split at its newlines, read as the file's own lines (``FileLines``)."""
        if self._scan.name_filtered({"filename": path}):
            return None, False
        handle = cast(NamedIO, _NamedText(text, path))
        if not parsable(text, shared):
            return self._process(FileLines(split), path, text=text, shared=shared), True
        parsed = transformed(handle, text, eager=False)
        if parsed:
            found = self._process(parsed, path)
        else:
            found = self._process(FileLines(split), path, text=text, shared=shared)
        if not found:
            handle.seek(0)
            eager = transformed(handle, text, eager=True)
            if eager:
                found = self._process(eager, path)
        return found, False

    def _process(
        self,
        lines: Sequence[str],
        path: str,
        numbers: Sequence[int] | None = None,
        text: str | None = None,
        shared: Encoded | None = None,
    ) -> list[Detection]:
        """``_process_line_based_plugins``, on the lines the prefilter keeps.

        ``numbers`` maps a position in ``lines`` to the file's line number (a chunk);
        the code snippet detect-secrets' filters read is always the local one. ``text``:
        the lines' own text, when they are the file's (see ``candidate_lines``)."""
        out: list[Detection] = []
        for index, plugins in self.prefilter.candidate_lines(lines, text=text, shared=shared):
            local = index + 1
            number = numbers[index] if numbers is not None else local
            line = lines[index].rstrip()
            snippet = get_code_snippet(lines=cast(list[str], lines), line_number=local)
            if self._scan.line_filtered({"filename": path, "line": line, "context": snippet}):
                continue
            for original in plugins:
                plugin = self._stand_ins.get(id(original), original)
                for secret in self._scan.secrets(plugin, path, line, number, snippet):
                    out.extend(detections(path, secret, original, line, lines, index))
        return out

    def _rules(
        self,
        path: str,
        lines: list[str],
        indices: range,
        numbers: Sequence[int],
        *,
        by_name: bool,
        joined: str | None = None,
        shared: Encoded | None = None,
    ) -> list[Detection]:
        """The custom rules, and thresher's own unless detect-secrets skips the file by
        name, on each line of ``indices`` (Aho-Corasick, then RE2: linear in the text).
        ``joined``: those lines joined by newlines, if the caller has that text."""
        out: list[Detection] = []
        books = [(self.rules, Origin.CUSTOM)]
        if not by_name:
            books.append((self.builtin, Origin.RULES))
        for book, origin in books:
            for hit in book.scan(path, lines, indices, joined, shared):
                if self.honour_pragmas and _allowlisted(path, lines, hit.index):
                    continue
                number = numbers[hit.index]
                out.append(Detection(path, number, hit.rule_id, hit.value, hit.value, origin))
        return out


# HCL reads an unquoted value as an expression (a string is always quoted), though the
# rules read Terraform files as configuration.
_EXPRESSION_CONFIG = (".tf", ".tfvars", ".hcl")


def _code(path: str) -> bool:
    """Whether an unquoted value in this file is an expression, for the screen."""
    return not literal_file(path) or path.lower().endswith(_EXPRESSION_CONFIG)


def _too_large(path: str, limit: int) -> FileOutcome:
    return FileOutcome(path, SkipReason.TOO_LARGE, detail=f"over {limit:,} bytes")


def _added(found: list[Detection], added: frozenset[int] | None) -> list[Detection]:
    return found if added is None else [d for d in found if d.line in added]


def _line_texts(
    found: Sequence[Detection], lines: list[str], numbers: Sequence[int] | None = None
) -> dict[int, str]:
    """The text of each line holding a detection; a long line only around its first
    detection, so the scorer and the profile never read more than ``MAX_LINE_CHARS``.

    In a chunk, a line cut into segments has several entries: the one holding the
    value is taken."""
    where: dict[int, list[int]] = {}
    for index, number in enumerate(numbers if numbers is not None and found else ()):
        where.setdefault(number, []).append(index)
    texts: dict[int, str] = {}
    for detection in found:
        if detection.line in texts:
            continue
        if numbers is None:
            candidates = [detection.line - 1] if 0 < detection.line <= len(lines) else []
        else:
            candidates = where.get(detection.line, [])
        holding = [i for i in candidates if detection.value in lines[i]] or candidates
        if not holding:
            continue
        line = lines[holding[0]]
        if len(line) > MAX_LINE_CHARS:
            start = max(0, line.find(detection.value) - _LINE_LEAD)
            line = line[start : start + MAX_LINE_CHARS]
        texts[detection.line] = line
    return texts


def _allowlisted(path: str, lines: list[str], index: int) -> bool:
    """The ``pragma: allowlist secret`` comments silence custom rules too."""
    snippet = get_code_snippet(lines=lines, line_number=index + 1)
    return allowlist_re2.is_line_allowlisted(path, lines[index], snippet)


_ENGINE: Engine | None = None


@dataclass(frozen=True, slots=True)
class Limits:
    """How much of a file is read: all of it up to ``max_file_bytes`` (more is skipped
    as too large), in chunks of ``chunk_bytes`` above that size; and whether pragma
    comments silence what is found (see ``configure_detect_secrets``)."""

    max_file_bytes: int
    chunk_bytes: int = CHUNK_BYTES
    honour_pragmas: bool = True
    builtin_rules: bool = True  # thresher's own rules beside detect-secrets
    screen: bool = True  # drop non-candidates after detection (``findings.screen``)

    def engine(self, rules: Sequence[Rule]) -> Engine:
        return Engine(
            rules,
            self.max_file_bytes,
            self.chunk_bytes,
            honour_pragmas=self.honour_pragmas,
            builtin=self.builtin_rules,
            screened=self.screen,
        )


def init_worker(rules: tuple[Rule, ...], limits: Limits, built: Engine | None = None) -> None:
    """Runs once in each worker process: its own detect-secrets settings, or ``built``,
    the engine of the process that forked this one inside its scan's session (the
    settings it was built under are this process's too, as they were at the fork)."""
    global _ENGINE
    if built is not None:
        _ENGINE = built
        return
    configure_detect_secrets(honour_pragmas=limits.honour_pragmas)
    _ENGINE = limits.engine(rules)


def scan_batch(jobs: list[FileJob]) -> list[FileOutcome]:
    if _ENGINE is None:
        raise RuntimeError("scan_batch runs only in a worker set up by init_worker")
    return [_ENGINE.scan_job(job) for job in jobs]


def scan_in_process(
    jobs: Sequence[FileJob], rules: tuple[Rule, ...], limits: Limits
) -> list[FileOutcome]:
    """Small scans: no worker start-up cost."""
    with detect_secrets_session(honour_pragmas=limits.honour_pragmas):
        engine = limits.engine(rules)
        return [engine.scan_job(job) for job in jobs]


def plugin_names() -> list[str]:
    """The secret types the configured plugins report (for tests and docs)."""
    with detect_secrets_session():
        return [str(plugin.secret_type) for plugin in get_plugins()]
