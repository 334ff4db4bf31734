"""Build each finding's ``CandidateContext`` from a scan: the line, the paths, every
rule that matched the value, how crowded its file is, and the offline checks.

Reading is bounded: a file is read once however many findings it holds, at most
``MAX_FILE_BYTES`` of it, and the line handed on is capped, so a huge minified
file cannot make scoring slow.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import re
import stat
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from thresher.findings.filekind import in_documentation, in_test_scope
from thresher.findings.model import Finding, FindingLocation, in_file
from thresher.git.resolved import ResolvedDirectories
from thresher.git.scope import Listed
from thresher.scoring.docstrings import LogicalLines, docstring_lines, python_source
from thresher.scoring.features import CandidateContext
from thresher.scoring.placement import Placement, placement
from thresher.scoring.reading import read_head
from thresher.scoring.references import Referenced, wants_lookup
from thresher.scoring.referencing import Referencer, in_process
from thresher.scoring.shape import clean_value, value_index
from thresher.sources.assemble import Candidate
from thresher.sources.dedupe import in_test_code
from thresher.sources.scan import ScanResult
from thresher.validators import ValidatorRegistry
from thresher.validators.base import ValidationResult

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_LINE_CHARS = 64 * 1024


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


def primary_location(finding: Finding) -> tuple[str, int]:
    """The location that speaks for the finding: the first outside test code, else the
    first. A value that also sits in deployable code is judged where it is riskiest.

    Text outside the tree (an issue, a comment) is never test code; its "path" is its
    address and its line 1, which is how ``line_of`` is asked for its text."""
    return _primary(finding).path, _primary(finding).line


def _primary(finding: Finding) -> FindingLocation:
    for location in finding.locations:
        if not in_test_code(location):
            return location
    return finding.locations[0]


# More locations than this: the value is taken as deployed somewhere without reading them.
_MAX_OTHER_LOCATIONS = 32


def deployed_elsewhere(
    finding: Finding,
    value: str,
    line_of: Callable[[str, int], str],
    docstring_of: Callable[[str, int], bool] | None = None,
) -> bool:
    """Whether a location other than the primary one holds the value in deployable text
    (placed nowhere else: not documentation, a docstring, a commented-out line, vendored
    code, a CI pipeline or a translation catalog): a sample in a README is deployed when
    the same value also sits in a config file, but a login form's word is not deployed
    because every translation catalog of the project holds it."""
    primary = _primary(finding)
    others = [loc for loc in finding.locations if loc is not primary]
    if not others:
        return False
    if len(others) > _MAX_OTHER_LOCATIONS:
        return True
    cleaned = clean_value(value)
    for location in others:
        path = in_file(location)
        if path is None:
            return True  # text outside the tree: a credential pasted there is a leak
        if in_documentation(path):
            continue  # no need to read its line
        line = line_of(path, location.line)
        docstring = docstring_of is not None and docstring_of(path, location.line)
        where = placement(path, line, value_index(line, cleaned), docstring=docstring)
        if where is Placement.DEPLOYMENT:
            return True
    return False


def build_contexts(
    findings: Sequence[Finding],
    value_of: Callable[[str], str | None],
    candidates: Iterable[Candidate],
    line_of: Callable[[str, int], str],
    root: Path | None = None,
    test_block_of: Callable[[str, int], bool] | None = None,
    docstring_of: Callable[[str, int], bool] | None = None,
    tree: Sequence[Listed] | None = None,
    referencer: Referencer = in_process,
    forget: Callable[[str], None] | None = None,
    checks_of: Callable[[Finding, str], Sequence[ValidationResult]] | None = None,
) -> dict[str, CandidateContext]:
    """finding id -> context, for every finding whose value is known. With ``root``,
    key files outside test code are looked up: who else in the repository names them
    (among ``tree``, the root's files as a scan listed them; else listed here), by
    ``referencer``; the lines are read while it answers (``scoring.referencing``).
    ``forget`` is told of each path once no finding left has a location in it: a reader
    that keeps whole files (``LineReader``) then holds about one at a time, as a scan
    orders its findings by path. ``checks_of`` gives a finding's offline checks from its
    value (none: no checks)."""
    left = Counter(p for f in findings for p in {loc.path for loc in f.locations} if forget)
    rules: dict[str, set[str]] = defaultdict(set)
    files: dict[str, set[str]] = defaultdict(set)
    per_file: Counter[str] = Counter()
    for candidate in candidates:
        rules[candidate.fingerprint].add(candidate.type)
        files[candidate.fingerprint].add(candidate.path)
        per_file[candidate.path] += 1
    primaries = [_primary(f) for f in findings]  # each finding's, found once
    lookups = [
        path
        for f, primary in zip(findings, primaries, strict=True)
        if (path := in_file(primary)) is not None and wants_lookup(path, f.rule_id)
    ]
    answer = referencer(root, lookups, tree) if root is not None and lookups else dict
    # What the findings of one value share, worked out once a value.
    shared: dict[str, tuple[tuple[str, ...], int, bool]] = {}
    contexts: dict[str, CandidateContext] = {}
    for finding, primary in zip(findings, primaries, strict=True):
        value = value_of(finding.id)
        if value is None:
            _passed(finding, left, forget)
            continue
        path, number = primary.path, primary.line
        outside_tree = in_file(primary) is None
        found = checks_of(finding, value) if checks_of is not None else ()
        checks = tuple((r.kind.value, r.status.value) for r in found)
        of_value = shared.get(finding.fingerprint)
        if of_value is None:
            holding = files.get(finding.fingerprint, ())
            of_value = shared[finding.fingerprint] = (
                tuple(sorted(rules.get(finding.fingerprint, set()))),
                max(1, len(holding)),
                any(in_test_scope(p) for p in holding),
            )
        value_rules, value_files, copies_in_tests = of_value
        contexts[finding.id] = CandidateContext(
            value=value,
            rule_id=finding.rule_id,
            path=path,
            line=line_of(path, number),
            paths=tuple(loc.path for loc in finding.locations),
            rules=value_rules,
            file_candidates=max(1, per_file.get(path, 1)),
            value_files=value_files,
            copies_in_tests=copies_in_tests,
            checks=checks,
            in_test_block=(
                test_block_of(path, number)
                if test_block_of is not None and not outside_tree
                else False
            ),
            in_docstring=(
                docstring_of(path, number)
                if docstring_of is not None and not outside_tree
                else False
            ),
            outside_tree=outside_tree,
            deployed_elsewhere=deployed_elsewhere(finding, value, line_of, docstring_of),
        )
        _passed(finding, left, forget)
    named = answer()
    for finding_id, context in contexts.items():
        referenced = named.get(context.path, Referenced.UNKNOWN)
        if referenced is not Referenced.UNKNOWN:
            contexts[finding_id] = dataclasses.replace(context, referenced=referenced)
    return contexts


def _passed(finding: Finding, left: Counter[str], forget: Callable[[str], None] | None) -> None:
    """``finding`` is done: ``forget`` each path no finding after it is located in."""
    if forget is None:
        return
    for path in {loc.path for loc in finding.locations}:
        left[path] -= 1
        if not left[path]:
            forget(path)


def scan_contexts(
    result: ScanResult,
    root: Path,
    findings: Sequence[Finding] | None = None,
    referencer: Referencer = in_process,
) -> tuple[dict[str, CandidateContext], dict[str, tuple[ValidationResult, ...]]]:
    """Contexts of every finding of a scan of ``root`` (of ``findings`` only, when given;
    the counts across files still come from the whole scan), with the offline
    validators' results they were built from (never live checks: the scorer is trained
    without them). The one way both a scan and the training corpus turn findings into
    scorer input."""
    offline = ValidatorRegistry.default(live=False)
    checks: dict[str, tuple[ValidationResult, ...]] = {}

    def checks_of(finding: Finding, value: str) -> tuple[ValidationResult, ...]:
        # Made as each context is: the reference lookup is asked for first.
        found = checks[finding.id] = tuple(offline.validate(value, finding))
        return found

    reader = LineReader(root, result.line_text)
    contexts = build_contexts(
        result.findings if findings is None else findings,
        result.vault.get,
        result.candidates,
        reader.line,
        checks_of=checks_of,
        root=root,
        test_block_of=reader.in_test_block,
        docstring_of=reader.in_docstring,
        tree=result.tree,
        referencer=referencer,
        forget=reader.forget,
    )
    return contexts, checks
