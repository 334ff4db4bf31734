"""Offline decisions on every core: findings decided in forked worker processes.

When no finding can reach a model (every agent is the heuristic, or ``--escalate
never``), deciding a finding is Python work on one core: the offline panel's tool
calls, its rules and the redaction of everything it keeps. On a tree with thousands
of candidates that was most of a run. Such a run forks workers once the tribunal is
built: each inherits the tribunal, its redactor and the vault as they are (nothing is
pickled to start one), decides the findings of its share of the files in the
tribunal's order, and hands back, a slice at a time, each decision with its redacted
copy and journal line, its ``offline.jsonl`` lines, and the values its redactor learned.

The parent takes the findings in the tribunal's order, so ``decisions.jsonl`` and ``offline.jsonl``
keep the order a serial run writes, and teaches its redactor every value a worker
learned, so the report is redacted with all of them (``thresher.tribunal.journal`` checks each
journaled copy against the values learned after its worker forked). Learned values
travel from a worker to its parent through its pipe, never to a file or a log.

A worker that dies ends the run with ``OfflineWorkerError`` (exit 3); a configuration
error in a worker stops the run as it does in the serial loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import os
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from pydantic import ValidationError

from thresher.config.settings import AgentName
from thresher.errors import ThresherError
from thresher.findings import Finding
from thresher.llm.model import Model
from thresher.scoring.policy import Escalate
from thresher.tribunal.decisions import Decision
from thresher.tribunal.interned import Interner
from thresher.tribunal.journal import dumped
from thresher.tribunal.reported import decision_line
from thresher.tribunal.tribunal import Tribunal

PARALLEL_FROM = 256  # findings: below this, forking costs more than it saves
SLICE = 16  # findings a worker decides before handing them back


class OfflineWorkerError(ThresherError):
    """A worker process of the parallel offline run stopped without its results."""


@dataclass(frozen=True)
class Decided:
    """One finding decided in a worker, as the parent's journal and record need it."""

    decision: Decision
    redacted: Decision  # ``decision`` redacted by the worker's redactor
    line: str  # ``redacted`` as ``decisions.jsonl`` and the report write it (``decision_line``)
    exact: bool  # ``line`` is pydantic's JSON (see ``thresher.tribunal.journal.dumped``)
    records: tuple[str, ...]  # its ``offline.jsonl`` lines


@dataclass(frozen=True)
class _Wire:
    """A ``Decided`` as it crosses the pipe.

    Pickling a decision rebuilds each of its thirty-odd nested models attribute by
    attribute, which cost the parent most of a second on the dev corpus while both
    cores were deciding. The redacted copy as JSON (``whole``: the journal line leaves an
    offline decision's panel out, SARIF and Markdown read it) is read back by pydantic in
    about half that time, and in the usual case (redaction changed nothing) it is the
    decision too. Models cross the pipe only when the JSON cannot stand for them:
    redaction changed the decision, or it is not pydantic's JSON.
    """

    whole: str  # the redacted copy, all of it, as JSON
    line: str  # the journal line
    exact: bool
    raw: Decision | None  # the decision, when redaction changed it
    redacted: Decision | None  # the redacted copy, when ``whole`` is not pydantic's JSON
    records: tuple[str, ...]

    @classmethod
    def of(cls, done: Decided) -> _Wire:
        raw = None if done.redacted is done.decision else done.decision
        whole, exact = dumped(done.redacted)
        redacted = None if exact else done.redacted
        return cls(whole, done.line, done.exact, raw, redacted, done.records)

    def decided(self) -> Decided:
        redacted = self.redacted
        if redacted is None:
            try:
                redacted = Decision.model_validate_json(self.whole)
            except ValidationError as exc:  # a model that does not read back what it wrote
                raise OfflineWorkerError(
                    "a decision from a worker process of the offline run could not be read "
                    f"back ({exc.error_count()} error(s))",
                    hint="rerun; if it recurs, report it with -v",
                ) from None
        decision = self.raw if self.raw is not None else redacted
        return Decided(decision, redacted, self.line, self.exact, self.records)


@dataclass(frozen=True)
class _Slice:
    decided: tuple[tuple[int, _Wire], ...]  # by index in the tribunal's order
    learned: tuple[tuple[str, str], ...]  # values the worker learned, with their forms
    error: ThresherError | None = None  # a configuration error: the run stops


@dataclass(frozen=True)
class _Job:
    tribunal: Tribunal
    ordered: tuple[Finding, ...]
    value_of: Callable[[str], str | None]
    prepare: Callable[[Sequence[Finding]], None] | None


