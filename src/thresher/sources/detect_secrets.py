"""The detect-secrets source: detect-secrets' findings, on every core.

It reports the same (file, line, type) set as ``detect-secrets scan --all-files`` on
the same tree (plus custom rules), one ``Sourced`` report per detection; ``dedupe``
turns them into findings. It is fast because it never asks detect-secrets to look at a
line on which no plugin could match (see ``triggers``) and because files are scanned
in batches on every core: by this process and one worker process per other core.

Nothing is dropped silently: every listed file that is not scanned is counted by its
``SkipReason`` in ``ScanStats`` and named in ``Scanned.skipped``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from thresher.findings.detection import Detection, Origin
from thresher.findings.engine import FileJob, FileOutcome, Limits
from thresher.findings.options import CustomRule, ScanError, ScanOptions, in_scopes
from thresher.findings.rules.book import builtin_rules
from thresher.findings.screen import Dropped, DropReason, drop_phrase
from thresher.findings.screen import count_by_reason as count_drops
from thresher.findings.skips import Skipped, SkipReason, count_by_reason, scan_phrase
from thresher.git import scope as gitscope
from thresher.memory import collector_spared
from thresher.sources.assemble import (
    BaselineKey,
    Candidate,
    ds_hash,
    in_order,
    load_baseline,
    sourced,
    unordered_candidates,
)
from thresher.sources.base import Source, Sourced
from thresher.sources.running import Running, start_run

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScanStats:
    files_scanned: int
    files_skipped: int
    raw_candidates: int  # detections before the baseline and de-duplication
    seconds: float
    # why the skipped files were skipped, in ``SkipReason`` order, zeros left out
    skipped_by_reason: dict[SkipReason, int] = field(default_factory=dict)
    # scanned, but not UTF-8: decoded as Windows-1252 or Latin-1
    decoded_with_fallback: int = 0
    # YAML/config read as plain lines: too large, or blank runs too costly, to parse
    read_unparsed: int = 0
    # detections the screen judged no candidates, by reason (``findings.screen``)
    dropped_by_reason: dict[DropReason, int] = field(default_factory=dict)

    def describe(self) -> str:
        """ "scanned 120 files; skipped 3 (1 binary, 1 unreadable, 1 too large)", and how
        many detections the screen dropped as no candidates, by reason, if any."""
        text = scan_phrase(
            self.files_scanned,
            self.skipped_by_reason,
            self.decoded_with_fallback,
            self.read_unparsed,
        )
        dropped = drop_phrase(self.dropped_by_reason)
        return f"{text}; {dropped}" if dropped else text


@dataclass(frozen=True)
class Scanned:
    """What a scan learned besides its findings: counts, skips, and the scanned lines."""

    stats: ScanStats
    # detect-secrets-shaped detections (no values): for baselines and comparisons
    candidates: tuple[Candidate, ...] = ()
    # (path, line) -> the text of every line holding a detection, as scanned. Holds
    # values, like the vault: in memory only, never printed or serialised.
    line_text: dict[tuple[str, int], str] = field(default_factory=dict, repr=False)
    skipped: tuple[Skipped, ...] = ()  # every file passed over, by path
    dropped: tuple[Dropped, ...] = ()  # every detection the screen dropped, by place
    # The root's files as ``gitscope.list_files`` listed them for this scan (None for a
    # diff or staged scan): what the scorer's references pass reads again.
    tree: tuple[gitscope.Listed, ...] | None = field(default=None, repr=False)
    # Whether git found a repository at the root: False only where it said there is none.
    repository: bool | None = None


class DetectSecretsScan(Source):
    """The tree, or what a diff adds, scanned by detect-secrets' plugins and custom rules.

    ``collect`` raises ``ScanError`` for anything the caller must fix before a scan can
    run; a file that cannot be read or parsed is counted as skipped instead. After it,
    ``scanned`` holds the scan's counts and skips.
    """

    def __init__(self, options: ScanOptions) -> None:
        self.options = options
        self._scanned: Scanned | None = None
        self._started: _Started | None = None
        # value -> ``dedupe.fingerprint(value)`` of the values ``collect`` reported: for
        # ``dedupe`` to hash none again. Holds values, like the vault: in memory only.
        self.fingerprints: dict[str, str] = {}
        # id(outcome) -> (the outcome, its candidates and reports), made as it came in.
        self._made: dict[int, tuple[FileOutcome, list[Candidate], list[Sourced]]] = {}

    @property
    def name(self) -> str:
        return "detect-secrets"

    @property
    def scanned(self) -> Scanned:
        if self._scanned is None:
            raise RuntimeError("DetectSecretsScan.scanned is known once collect() has run")
        return self._scanned

    def start(self) -> None:
        """Check the options, list the files and start the worker processes on them;
        ``collect`` finishes the scan (see ``sources.running``). Raises ``ScanError``
        as ``collect`` does."""
        if self._started is not None:
            return
        started = time.perf_counter()
        options = self.options
        root = options.checked_root()
        scopes = options.scopes(root)
        workers = options.worker_count()
        rules = _checked_rules(options.custom_rules)
        baseline = load_baseline(options.baseline) if options.baseline is not None else frozenset()
        plan = _plan(root, options, scopes)
        if options.baseline is not None:
            plan = _without_file(plan, root, options.baseline)
        specs = tuple(rule.as_rule() for rule in options.custom_rules)
        limits = Limits(
            options.max_file_bytes,
            options.chunk_bytes,
            options.honour_pragmas,
            builtin_rules=options.builtin_rules,
            screen=options.screen,
        )
        running = start_run(plan.jobs, specs, limits, workers)
        if not baseline:  # a baseline is read across a file's reports: all at the end
            running.arrived = lambda outcome: self._make(outcome, rules, plan.commit)
        self._started = _Started(running, plan, rules, baseline, started)

    def _make(
        self, outcome: FileOutcome, rules: dict[str, CustomRule], commit: str | None
    ) -> tuple[list[Candidate], list[Sourced]]:
        """One outcome's candidates and reports (``_assembled`` asks for them in the
        outcomes' order), made once: while the workers scan, as it comes in, if the scan
        hands it over (``running.arrived``). Each file's are its own: every candidate's
        key and every report's location holds the path."""
        made = self._made.get(id(outcome))
        if made is None or made[0] is not outcome:
            detections = outcome.detections
            made = (
                outcome,
                unordered_candidates(detections, self.fingerprints),
                list(sourced(detections, rules, commit)),
            )
            self._made[id(outcome)] = made  # the outcome is held: its id stays its own
        return made[1], made[2]

    def close(self) -> None:
        """Stop a scan started and never collected (its worker processes with it)."""
        self._made.clear()  # reports made so far hold values
        if self._started is not None:
            self._started.running.close()
            self._started = None

    def collect(self) -> Iterator[Sourced]:
        self.start()
        assert self._started is not None  # ``start`` sets it
        running, plan, rules, baseline, started = self._started
        self._started = None
        outcomes = running.outcomes()
        with collector_spared() as spare:
            spare()  # the outcomes, kept to the end: no collection walks them again
            yield from self._assembled(outcomes, plan, rules, baseline, started)

    def _assembled(
        self,
        outcomes: list[FileOutcome],
        plan: _Plan,
        rules: dict[str, CustomRule],
        baseline: frozenset[BaselineKey],
        started: float,
    ) -> Iterator[Sourced]:
        """The reports of the outcomes; ``scanned`` is set before the first."""
        detections: list[Detection] = [d for outcome in outcomes for d in outcome.detections]
        if baseline:
            kept = _without_baseline(detections, baseline)
            candidates = in_order(unordered_candidates(kept, self.fingerprints))
            reports: Iterable[Sourced] = sourced(kept, rules, plan.commit)
        else:
            made = [self._make(outcome, rules, plan.commit) for outcome in outcomes]
            self._made.clear()
            candidates = in_order(c for found, _ in made for c in found)
            reports = (report for _, found in made for report in found)
        skipped = plan.skipped + [
            Skipped(o.path, o.skipped, o.detail) for o in outcomes if o.skipped is not None
        ]
        skipped.sort(key=lambda item: item.path)
        if log.isEnabledFor(logging.DEBUG):  # a description per drop: only when shown
            for item in skipped:
                log.debug("%s", item.describe())
            for outcome in outcomes:
                if outcome.unparsed:
                    log.debug("read %s as plain lines: too large or costly to parse", outcome.path)
                for drop in outcome.dropped:
                    log.debug("%s", drop.describe())
        stats = ScanStats(
            files_scanned=sum(1 for outcome in outcomes if outcome.scanned),
            files_skipped=len(skipped),
            raw_candidates=len(detections),
            seconds=time.perf_counter() - started,
            skipped_by_reason=count_by_reason(skipped),
            decoded_with_fallback=sum(1 for o in outcomes if o.scanned and o.fallback),
            read_unparsed=sum(1 for o in outcomes if o.scanned and o.unparsed),
            dropped_by_reason=count_drops(d for o in outcomes for d in o.dropped),
        )
        line_text = {(o.path, n): text for o in outcomes for n, text in o.lines.items()}
        dropped = tuple(d for outcome in outcomes for d in outcome.dropped)
        self._scanned = Scanned(
            stats,
            candidates,
            line_text,
            tuple(skipped),
            dropped,
            plan.tree,
            plan.repository,
        )
        yield from reports


