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


def test_objects_a_run_keeps_are_spared_the_collector_until_it_ends() -> None:
    """What a run keeps to its end is left out of the collector's walks, and handed
    back to it when the run is over, even when the run fails."""
    import gc

    from thresher.memory import collector_spared

    assert gc.get_freeze_count() == 0
    kept = [object() for _ in range(10)]
    with pytest.raises(RuntimeError), collector_spared() as spare:
        spare()
        assert gc.get_freeze_count() >= len(kept)
        raise RuntimeError("the run failed")
    assert gc.get_freeze_count() == 0


def test_a_caller_that_froze_objects_itself_is_left_alone() -> None:
    import gc

    from thresher.memory import collector_spared

    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collector_spared() as spare:
            [object() for _ in range(10)]
            spare()
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_the_young_are_collected_less_often_during_a_run_and_as_before_after() -> None:
    """A run raises the youngest generation's threshold (fewer collections cascading into
    the old ones) and puts the caller's thresholds back, even when it fails; a block
    inside another leaves them as the outer one set them."""
    import gc

    from thresher.memory import _YOUNG, collector_spared

    before = gc.get_threshold()
    with pytest.raises(RuntimeError), collector_spared():
        raised = gc.get_threshold()
        assert raised[0] == max(before[0], _YOUNG) and raised[1:] == before[1:]
        with collector_spared():
            assert gc.get_threshold() == raised
        assert gc.get_threshold() == raised
        raise RuntimeError("the run failed")
    assert gc.get_threshold() == before
