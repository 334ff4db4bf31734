"""Who runs the who-references pass: this process, or one forked for it.

The scorer's reference lookup (``scoring.references``) reads the tree once more to find
the files that name each key file: about 0.45 s of one core on the dev corpus. A context
needs its answer, but little else does: the paths to look up and the tree's listing go
in, one ``Referenced`` per path comes out. So a process that has other work meanwhile
(``scoring.beside``: reading the findings' lines, building the scorer) forks one for the
pass (``apart``) and reads the answer when it needs it; what the pass reads of the tree
is then never that process's high-water mark.

The forked process writes no file or stream: its answer comes back through a pipe, and
it exits. If it cannot be forked, or fails or dies before it answers, the answer runs the
pass in the asking process, as ``in_process`` does, and a warning says so: the same
answer, later.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from thresher.git.scope import Listed
from thresher.scoring.references import Referenced, references

log = logging.getLogger(__name__)

Answer = Callable[[], Mapping[str, Referenced]]  # waits for the pass, when it runs apart


def in_process(root: Path, paths: Sequence[str], tree: Sequence[Listed] | None) -> Answer:
    """The pass run here, now."""
    found = references(root, paths, tree) if paths else {}
    return lambda: found


def apart(root: Path, paths: Sequence[str], tree: Sequence[Listed] | None) -> Answer:
    """The pass started in a process forked from this one; the answer waits for it.

    Forked with ``os.fork``: a process that multiprocessing started as a daemon (the one
    ``scoring.beside`` runs) may not start children its way. The child runs nothing of
    this process's exit handlers: it leaves with ``os._exit``."""
    if not paths:
        return dict
    reader, writer = multiprocessing.Pipe(duplex=False)
    try:
        pid = os.fork()
    except OSError as exc:
        reader.close()
        writer.close()
        return _instead(f"could not be started ({exc.strerror or exc})", root, paths, tree)
    if pid == 0:  # the pass's process: its answer through the pipe, then gone
        status = 1
        try:
            reader.close()
            writer.send(references(root, paths, tree))
            status = 0
        finally:
            os._exit(status)
    writer.close()

    def answer() -> Mapping[str, Referenced]:
        try:
            found: dict[str, Referenced] | None = reader.recv()
        except (EOFError, OSError):  # it died or failed before answering
            found = None
        finally:
            reader.close()
            os.waitpid(pid, 0)
        if found is None:
            return _instead("stopped before it answered", root, paths, tree)()
        return found

    return answer


def _instead(
    reason: str, root: Path, paths: Sequence[str], tree: Sequence[Listed] | None
) -> Answer:
    log.warning("the references process %s; looking references up here", reason)
    return in_process(root, paths, tree)