class _Started(NamedTuple):
    """A scan started (``DetectSecretsScan.start``): what ``collect`` goes on with."""

    running: Running
    plan: _Plan
    rules: dict[str, CustomRule]
    baseline: frozenset[BaselineKey]
    started: float  # ``time.perf_counter()`` when it started


@dataclass(frozen=True)
class _Plan:
    jobs: list[FileJob]
    skipped: list[Skipped]
    commit: str | None
    tree: tuple[gitscope.Listed, ...] | None = None  # the root's whole listing, if made
    repository: bool | None = None  # what git said of it (``gitscope.Tree``)


def _checked_rules(rules: Sequence[CustomRule]) -> dict[str, CustomRule]:
    by_id: dict[str, CustomRule] = {}
    builtin = {rule.id for rule in builtin_rules()}
    for rule in rules:
        rule.compiled()
        rule.as_rule().compiled()
        if rule.id in builtin:
            raise ScanError(
                f"custom rule {rule.id!r} has the id of a built-in rule",
                hint="give it another id; `thresher rules list` shows the built-in ones",
            )
        if rule.id in by_id:
            raise ScanError(f"custom rule {rule.id!r} is defined twice")
        by_id[rule.id] = rule
    return by_id


def _without_baseline(
    detections: list[Detection], baseline: frozenset[BaselineKey]
) -> list[Detection]:
    """Without what the baseline accepts. Its entries name detect-secrets' types; a value
    it accepts is accepted whoever reports it, so a built-in rule's report of that value
    in that file (or of a value the baseline hashes under any type there) goes too."""
    if not baseline:
        return detections
    accepted = {
        (d.path, d.value) for d in detections if (d.path, ds_hash(d.ds_value), d.type) in baseline
    }
    hashes = {(path, hashed) for path, hashed, _type in baseline}
    return [
        d
        for d in detections
        if (d.path, ds_hash(d.ds_value), d.type) not in baseline
        and not (
            d.origin is Origin.RULES
            and ((d.path, d.value) in accepted or (d.path, ds_hash(d.value)) in hashes)
        )
    ]