def offline_only(models: Mapping[AgentName, Model], escalate: Escalate) -> bool:
    """Whether no finding can be escalated to a model session (``Tribunal.decide``)."""
    return all(model.offline for model in models.values()) or escalate is Escalate.NEVER


def workers_for(findings: int, requested: int | None = None) -> int:
    """Worker processes for ``findings`` offline decisions besides this one, which
    decides a share too: 0 decides them all here. ``requested`` overrides the automatic
    choice: one per other core this process may use, from three cores, and only for runs
    large enough to repay the fork. On two cores one worker saved no measurable time on
    the dev corpus (the parent reads back, shares and journals its decisions) and cost
    190 MB (issue 26: ``benchmarks/anchors.py``)."""
    if requested is not None:
        return max(0, requested)
    if "fork" not in multiprocessing.get_all_start_methods() or findings < PARALLEL_FROM:
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(4, cores or 1) - 1 if (cores or 1) > 2 else 0


def decide_in_workers(
    tribunal: Tribunal,
    findings: Sequence[Finding],
    value_of: Callable[[str], str | None],
    on_decided: Callable[[Decided], Decision | None],
    *,
    workers: int,
    learn: Callable[[str, str], None],
    prepare: Callable[[Sequence[Finding]], None] | None = None,
    here: bool = False,
) -> list[Decision]:
    """Decide every finding in this process and ``workers`` forked ones (see the module
    docstring).

    Each file's findings go to one process, so a file holding many is read once, as in
    a serial run; the files are spread so the processes get about as many findings each.
    ``on_decided`` gets each finding in the serial run's order (what it returns, when
    not None, is kept and returned in the decision's place); ``learn`` each value a
    worker's redactor learned, with its redacted form, before the findings it came with.
    ``prepare`` runs in each process first, with the findings it will decide (their
    offline assessments, into the tribunal's). With ``here`` this process decides a
    share too, between reading the workers' slices, instead of only waiting for them:
    one process fewer holds a copy of the run (the scan's choice, see ``workers_for``);
    its redactor then learns what it detects itself, not through ``learn``.
    Returns the decisions in the order of ``findings``, as ``Tribunal.decide_all``.
    """
    if not findings:
        return []
    ordered = tuple(tribunal.order(findings))
    tribunal.offline_panel.expect(findings)  # once, for all: as the serial loop does
    # Share 0 is this process's (with ``here``): it decides too instead of waiting.
    owner = _shards(ordered, workers + 1) if here else [w + 1 for w in _shards(ordered, workers)]
    job = _Job(tribunal, ordered, value_of, prepare)
    context = multiprocessing.get_context("fork")
    pipes: list[Connection] = []
    processes: list[BaseProcess] = []
    try:
        for worker in range(1, workers + 1):
            indices = _by_file(ordered, [i for i, w in enumerate(owner) if w == worker])
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_work, args=(job, indices, send), daemon=True)
            process.start()
            send.close()  # the worker's end: EOF here when the worker is gone
            pipes.append(receive)
            processes.append(process)
        # Read whichever worker has sent something (a worker whose pipe is full waits
        # until it is read), and pass on the findings in order as they are complete.
        remaining = Counter(w - 1 for w in owner if w)
        waiting: dict[int, Decided] = {}
        by_id: dict[str, Decision] = {}
        shared = _Shared()
        state = {"next": 0}

        def receive_ready(timeout: float | None) -> None:
            busy = [pipes[w] for w in range(workers) if remaining[w]]
            for ready in wait(busy, timeout) if busy else ():
                assert isinstance(ready, Connection)
                piece = _receive(ready)
                remaining[pipes.index(ready)] -= len(piece.decided)
                for value, form in piece.learned:
                    learn(value, form)
                waiting.update((i, wire.decided()) for i, wire in piece.decided)
            while state["next"] in waiting:
                done = shared(waiting.pop(state["next"]))
                by_id[done.decision.finding.id] = on_decided(done) or done.decision
                state["next"] += 1

        own = _by_file(ordered, [i for i, w in enumerate(owner) if w == 0])
        if own:
            if prepare is not None:
                prepare([ordered[i] for i in own])
            for index in own:
                waiting[index] = _decide_here(tribunal, ordered[index], value_of)
                receive_ready(0)
        while state["next"] < len(ordered):
            receive_ready(None)
    finally:
        tribunal.offline_panel.sink = None
        for started in processes:
            if started.is_alive():
                started.terminate()
            started.join()
        for pipe in pipes:
            pipe.close()
    return [by_id[f.id] for f in findings]


