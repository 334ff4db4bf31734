"""Hand freed heap back to the operating system between the stages of a run.

A stage that reads a whole tree (detection, the who-references pass) allocates and frees
tens of megabytes in pieces: whole files as bytes and text, RE2's compiled programs and
their DFA caches. glibc keeps what was freed in its arenas, so the process's resident
memory stays at the stage's high-water mark for the rest of the run, and the next
stage's own allocations stack on top. ``release_freed`` asks glibc to return the free
pages (``malloc_trim``): on the dev corpus that is about 70 MB after the scorer's pass.
Elsewhere (another libc, another OS) it does nothing; the run is the same either way.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache


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
