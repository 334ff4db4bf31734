"""Pausing Python's cyclic garbage collector over work that allocates much and makes
no cycles.

Scoring a scan allocates several objects per finding (contexts, feature vectors,
assessments) and a syntax tree per Python file, while the scan's own objects, hundreds
of thousands of them, are alive: every few hundred allocations start a collection, and
every few dozen of those walk the whole heap. None of this work makes reference cycles
worth collecting (a syntax tree's nodes hold their children only; refcounting frees
what is dropped), so the collector is paused while it runs and restored after: a
collection then happens at the next allocation, as it would have anyway.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for the block, back on after it if it was on before
    (nested pauses, and a caller that had turned it off, are left as they were)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