def _decide_here(
    tribunal: Tribunal, finding: Finding, value_of: Callable[[str], str | None]
) -> Decided:
    """One finding of this process's share, decided as a worker decides it."""
    records: list[str] = []
    tribunal.offline_panel.sink = records.append
    decision = asyncio.run(tribunal.decide_one(finding, value_of))
    redacted = tribunal.factory.redactor.model(decision)
    return Decided(decision, redacted, *decision_line(redacted), tuple(records))


def _by_file(ordered: Sequence[Finding], indices: list[int]) -> list[int]:
    """A process's share decided a file at a time (in the tribunal's order within one):
    a file read once for its findings is let go after its last (``SharedReads``), and
    the parent holds every decision until the report anyway, so passing them on in the
    tribunal's order costs no more memory than deciding them in it."""
    return sorted(indices, key=lambda i: (ordered[i].locations[0].path, i))


class _Shared:
    """Decisions read back from the workers, their equal parts shared
    (``thresher.tribunal.interned``): the parent keeps every one until the report."""

    def __init__(self) -> None:
        self._interner = Interner()

    def __call__(self, done: Decided) -> Decided:
        decision = self._interner(done.decision)
        redacted = decision if done.redacted is done.decision else self._interner(done.redacted)
        return dataclasses.replace(done, decision=decision, redacted=redacted)


def _shards(ordered: Sequence[Finding], workers: int) -> list[int]:
    """The worker of each finding: by file, the files with most findings placed first,
    each on the worker with fewest findings so far."""
    per_file = Counter(f.locations[0].path for f in ordered)
    load = [0] * workers
    worker_of: dict[str, int] = {}
    for path, count in sorted(per_file.items(), key=lambda item: (-item[1], item[0])):
        worker = min(range(workers), key=lambda w: load[w])
        worker_of[path] = worker
        load[worker] += count
    return [worker_of[f.locations[0].path] for f in ordered]


def _receive(pipe: Connection) -> _Slice:
    try:
        piece: _Slice = pipe.recv()
    except EOFError:
        raise OfflineWorkerError(
            "a worker process of the offline run stopped before it sent its decisions",
            hint="rerun; if it recurs, check memory limits, or report it with -v",
        ) from None
    if piece.error is not None:
        raise piece.error
    return piece


def _work(job: _Job, indices: list[int], pipe: Connection) -> None:
    """A worker: its findings, a slice at a time, each slice sent as it is done."""
    # The parent may have had a thread (the progress bar) writing to stderr when it
    # forked, holding the stream's lock for good in this copy. A worker reports through
    # its pipe only; a stray warning goes to a stream of its own.
    sys.stdout = sys.stderr = Path(os.devnull).open("w")  # noqa: SIM115 - the worker's own
    try:
        if job.prepare is not None:
            job.prepare([job.ordered[i] for i in indices])
        for start in range(0, len(indices), SLICE):
            pipe.send(_decide(job, indices[start : start + SLICE]))
    except ThresherError as exc:  # a configuration error: decide_one lets only it through
        pipe.send(_Slice((), (), _portable(exc)))
    except BaseException as exc:  # interrupted, or a bug: the parent says so and stops
        error = OfflineWorkerError(
            f"a worker process of the offline run failed: {type(exc).__name__}",
            hint="rerun with -v; if it recurs, report it",
        )
        pipe.send(_Slice((), (), error))
    finally:
        pipe.close()


def _decide(job: _Job, indices: list[int]) -> _Slice:
    tribunal = job.tribunal
    redactor = tribunal.factory.redactor
    known = redactor.known
    decided: list[tuple[int, _Wire]] = []

    async def run() -> None:
        for index in indices:
            finding = job.ordered[index]
            records: list[str] = []
            tribunal.offline_panel.sink = records.append
            decision = await tribunal.decide_one(finding, job.value_of)
            redacted = redactor.model(decision)
            line, exact = decision_line(redacted)
            done = Decided(decision, redacted, line, exact, tuple(records))
            decided.append((index, _Wire.of(done)))

    asyncio.run(run())
    return _Slice(tuple(decided), tuple(redactor.learned_since(known)))


def _portable(exc: ThresherError) -> ThresherError:
    """The error as the parent can receive it whatever its class takes to build: its
    message, hint and exit code, which are what the CLI reports."""
    relayed = ThresherError(exc.message, hint=exc.hint)
    relayed.exit_code = exc.exit_code
    return relayed
