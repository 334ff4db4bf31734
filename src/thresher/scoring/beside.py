"""The scorer's assessments made in a small process forked when the run starts.

After detection an offline run on two cores used one: it assessed every finding (about
2 s on the dev corpus: reading their lines, the who-references pass over the tree, the
offline checks, the features, the forest) and only then decided them (about 4.5 s). The
decisions read the assessments one finding at a time, in the tribunal's order. So
``thresher scan`` forks a process for the assessment before its scan starts, while this
process is still small (a fork's resident pages count in full for both, and this
process grows past a hundred megabytes). Once the findings are known it is sent what
their assessment reads of the scan, and nothing else, in two messages:

- first what it can work on before it has the findings (``_Reads``): the paths to look
  references up for and the tree's listing, which it hands to a process forked for that
  pass (``scoring.referencing.apart``), and the lines the contexts may read, which it
  reads ahead a file at a time in the order of paths (``scoring.lines.ReadAhead``);
- then the findings, their values and the counts across the scan's candidates
  (``_Request``).

It assesses the findings in the order they will be decided and sends each assessment
back as it is made, a chunk at a time, while this process decides from the first one on
and waits only if it catches up (``AssessedBeside.assessments``). Reading ahead matters:
the order of decisions is not the order of paths, and a file would otherwise be read
again each time its findings came round. The process keeps only what it still needs: a
finding's value and its part of the findings' JSON are let go once read.

The findings' values go to the process through its pipe, as a worker of the offline
run sends back the values its redactor learned (``thresher.tribunal.parallel``): never
to a file or a log. Assessments hold none. The process writes no file or stream.

If the process is gone or fails before it has sent every assessment, the rest are made
here, as a run without it makes them: the same assessments, later, and a warning says
so. A run that ends first stops it.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from thresher.findings.model import Finding
from thresher.git.scope import Listed
from thresher.memory import release_freed

if TYPE_CHECKING:  # loaded where they run: ``thresher scan`` forks before loading them
    from thresher.scoring.context import ValueCounts
    from thresher.scoring.lines import Read, ReadAhead
    from thresher.scoring.model import Assessment, Scorer, SharedWeights
    from thresher.scoring.references import Referenced
    from thresher.sources.scan import ScanResult
    from thresher.validators.base import ValidationResult

log = logging.getLogger(__name__)

BESIDE_FROM = 256  # findings: fewer are assessed here sooner than the process is sent them
CHUNK = 32  # assessments sent together (the first alone: this process waits for it)
FINDINGS_APART = 256  # findings a part of ``_Request.findings`` holds
_TRIM_EVERY = 512  # findings assessed between two returns of freed heap (``release_freed``)
_NEVER_ASKED_SECONDS = 5.0  # for a process never asked to see its pipe close and return

_Checks = tuple["ValidationResult", ...]
# An assessment as it crosses the pipe: its fields' values in the model's order, each
# cited weight a pair. Pickled whole, every assessment brought its own copies of the
# weights, which the scorer shares across a scan; here they are shared again
# (``SharedWeights``).
_Wire = tuple[object, ...]
_One = tuple[str, "_Wire | None", "_Checks | None"]  # a finding's id and its results
T = TypeVar("T")


@dataclass(frozen=True)
class _Reads:
    """What the process can do before it has the findings, sent first: the
    who-references pass (``scoring.references``) and the reading of the lines their
    contexts read (``scoring.lines.ReadAhead``), while this process makes the
    ``_Request``."""

    lookups: tuple[str, ...]  # the paths whose references the findings' contexts read
    tree: tuple[Listed, ...] | None
    reads: tuple[Read, ...]  # the lines the contexts may read (``context.reads_of``)
    line_text: dict[tuple[str, int], str]  # the scanner's, at the findings' locations


@dataclass(frozen=True)
class _Request:
    """The findings and what their assessment reads of the scan besides their lines."""

    # The findings, in the order they are decided, as JSON, ``FINDINGS_APART`` a part:
    # the process reads a part when it comes to it and lets it go after.
    findings: tuple[bytes, ...]
    values: dict[str, str]  # by finding id
    counts: ValueCounts  # of the findings' values and files only


@dataclass(frozen=True)
class _Chunk:
    assessed: tuple[_One, ...]
    failed: str = ""  # the process's error, by type: it sends nothing after it


class AssessedBeside:
    """A process forked under ``root``, waiting to assess one scan's findings (see the
    module docstring); ``request`` sends them, ``assessments`` and ``checks`` read the
    results as they come, ``close`` ends it."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._order: tuple[Finding, ...] = ()
        self._position: dict[str, int] = {}
        self._received = 0  # findings of ``_order`` whose results are in
        self._assessments: dict[str, Assessment] = {}
        self._checks: dict[str, _Checks] = {}
        self._weights: SharedWeights | None = None  # made when asked: after the fork
        # To assess here if it fails (the scorer None: the shipped one, built then).
        self._here: tuple[ScanResult, Scorer | None] | None = None
        self.assessments: Mapping[str, Assessment] = _Column(self, self._assessments)
        self.checks: Mapping[str, _Checks] = _Column(self, self._checks)
        context = multiprocessing.get_context("fork")
        mine, its = context.Pipe(duplex=True)
        self._pipe: Connection | None = mine
        self._asked = False
        self._process: BaseProcess | None = context.Process(
            target=_serve, args=(root, its, mine), daemon=True
        )
        self._process.start()
        its.close()

    @classmethod
    def start(cls, root: Path) -> AssessedBeside | None:
        """The process, where it can pay: the platform forks and has a second core."""
        if "fork" not in multiprocessing.get_all_start_methods():
            return None
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if (cores or 1) < 2:
            return None
        try:
            return cls(root)
        except OSError as exc:  # no process to spare: the run assesses here
            log.warning("could not start the assessing process (%s)", exc)
            return None

    def request(self, result: ScanResult, order: Sequence[Finding], scorer: Scorer | None) -> bool:
        """Send the findings of ``result`` to assess in ``order``; False (and the process
        ended) when it cannot take them: already asked, or gone. ``scorer`` assesses
        here what the process does not send."""
        from pydantic import TypeAdapter

        from thresher.scoring.context import ValueCounts, lookups_of, reads_of
        from thresher.scoring.model import SharedWeights

        pipe = self._pipe
        if pipe is None or self._asked:
            return False
        self._asked = True
        self._order = tuple(order)
        self._position = {f.id: i for i, f in enumerate(self._order)}
        self._here = (result, scorer)
        self._weights = SharedWeights()
        order = self._order
        try:
            pipe.send(
                _Reads(
                    tuple(lookups_of(order)),
                    result.tree,
                    tuple(reads_of(order)),
                    _at_locations(result.line_text, order),
                )
            )
            adapter = TypeAdapter(tuple[Finding, ...])
            pipe.send(
                _Request(
                    findings=tuple(
                        adapter.dump_json(order[i : i + FINDINGS_APART])
                        for i in range(0, len(order), FINDINGS_APART)
                    ),
                    values={f.id: v for f in order if (v := result.vault.get(f.id)) is not None},
                    counts=ValueCounts.of(result.candidates).for_findings(order),
                )
            )
        except OSError:
            self.close()
            return False
        return True

    def wait_for(self, finding_id: str) -> None:
        """Return once the results of ``finding_id`` (when it is one of the findings)
        are in: read from the process, or made here if it stopped first. Whatever has
        come meanwhile is read too: the process ends once its last chunk is read."""
        position = self._position.get(finding_id)
        while self._pipe is not None and (
            (position is not None and self._received <= position)
            or (self._received < len(self._order) and self._pipe.poll())
        ):
            chunk = self._next(self._pipe)
            if chunk is not None:
                self._keep(chunk.assessed)
        if position is not None and self._received <= position:
            self._assess_here()

    def close(self) -> None:
        """End the process and wait for it: one never asked returns when told; one still
        assessing (the run ended first) is stopped. What came stays readable."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            if not self._asked:
                with contextlib.suppress(OSError):  # another process forked from this
                    pipe.send(None)  # one may hold this end open: told, not left waiting
            pipe.close()
        process, self._process = self._process, None
        if process is not None:
            if not self._asked:
                process.join(_NEVER_ASKED_SECONDS)
            if process.is_alive():
                process.terminate()
            process.join()

    def _next(self, pipe: Connection) -> _Chunk | None:
        """The process's next chunk; None once it has sent them all or stopped without
        the rest (then said so, and ended)."""
        try:
            chunk: _Chunk = pipe.recv()
        except (EOFError, OSError):
            reason = "stopped"
        else:
            if not chunk.failed:
                return chunk
            reason = f"failed ({chunk.failed})"
        if self._received < len(self._order):
            log.warning(
                "the assessing process %s after %d of %d findings; assessing the rest here",
                reason,
                self._received,
                len(self._order),
            )
        self.close()
        return None

    def _keep(self, assessed: Sequence[_One]) -> None:
        assert self._weights is not None  # asked: results come only after ``request``
        for finding_id, wired, checks in assessed:
            if wired is not None:
                self._assessments[finding_id] = _unwired(wired, self._weights)
            if checks is not None:
                self._checks[finding_id] = checks
        self._received += len(assessed)
        if self._received >= len(self._order):
            self.close()  # every one is in: the process has nothing left to send

    def _assess_here(self) -> None:
        from thresher.scoring.context import ValueCounts, reads_of, referenced_of
        from thresher.scoring.lines import LineReader, ReadAhead
        from thresher.scoring.model import shipped_scorer

        assert self._here is not None
        result, scorer = self._here
        rest = self._order[self._received :]
        read = ReadAhead(LineReader(self._root, result.line_text))
        read.ahead(reads_of(rest))  # as the process does: each file read once
        built = _assessed(
            scorer or shipped_scorer(),
            rest,
            {f.id: v for f in rest if (v := result.vault.get(f.id)) is not None},
            ValueCounts.of(result.candidates),
            read,
            referenced_of(self._root, rest, result.tree),
        )
        self._keep(list(built))


class _Column(Mapping[str, T], Generic[T]):
    """One kind of result, by finding id: asking for one waits until it is in."""

    def __init__(self, owner: AssessedBeside, results: dict[str, T]) -> None:
        self._owner, self._results = owner, results

    def __getitem__(self, finding_id: str) -> T:
        self._owner.wait_for(finding_id)
        return self._results[finding_id]

    def __iter__(self) -> Iterator[str]:
        self._owner.wait_for(self._last())
        return iter(self._results)

    def __len__(self) -> int:
        self._owner.wait_for(self._last())
        return len(self._results)

    def _last(self) -> str:
        order = self._owner._order
        return order[-1].id if order else ""


def _assessed(
    scorer: Scorer,
    findings: Iterable[Finding],
    values: dict[str, str],
    counts: ValueCounts,
    read: ReadAhead,
    referenced: Mapping[str, Referenced],
) -> Iterator[_One]:
    """Each finding's id, assessment and offline checks, in order (``stream_contexts``),
    as ``scan.assess.assessment`` makes them. The cyclic collector is paused meanwhile,
    as there: this makes no cycles."""
    from thresher.scoring.collector import collector_paused
    from thresher.scoring.context import stream_contexts
    from thresher.validators import ValidatorRegistry

    offline = ValidatorRegistry.default(live=False)
    with collector_paused():
        built = stream_contexts(
            findings,
            lambda finding_id: values.pop(finding_id, None),  # asked once: let go after
            counts,
            read.line,
            referenced=referenced,
            test_block_of=read.in_test_block,
            docstring_of=read.in_docstring,
            checks_of=lambda finding, value: tuple(offline.validate(value, finding)),
        )
        for finding, context, checks in built:
            yield (
                finding.id,
                (_wired(scorer.assess(context)) if context is not None else None),
                checks,
            )


def _serve(root: Path, pipe: Connection, parents: Connection) -> None:
    """The process: one request, its assessments a chunk at a time, then exit. Its copy
    of the parent's end is closed first, so the parent closing its own reads as EOF."""
    parents.close()
    # The parent may have had a thread writing to a stream when it forked, holding the
    # stream's lock for good in this copy: this process reports through its pipe only.
    sys.stdout = sys.stderr = Path(os.devnull).open("w")  # noqa: SIM115 - the process's own
    try:
        first: _Reads | None = pipe.recv()
        if first is None:  # told the run does not need it
            return

        from thresher.scoring.lines import LineReader, ReadAhead
        from thresher.scoring.model import shipped_scorer
        from thresher.scoring.referencing import apart

        # The pass over the tree in a process of its own, forked while this one is
        # small: it runs while this one builds the scorer and reads the findings' lines.
        answer = apart(root, first.lookups, first.tree)
        scorer = shipped_scorer()
        release_freed()  # what building its forest took: before the lines are read
        read = ReadAhead(LineReader(root, first.line_text))
        read.ahead(first.reads)
        del first  # the tree's listing
        release_freed()  # the files read ahead
        request: _Request = pipe.recv()
        parts, values, counts = list(request.findings), request.values, request.counts
        referenced = answer()
        del request, answer  # the answer kept the listing, to look up here if need be
        built = _assessed(scorer, _parsed(parts), values, counts, read, referenced)
        chunk: list[_One] = []
        for index, one in enumerate(built):
            chunk.append(one)
            if index == 0 or len(chunk) == CHUNK:
                pipe.send(_Chunk(tuple(chunk)))
                chunk = []
            if index % _TRIM_EVERY == _TRIM_EVERY - 1:
                release_freed()  # what the contexts read and let go since
        if chunk:
            pipe.send(_Chunk(tuple(chunk)))
    except EOFError:  # never asked: the run ended first
        return
    except BaseException as exc:  # told to the parent, which assesses the rest itself
        with contextlib.suppress(OSError):  # the parent is gone
            pipe.send(_Chunk((), failed=type(exc).__name__))
    finally:
        pipe.close()


