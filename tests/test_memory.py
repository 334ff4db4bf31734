"""``thresher.memory``: freed heap handed back between stages, never a failure."""

from __future__ import annotations

import sys

import pytest

from thresher import memory


def test_release_freed_gives_back_freed_heap_on_linux() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("malloc_trim is glibc's")
    rss_before = _rss_kb()
    # 128 MB in 64 KB pieces with every 16th kept: the freed ones are holes below live
    # memory, which glibc keeps resident unless asked (what a stage that read every file
    # leaves behind).
    pieces = [bytes(64 * 1024) for _ in range(2048)]
    kept = pieces[15::16]
    assert _rss_kb() > rss_before + 64 * 1024
    del pieces
    memory.release_freed()
    memory.release_freed()  # twice is harmless
    assert _rss_kb() < rss_before + 32 * 1024  # the 120 MB freed did not stay resident
    assert len(kept) == 128


def test_elsewhere_it_does_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    memory._malloc_trim.cache_clear()
    monkeypatch.setattr(sys, "platform", "darwin")
    try:
        assert memory._malloc_trim() is None
        memory.release_freed()  # no C library call, no error
    finally:
        memory._malloc_trim.cache_clear()


def _rss_kb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")