def _without_file(plan: _Plan, root: Path, baseline: Path) -> _Plan:
    """The baseline lists hashes that look like secrets; it is not scanned."""
    try:
        relative = baseline.resolve().relative_to(root).as_posix()
    except ValueError:
        return plan
    jobs = [job for job in plan.jobs if job.path != relative]
    passed = [Skipped(relative, SkipReason.BASELINE)] if len(jobs) < len(plan.jobs) else []
    return _Plan(jobs, plan.skipped + passed, plan.commit, plan.tree, plan.repository)


def _plan(root: Path, options: ScanOptions, scopes: tuple[str, ...]) -> _Plan:
    if options.diff is not None or options.staged:
        if options.diff is not None:
            scope = gitscope.diff_range(root, options.diff)
        else:
            scope = gitscope.diff_staged(root)
        return _plan_diff(root, scope, scopes, options.max_file_bytes)
    listing = gitscope.list_tree(root)
    tree, skipped = listing.listed, listing.skipped
    listed = [item for item in tree if in_scopes(item.path, scopes)]
    listed += _named_but_unlisted(root, scopes, {item.path for item in listed})
    skipped = [item for item in skipped if in_scopes(item.path.rstrip("/"), scopes)]
    jobs: list[FileJob] = []
    for item in listed:
        if gitscope.is_own_output(item.path):
            skipped.append(Skipped(item.path, SkipReason.OWN_OUTPUT))
        elif item.size > options.max_file_bytes:
            detail = f"{item.size:,} bytes, over {options.max_file_bytes:,}"
            skipped.append(Skipped(item.path, SkipReason.TOO_LARGE, detail))
        else:
            jobs.append(FileJob(item.path, disk=item.disk, size=item.size))
    return _Plan(jobs, skipped, None, tuple(tree), listing.repository)


def _named_but_unlisted(
    root: Path, scopes: tuple[str, ...], seen: set[str]
) -> list[gitscope.Listed]:
    """A file named explicitly is scanned even when .gitignore would hide it."""
    extra: list[gitscope.Listed] = []
    for scope in scopes:
        path = root / scope
        if scope and scope not in seen and path.is_file() and not path.is_symlink():
            extra.append(gitscope.Listed(scope, str(path), path.stat().st_size))
    return extra


def _plan_diff(
    root: Path, scope: gitscope.DiffScope, scopes: tuple[str, ...], max_bytes: int
) -> _Plan:
    in_scope = sorted(path for path in scope.added if in_scopes(path, scopes))
    skipped: list[Skipped] = []
    paths: list[str] = []
    for path in in_scope:
        if gitscope.is_own_output(path):  # committed by mistake
            skipped.append(Skipped(path, SkipReason.OWN_OUTPUT))
        elif path not in scope.blobs:
            skipped.append(Skipped(path, SkipReason.NOT_A_FILE, "symlink or submodule"))
        else:
            paths.append(path)
    contents, oversized = gitscope.read_blobs(root, [scope.blobs[p] for p in paths], max_bytes)
    jobs: list[FileJob] = []
    for path in paths:
        blob = contents.get(scope.blobs[path])
        if blob is not None:
            jobs.append(FileJob(path, content=blob, added=scope.added[path], size=len(blob)))
        elif scope.blobs[path] in oversized:
            skipped.append(Skipped(path, SkipReason.TOO_LARGE, f"over {max_bytes:,} bytes"))
        else:
            skipped.append(Skipped(path, SkipReason.UNREADABLE, "git has no such blob"))
    return _Plan(jobs, skipped, scope.commit)
