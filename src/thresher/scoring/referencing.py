"""The who-references pass in a small process forked when the run starts.

The scorer's reference lookup (``scoring.references``) reads the tree once more to find
the files that name each key file: about 0.45 s of one core on the dev corpus, in the
middle of the assessment, while the other core has nothing to do. It needs only the
paths to look up and the tree's listing, so ``thresher scan`` forks a process for it
before the scan starts, while this process is still small (a fork's resident pages
count in full for both), and the pass runs there while this process reads the
findings' lines (``scoring.context.build_contexts``).

The process answers one request and exits. It writes no file or stream; paths and the
listing go to it, and one ``Referenced`` per path comes back. If it is gone or fails,
the pass runs here, as a run without it runs it: the answer is the same, only later.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from thresher.git.scope import Listed
from thresher.scoring.references import Referenced, references

log = logging.getLogger(__name__)

# How long a process never asked may take to see its pipe close and return.
_NEVER_ASKED_SECONDS = 5.0

Answer = Callable[[], dict[str, Referenced]]
# How a scan's contexts get the references of ``paths`` under ``root``: the call asks,
# the answer it returns waits for them (``build_contexts`` reads lines meanwhile).
Referencer = Callable[[Path, Sequence[str], Sequence[Listed] | None], Answer]


def in_process(root: Path, paths: Sequence[str], tree: Sequence[Listed] | None) -> Answer:
    """The pass run here, now."""
    found = references(root, paths, tree)
    return lambda: found


class ReferencesBeside:
    """A forked process waiting to run one reference pass under ``root`` (see the
    module docstring). ``ask`` is a ``Referencer``; a second question, or one about
    another root, is answered here."""

    def __init__(self, root: Path) -> None:
        self._root = root
        context = multiprocessing.get_context("fork")
        receive, send = context.Pipe(duplex=True)
        self._pipe: Connection | None = receive
        self._process: BaseProcess | None = context.Process(
            target=_serve, args=(root, send, receive), daemon=True
        )
        self._process.start()
        send.close()

    @classmethod
    def start(cls, root: Path) -> ReferencesBeside | None:
        """The process, where it pays: the platform forks and a second core is there."""
        if "fork" not in multiprocessing.get_all_start_methods():
            return None
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if (cores or 1) < 2:
            return None
        try:
            return cls(root)
        except OSError as exc:  # no process to spare: the pass runs here
            log.warning("could not start the references process (%s)", exc)
            return None

    def ask(self, root: Path, paths: Sequence[str], tree: Sequence[Listed] | None) -> Answer:
        pipe = self._pipe
        if pipe is None or root != self._root:
            return in_process(root, paths, tree)
        self._pipe = None  # one question: the next is answered here
        try:
            pipe.send((tuple(paths), None if tree is None else tuple(tree)))
        except OSError:
            pipe.close()
            return self._instead("stopped", root, paths, tree)

        def answer() -> dict[str, Referenced]:
            try:
                found: dict[str, Referenced] | str = pipe.recv()
            except (EOFError, OSError):
                found = "stopped"
            finally:
                pipe.close()
                self.close()
            if isinstance(found, str):
                return self._instead(found, root, paths, tree)()
            return found

        return answer

    def close(self) -> None:
        """End the process and wait for it: one never asked returns when its pipe
        closes; one still on its pass (the run ended first) is stopped."""
        waiting = self._pipe is not None  # not asked yet
        if self._pipe is not None:
            with contextlib.suppress(OSError):  # told, in case another process holds
                self._pipe.send(None)  # a copy of this end (a detection worker forked)
            self._pipe.close()
            self._pipe = None
        process, self._process = self._process, None
        if process is not None:
            if waiting:
                process.join(_NEVER_ASKED_SECONDS)
            if process.is_alive():
                process.terminate()
            process.join()

    def _instead(
        self, reason: str, root: Path, paths: Sequence[str], tree: Sequence[Listed] | None
    ) -> Answer:
        log.warning("the references process %s; looking references up here", reason)
        self.close()
        return in_process(root, paths, tree)


def _serve(root: Path, pipe: Connection, parents: Connection) -> None:
    """The process: one request, its answer (or its error's name), then exit. Its copy
    of the parent's end is closed first, so the parent closing its own reads as EOF."""
    parents.close()
    # The parent may have had a thread writing to a stream when it forked, holding the
    # stream's lock for good in this copy: this process reports through its pipe only.
    sys.stdout = sys.stderr = Path(os.devnull).open("w")  # noqa: SIM115 - the process's own
    try:
        request = pipe.recv()
        if request is None:  # never asked: the run did not need it
            return
        paths, tree = request
        answer: dict[str, Referenced] | str = references(root, paths, tree)
    except EOFError:  # never asked: the run ended first
        return
    except BaseException as exc:  # told to the parent, which runs the pass itself
        answer = f"failed ({type(exc).__name__})"
    with contextlib.suppress(OSError):  # the parent is gone
        pipe.send(answer)
    pipe.close()
