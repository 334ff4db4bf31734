"""A scan's files on every core, started before its outcomes are asked for.

``start_run`` starts the worker processes and hands them their first batches at once;
``outcomes`` then scans this process's share and collects theirs. Between the two the
caller may do other work while the workers scan (``thresher scan`` loads the triage's
modules and sets its run up there): that work then costs a core the workers were not
using, not time of its own.

Workers take batches from the large end of the files (``_Queue``), this process single
files from the small end, and between two of its files it refills a worker that
finished a batch. Batches shrink as the work left does, so both ends meet with no large
batch left: neither process idles long while the other finishes.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from multiprocessing.context import BaseContext

from thresher.findings.engine import (
    Engine,
    FileJob,
    FileOutcome,
    Limits,
    detect_secrets_session,
    init_worker,
    scan_batch,
    scan_in_process,
)
from thresher.findings.rules.book import Rule
from thresher.memory import collector_spared

log = logging.getLogger(__name__)

# Below this much text, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 256 * 1024
_QUEUED = 2  # batches a worker process holds: the next waits queued while it scans one
_MIN_BATCH_BYTES = 64 * 1024
_GUIDED = 4  # a worker's batch holds 1/(processes * this) of the bytes left ...
_MAX_BATCH_BYTES = 512 * 1024  # ... and no more than this, unless one file is larger
# Handed to the workers when they start, before this process asks for the outcomes
# (about a second of scanning): what they scan while the caller does other work.
# Never more than a quarter of the bytes, so the shares still meet at the end.
_AHEAD_BYTES = 6 * 1024 * 1024


# What the caller does with each outcome as it comes in, while the workers still scan.
Arrived = Callable[[FileOutcome], object]


class Running:
    """A scan of ``jobs`` under way: in this process only, when workers would not pay."""

    def __init__(self, jobs: list[FileJob], rules: tuple[Rule, ...], limits: Limits) -> None:
        self._jobs, self._rules, self._limits = jobs, rules, limits
        self.arrived: Arrived | None = None  # see ``_Shared``

    def outcomes(self) -> list[FileOutcome]:
        """Every job's outcome: in the jobs' order here, largest first from workers."""
        return scan_in_process(self._jobs, self._rules, self._limits)

    def close(self) -> None:
        """Stop what still runs; the outcomes are not asked for."""


def start_run(
    jobs: list[FileJob], rules: tuple[Rule, ...], limits: Limits, workers: int
) -> Running:
    """Start scanning ``jobs`` on ``workers`` processes (this one included)."""
    total = sum(job.size for job in jobs)
    if workers == 1 or len(jobs) < 2 or total < PARALLEL_MIN_BYTES:
        return Running(jobs, rules, limits)
    try:
        return _Shared(jobs, rules, limits, min(workers, len(jobs)) - 1)
    except (BrokenProcessPool, OSError) as exc:
        log.warning("worker processes failed (%s); scanning in this process", exc)
        return Running(jobs, rules, limits)


class _Queue:
    """The jobs not handed out yet, largest first: worker processes take batches from the
    large end, this process one file at a time from the small end.

    A batch holds a share of the bytes left (``_GUIDED``: the more is left, the larger),
    never less than ``_MIN_BATCH_BYTES``, never more than ``_MAX_BATCH_BYTES`` unless one
    file is larger: at the end no batch so large that the other process idles while it
    is scanned. Bytes say little of a large file's cost (a 1 MB YAML file takes seconds
    to parse), so a worker holds few large files at a time: the rest stay in the queue,
    where either process can take them."""

    def __init__(self, jobs: list[FileJob], processes: int) -> None:
        self.jobs = jobs
        self._low, self._high = 0, len(jobs)  # jobs[low:high] are left
        self._left = sum(job.size for job in jobs)
        self._share = processes * _GUIDED

    def __bool__(self) -> bool:
        return self._low < self._high

    def smallest(self) -> int:
        """The position (in ``jobs``) of the smallest job left, taken."""
        self._high -= 1
        self._left -= self.jobs[self._high].size
        return self._high

    def batch(self) -> range:
        """The positions of the largest jobs left, about their share of the bytes, taken."""
        target = max(_MIN_BATCH_BYTES, min(self._left // self._share, _MAX_BATCH_BYTES))
        start, size = self._low, 0
        while self._low < self._high and size < target:
            size += self.jobs[self._low].size
            self._low += 1
        self._left -= size
        return range(start, self._low)


class _Shared(Running):
    """``jobs`` scanned by ``helpers`` worker processes and by this one (see the module
    docstring), the outcomes in the jobs' order.

    This process scans too instead of waiting: one process fewer holds a copy of the
    interpreter and detect-secrets (peak memory, all processes summed), and no core
    idles. Its engine is built before the workers start, so a forked worker inherits it
    instead of building its own. detect-secrets' settings stay set for the scan until
    the outcomes are in (``detect_secrets_session``).

    ``arrived``, when the caller sets it, is called with each outcome as it comes in
    (one this process scanned, or each of a worker's batch), between two of this
    process's files: work the caller would do per outcome once all are in is done
    while the workers still scan, and the batches share it out as they share scanning.
    """

    def __init__(
        self, jobs: list[FileJob], rules: tuple[Rule, ...], limits: Limits, helpers: int
    ) -> None:
        # Largest first (ties in the plan's order): the outcomes come back in this order.
        super().__init__(sorted(jobs, key=lambda job: job.size, reverse=True), rules, limits)
        self._planned = jobs  # what a failed worker leaves to this process, in this order
        self._helpers = helpers
        self._results: list[FileOutcome | None] = [None] * len(jobs)
        self._queue = _Queue(self._jobs, helpers + 1)
        self._running: dict[Future[list[FileOutcome]], range] = {}
        self._stack = ExitStack()  # the session and the pool, until the outcomes are in
        try:
            with collector_spared() as spare:
                self._stack.enter_context(
                    detect_secrets_session(honour_pragmas=limits.honour_pragmas)
                )
                self._engine: Engine = limits.engine(rules)
                # The modules and the engine: no collection in a forked worker walks them
                # (nor copies the pages they lie on). This process spares them again
                # while it scans (``outcomes``): between the two, its caller may spare
                # what it keeps itself (``collector_spared`` nests only that way).
                spare()
                context = _context()
                # A forked worker starts with this engine (and the settings of this
                # session): it builds none of its own. Another start pickles nothing of it.
                built = self._engine if context.get_start_method() == "fork" else None
                self._pool = self._stack.enter_context(
                    ProcessPoolExecutor(
                        max_workers=max(1, helpers),
                        mp_context=context,
                        initializer=init_worker,
                        initargs=(rules, limits, built),
                    )
                )
                self._refill(min(_AHEAD_BYTES, sum(job.size for job in jobs) // 4))
        except BaseException:
            self._stack.close()
            raise

    def _refill(self, ahead: int = 0) -> None:
        """Collect the batches done and hand out new ones: each worker holds ``_QUEUED``,
        and until ``ahead`` bytes are handed out, more."""
        for future in [f for f in self._running if f.done()]:
            self._place(self._running.pop(future), future.result())
        handed = 0
        while self._queue and (len(self._running) < _QUEUED * self._helpers or handed < ahead):
            positions = self._queue.batch()
            handed += sum(self._jobs[p].size for p in positions)
            self._running[self._pool.submit(scan_batch, [self._jobs[p] for p in positions])] = (
                positions
            )

    def _place(self, positions: range, outcomes: list[FileOutcome]) -> None:
        for position, outcome in zip(positions, outcomes, strict=True):
            self._results[position] = outcome
        if self.arrived is not None:
            for outcome in outcomes:
                self.arrived(outcome)

    def outcomes(self) -> list[FileOutcome]:
        try:
            with collector_spared() as spare, self._stack:
                spare()
                queue = self._queue
                while queue:
                    position = queue.smallest()
                    self._place(
                        range(position, position + 1), [self._engine.scan_job(self._jobs[position])]
                    )
                    self._refill()
                for future, positions in self._running.items():
                    self._place(positions, future.result())
        except (BrokenProcessPool, OSError) as exc:
            log.warning("worker processes failed (%s); scanning in this process", exc)
            return scan_in_process(self._planned, self._rules, self._limits)
        return [outcome for outcome in self._results if outcome is not None]

    def close(self) -> None:
        for future in self._running:
            future.cancel()
        self._stack.close()


def _context() -> BaseContext:
    """fork is the cheapest start, but only safe while no other thread runs."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
