"""Build each finding's ``CandidateContext`` from a scan: the line, the paths, every
rule that matched the value, how crowded its file is, and the offline checks. The
lines are read by ``scoring.lines.LineReader``: each file once, bounded.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from thresher.findings.filekind import in_documentation, in_test_scope
from thresher.findings.model import Finding, FindingLocation, in_file, in_test_code
from thresher.git.scope import Listed
from thresher.scoring.features import CandidateContext
from thresher.scoring.lines import LineReader, Read
from thresher.scoring.placement import Placement, placement
from thresher.scoring.references import Referenced, references, wants_lookup
from thresher.scoring.shape import clean_value, value_index
from thresher.validators import ValidatorRegistry
from thresher.validators.base import ValidationResult

if TYPE_CHECKING:  # a process that only assesses (``scoring.beside``) never loads them
    from thresher.sources.assemble import Candidate
    from thresher.sources.scan import ScanResult


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


@dataclass(frozen=True)
class ValueCounts:
    """What a finding's context reads of every candidate of its scan: the rules that
    matched each value and the files holding it, and each file's candidates. Worked out
    once a scan (``of``), or for a set of findings only (``for_findings``: what a
    process that assesses them is sent, ``scoring.beside``)."""

    # fingerprint -> (the rules that matched the value, sorted; the files holding it,
    # at least 1; whether any of them is test code)
    values: Mapping[str, tuple[tuple[str, ...], int, bool]]
    per_file: Mapping[str, int]  # path -> its candidates

    @classmethod
    def of(cls, candidates: Iterable[Candidate]) -> ValueCounts:
        rules: dict[str, set[str]] = defaultdict(set)
        files: dict[str, set[str]] = defaultdict(set)
        per_file: Counter[str] = Counter()
        for candidate in candidates:
            rules[candidate.fingerprint].add(candidate.type)
            files[candidate.fingerprint].add(candidate.path)
            per_file[candidate.path] += 1
        return cls(_LazyValues(rules, files), per_file)

    def for_findings(self, findings: Iterable[Finding]) -> ValueCounts:
        """The counts ``findings`` read, alone."""
        values: dict[str, tuple[tuple[str, ...], int, bool]] = {}
        per_file: dict[str, int] = {}
        for finding in findings:
            values[finding.fingerprint] = self.values[finding.fingerprint]
            path = _primary(finding).path
            per_file[path] = self.per_file.get(path, 1)
        return ValueCounts(values, per_file)


class _LazyValues(Mapping[str, tuple[tuple[str, ...], int, bool]]):
    """A value's counts, worked out the first time a finding of it asks."""

    def __init__(self, rules: Mapping[str, set[str]], files: Mapping[str, set[str]]) -> None:
        self._rules, self._files = rules, files
        self._made: dict[str, tuple[tuple[str, ...], int, bool]] = {}

    def __getitem__(self, fingerprint: str) -> tuple[tuple[str, ...], int, bool]:
        made = self._made.get(fingerprint)
        if made is None:
            holding = self._files.get(fingerprint, ())
            made = self._made[fingerprint] = (
                tuple(sorted(self._rules.get(fingerprint, set()))),
                max(1, len(holding)),
                any(in_test_scope(p) for p in holding),
            )
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


# A finding, its context and the offline checks it was built from (both None when its
# value is unknown).
Built = tuple[Finding, CandidateContext | None, tuple[ValidationResult, ...] | None]


def lookups_of(findings: Iterable[Finding]) -> list[str]:
    """The paths whose references the findings' contexts read (``wants_lookup``)."""
    return [
        path
        for f in findings
        if (path := in_file(_primary(f))) is not None and wants_lookup(path, f.rule_id)
    ]


def reads_of(findings: Iterable[Finding]) -> list[Read]:
    """Every line ``stream_contexts`` may read for the findings, sorted by path: a reader
    that keeps one file at a time (``scoring.beside``) reads each file once. A superset:
    where one of a finding's other locations shows the value deployed, ``deployed_elsewhere``
    reads none after it."""
    reads: dict[tuple[str, int], tuple[bool, bool]] = {}

    def add(path: str, number: int, block: bool, docstring: bool) -> None:
        was = reads.get((path, number), (False, False))
        reads[(path, number)] = (was[0] or block, was[1] or docstring)

    for finding in findings:
        primary = _primary(finding)
        inside = in_file(primary) is not None
        add(primary.path, primary.line, inside, inside)
        others = [loc for loc in finding.locations if loc is not primary]
        if len(others) <= _MAX_OTHER_LOCATIONS:  # as ``deployed_elsewhere`` reads them
            for location in others:
                path = in_file(location)
                if path is not None and not in_documentation(path):
                    add(path, location.line, False, True)
    return sorted((path, number, *asked) for (path, number), asked in reads.items())


