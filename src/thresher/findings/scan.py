"""The candidate scanner: detect-secrets' findings, on every core.

``scan`` reports the same (file, line, type) set as ``detect-secrets scan
--all-files`` on the same tree (plus custom rules), turned into de-duplicated
findings whose raw values live only in the returned vault. It is fast because
it never asks detect-secrets to look at a line on which no plugin could match
(see ``triggers``) and because files are scanned in batches by one worker
process per core.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from pathlib import Path

from thresher.findings import gitscope
from thresher.findings.assemble import (
    BaselineKey,
    Candidate,
    assemble,
    candidates_of,
    ds_hash,
    load_baseline,
)
from thresher.findings.engine import (
    Detection,
    FileJob,
    FileOutcome,
    init_worker,
    scan_batch,
    scan_in_process,
)
from thresher.findings.model import Finding
from thresher.findings.options import CustomRule, ScanError, ScanOptions, in_scopes
from thresher.findings.vault import SecretVault

__all__ = [
    "Candidate",
    "CustomRule",
    "ScanError",
    "ScanOptions",
    "ScanResult",
    "ScanStats",
    "scan",
]

log = logging.getLogger(__name__)

# Below this much text, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 256 * 1024
_MIN_BATCH_BYTES = 64 * 1024
_BATCHES_PER_WORKER = 6


@dataclass(frozen=True)
class ScanStats:
    files_scanned: int
    # binary, oversized, not UTF-8, excluded by name, thresher's own output, unreadable
    files_skipped: int
    raw_candidates: int  # detections before the baseline and de-duplication
    seconds: float


@dataclass(frozen=True)
class ScanResult:
    findings: tuple[Finding, ...]
    vault: SecretVault
    stats: ScanStats
    # detect-secrets-shaped detections (no values): for baselines and comparisons
    candidates: tuple[Candidate, ...] = ()
    # (path, line) -> the text of every line holding a detection, as scanned. Holds
    # values, like the vault: in memory only, never printed or serialised.
    line_text: dict[tuple[str, int], str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class _Plan:
    jobs: list[FileJob]
    skipped: int
    commit: str | None


def scan(options: ScanOptions) -> ScanResult:
    """Scan the tree, or what a diff adds, and return de-duplicated findings.

    Raises ``ScanError`` for anything the caller must fix before a scan can
    run; a file that cannot be read or parsed is counted as skipped instead.
    """
    started = time.perf_counter()
    root = options.checked_root()
    scopes = options.scopes(root)
    workers = options.worker_count()
    rules = _checked_rules(options.custom_rules)
    baseline = load_baseline(options.baseline) if options.baseline is not None else frozenset()
    plan = _plan(root, options, scopes)
    if options.baseline is not None:
        plan = _without_file(plan, root, options.baseline)
    specs = tuple((rule.id, rule.pattern) for rule in options.custom_rules)
    outcomes = _run(plan.jobs, specs, options.max_file_bytes, workers)

    detections: list[Detection] = [d for outcome in outcomes for d in outcome.detections]
    kept = _without_baseline(detections, baseline)
    findings, vault = assemble(kept, rules, plan.commit)
    scanned = sum(1 for outcome in outcomes if outcome.scanned)
    for outcome in outcomes:
        if not outcome.scanned:
            log.debug("skipped %s: %s", outcome.path, outcome.reason)
    stats = ScanStats(
        files_scanned=scanned,
        files_skipped=plan.skipped + len(outcomes) - scanned,
        raw_candidates=len(detections),
        seconds=time.perf_counter() - started,
    )
    line_text = {(o.path, n): text for o in outcomes for n, text in o.lines.items()}
    return ScanResult(findings, vault, stats, candidates_of(kept), line_text)


def _checked_rules(rules: Sequence[CustomRule]) -> dict[str, CustomRule]:
    by_id: dict[str, CustomRule] = {}
    for rule in rules:
        rule.compiled()
        if rule.id in by_id:
            raise ScanError(f"custom rule {rule.id!r} is defined twice")
        by_id[rule.id] = rule
    return by_id


def _without_baseline(
    detections: list[Detection], baseline: frozenset[BaselineKey]
) -> list[Detection]:
    if not baseline:
        return detections
    return [d for d in detections if (d.path, ds_hash(d.ds_value), d.type) not in baseline]


def _without_file(plan: _Plan, root: Path, baseline: Path) -> _Plan:
    """The baseline lists hashes that look like secrets; it is not scanned."""
    try:
        relative = baseline.resolve().relative_to(root).as_posix()
    except ValueError:
        return plan
    jobs = [job for job in plan.jobs if job.path != relative]
    return _Plan(jobs, plan.skipped + len(plan.jobs) - len(jobs), plan.commit)


def _plan(root: Path, options: ScanOptions, scopes: tuple[str, ...]) -> _Plan:
    if options.diff is not None or options.staged:
        if options.diff is not None:
            scope = gitscope.diff_range(root, options.diff)
        else:
            scope = gitscope.diff_staged(root)
        return _plan_diff(root, scope, scopes, options.max_file_bytes)
    listed, skipped = gitscope.list_files(root)
    listed = [item for item in listed if in_scopes(item.path, scopes)]
    listed += _named_but_unlisted(root, scopes, {item.path for item in listed})
    jobs: list[FileJob] = []
    for item in listed:
        if gitscope.is_own_output(item.path):
            skipped += 1
            log.debug("skipped %s: thresher's own output", item.path)
        elif item.size > options.max_file_bytes:
            skipped += 1
            log.debug("skipped %s: over the size limit", item.path)
        else:
            jobs.append(FileJob(item.path, disk=item.disk, size=item.size))
    return _Plan(jobs, skipped, None)


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
    paths = [path for path in in_scope if not gitscope.is_own_output(path)]
    with_blob = [path for path in paths if path in scope.blobs]
    contents, oversized = gitscope.read_blobs(root, [scope.blobs[p] for p in with_blob], max_bytes)
    jobs: list[FileJob] = []
    # thresher's own output (committed by mistake), symlinks, submodules
    skipped = len(in_scope) - len(with_blob)
    for path in with_blob:
        blob = contents.get(scope.blobs[path])
        if blob is None:
            skipped += 1
            reason = "over the size limit" if scope.blobs[path] in oversized else "missing blob"
            log.debug("skipped %s: %s", path, reason)
            continue
        jobs.append(FileJob(path, content=blob, added=scope.added[path], size=len(blob)))
    return _Plan(jobs, skipped, scope.commit)


def _run(
    jobs: list[FileJob], rules: tuple[tuple[str, str], ...], max_bytes: int, workers: int
) -> list[FileOutcome]:
    total = sum(job.size for job in jobs)
    if workers == 1 or len(jobs) < 2 or total < PARALLEL_MIN_BYTES:
        return scan_in_process(jobs, rules, max_bytes)
    batches = _batches(jobs, total, workers)
    try:
        with ProcessPoolExecutor(
            max_workers=min(workers, len(batches)),
            mp_context=_context(),
            initializer=init_worker,
            initargs=(rules, max_bytes),
        ) as pool:
            futures = [pool.submit(scan_batch, batch) for batch in batches]
            return [outcome for future in futures for outcome in future.result()]
    except (BrokenProcessPool, OSError) as exc:
        log.warning("worker processes failed (%s); scanning in this process", exc)
        return scan_in_process(jobs, rules, max_bytes)


def _batches(jobs: list[FileJob], total: int, workers: int) -> list[list[FileJob]]:
    """Largest files first, in batches of about equal bytes, several per
    worker, so no core idles while another finishes one big batch."""
    target = max(_MIN_BATCH_BYTES, total // (workers * _BATCHES_PER_WORKER))
    batches: list[list[FileJob]] = []
    current: list[FileJob] = []
    size = 0
    for job in sorted(jobs, key=lambda j: j.size, reverse=True):
        current.append(job)
        size += job.size
        if size >= target:
            batches.append(current)
            current, size = [], 0
    if current:
        batches.append(current)
    return batches


def _context() -> BaseContext:
    """fork is the cheapest start, but only safe while no other thread runs."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
