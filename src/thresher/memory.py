"""Hand freed heap back to the operating system between the stages of a run.

A stage that reads a whole tree (detection, the who-references pass) allocates and frees
tens of megabytes in pieces: whole files as bytes and text, RE2's compiled programs and
their DFA caches. glibc keeps what was freed in its arenas, so the process's resident
memory stays at the stage's high-water mark for the rest of the run, and the next
stage's own allocations stack on top. ``release_freed`` asks glibc to return the free
pages (``malloc_trim``): on the dev corpus that is about 70 MB after the scorer's pass.
Elsewhere (another libc, another OS) it does nothing; the run is the same either way.

``collector_spared`` is the other half: objects a run keeps to its end (the scan's
findings and vault, the assessments) are left out of the cyclic collector's walks. A
full collection walked all of them every few thousand new objects the decisions made:
about 0.8 s of an offline run on the dev corpus, for garbage that is never there.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

# New objects between two collections of the youngest generation, during a run.
_YOUNG = 50_000


def release_freed() -> None:
    """Return the heap's free pages to the OS where the C library can (glibc)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # lazy: only runs that reach a stage boundary need it

    try:
        libc = ctypes.CDLL("libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None
    return trim


@contextmanager
def collector_spared() -> Iterator[Callable[[], None]]:
    """A block in which ``spare()`` moves every object alive then out of the cyclic
    collector's reach (``gc.freeze``); all of them come back when the block ends. Objects
    spared are still freed when nothing refers to them; only a cycle among them waits
    for the block's end. Meanwhile the youngest generation is collected every ``_YOUNG``
    new objects, not every 700. A caller that froze objects itself is left alone:
    ``spare`` then does nothing, and the thresholds stay the caller's."""
    mine = gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    if mine and thresholds[0]:
        # Fewer, larger collections of the young: a run allocates millions of objects
        # and makes almost no cycles, and each young collection that cascaded into the
        # older generations walked everything the run made since it last spared it
        # (0.35 s of collections on the dev corpus, 0.14 s with this threshold).
        gc.set_threshold(max(thresholds[0], _YOUNG), *thresholds[1:])

    def spare() -> None:
        if mine:
            gc.freeze()

    try:
        yield spare
    finally:
        if mine:
            gc.unfreeze()
            gc.set_threshold(*thresholds)