def stream_contexts(
    findings: Iterable[Finding],
    value_of: Callable[[str], str | None],
    counts: ValueCounts,
    line_of: Callable[[str, int], str],
    *,
    referenced: Mapping[str, Referenced] | None = None,
    test_block_of: Callable[[str, int], bool] | None = None,
    docstring_of: Callable[[str, int], bool] | None = None,
    checks_of: Callable[[Finding, str], Sequence[ValidationResult]] | None = None,
    forget: Callable[[str], None] | None = None,
) -> Iterator[Built]:
    """Each finding's context a finding at a time, in the order of ``findings``, with
    the checks it was built from (``checks_of``; none: no checks). ``referenced``: how
    the key files are named (``scoring.references``; none: unknown). ``forget`` is told
    of each path once no finding left has a location in it: a reader that keeps whole
    files (``LineReader``) then holds about one at a time, as a scan orders its
    findings by path."""
    left: Counter[str] = Counter()
    if forget is not None:
        findings = list(findings)  # read twice
        left.update(p for f in findings for p in {loc.path for loc in f.locations})
    named = referenced or {}
    for finding in findings:
        value = value_of(finding.id)
        if value is None:
            yield finding, None, None
        else:
            primary = _primary(finding)
            path, number = primary.path, primary.line
            outside_tree = in_file(primary) is None
            found = tuple(checks_of(finding, value)) if checks_of is not None else ()
            value_rules, value_files, copies_in_tests = counts.values[finding.fingerprint]
            context = CandidateContext(
                value=value,
                rule_id=finding.rule_id,
                path=path,
                line=line_of(path, number),
                paths=tuple(loc.path for loc in finding.locations),
                rules=value_rules,
                file_candidates=max(1, counts.per_file.get(path, 1)),
                value_files=value_files,
                copies_in_tests=copies_in_tests,
                checks=tuple((r.kind.value, r.status.value) for r in found),
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
                referenced=named.get(path, Referenced.UNKNOWN),
            )
            yield finding, context, found
        if forget is not None:
            for seen in {loc.path for loc in finding.locations}:
                left[seen] -= 1
                if not left[seen]:
                    forget(seen)


def build_contexts(
    findings: Sequence[Finding],
    value_of: Callable[[str], str | None],
    candidates: Iterable[Candidate],
    line_of: Callable[[str, int], str],
    root: Path | None = None,
    test_block_of: Callable[[str, int], bool] | None = None,
    docstring_of: Callable[[str, int], bool] | None = None,
    tree: Sequence[Listed] | None = None,
    forget: Callable[[str], None] | None = None,
    checks_of: Callable[[Finding, str], Sequence[ValidationResult]] | None = None,
) -> dict[str, CandidateContext]:
    """finding id -> context, for every finding whose value is known
    (``stream_contexts``). With ``root``, key files outside test code are looked up:
    who else in the repository names them (``referenced_of``)."""
    built = stream_contexts(
        findings,
        value_of,
        ValueCounts.of(candidates),
        line_of,
        referenced=referenced_of(root, findings, tree) if root is not None else None,
        test_block_of=test_block_of,
        docstring_of=docstring_of,
        checks_of=checks_of,
        forget=forget,
    )
    return {finding.id: context for finding, context, _ in built if context is not None}


def referenced_of(
    root: Path, findings: Iterable[Finding], tree: Sequence[Listed] | None
) -> dict[str, Referenced]:
    """How the repository under ``root`` names the findings' key files
    (``scoring.references``), among ``tree``, the root's files as a scan listed them
    (else listed here)."""
    lookups = lookups_of(findings)
    return references(root, lookups, tree) if lookups else {}


def scan_contexts(
    result: ScanResult, root: Path, findings: Sequence[Finding] | None = None
) -> tuple[dict[str, CandidateContext], dict[str, tuple[ValidationResult, ...]]]:
    """Contexts of every finding of a scan of ``root`` (of ``findings`` only, when given;
    the counts across files still come from the whole scan), with the offline
    validators' results they were built from (never live checks: the scorer is trained
    without them). The one way both a scan and the training corpus turn findings into
    scorer input."""
    chosen = result.findings if findings is None else findings
    offline = ValidatorRegistry.default(live=False)
    reader = LineReader(root, result.line_text)
    built = stream_contexts(
        chosen,
        result.vault.get,
        ValueCounts.of(result.candidates),
        reader.line,
        referenced=referenced_of(root, chosen, result.tree),
        test_block_of=reader.in_test_block,
        docstring_of=reader.in_docstring,
        checks_of=lambda finding, value: tuple(offline.validate(value, finding)),
        forget=reader.forget,
    )
    contexts: dict[str, CandidateContext] = {}
    checks: dict[str, tuple[ValidationResult, ...]] = {}
    for finding, context, found in built:
        if context is not None and found is not None:
            contexts[finding.id], checks[finding.id] = context, found
    return contexts, checks