def _parsed(parts: list[bytes]) -> Iterator[Finding]:
    """The findings of ``parts`` (``_Request.findings``), a part read when the last one
    is done, and let go once read."""
    from pydantic import TypeAdapter

    adapter = TypeAdapter(tuple[Finding, ...])
    parts.reverse()
    while parts:
        yield from adapter.validate_json(parts.pop())


def _at_locations(
    line_text: Mapping[tuple[str, int], str], findings: Sequence[Finding]
) -> dict[tuple[str, int], str]:
    """The lines the scanner read at the findings' locations: all the contexts ask for."""
    at = {(loc.path, loc.line) for f in findings for loc in f.locations}
    return {key: text for key, text in line_text.items() if key in at}


def _wired(assessment: Assessment) -> _Wire:
    return tuple(
        tuple((w.feature, w.contribution) for w in assessment.top_features)
        if name == "top_features"
        else getattr(assessment, name)
        for name in type(assessment).model_fields
    )


def _unwired(wired: _Wire, weights: SharedWeights) -> Assessment:
    """The assessment ``_wired`` was made from: every field given, as the scorer gives
    them all, the cited weights shared."""
    from thresher.scoring.model import Assessment

    fields: dict[str, Any] = dict(zip(Assessment.model_fields, wired, strict=True))
    pairs: tuple[tuple[str, float], ...] = fields["top_features"]
    fields["top_features"] = tuple(weights(name, contribution) for name, contribution in pairs)
    return Assessment.model_construct(**fields)
