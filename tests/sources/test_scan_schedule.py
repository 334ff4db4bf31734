"""How a parallel scan shares its files between this process and its workers: every
file once, workers from the large end in batches that shrink as the work left does,
this process from the small end one file at a time."""

from __future__ import annotations

import pytest

from thresher.findings.engine import FileJob
from thresher.sources import detect_secrets as scan_module


def jobs(sizes: list[int]) -> list[FileJob]:
    return [FileJob(f"f{index}", disk=f"f{index}", size=size) for index, size in enumerate(sizes)]


def test_every_file_is_handed_out_once_from_both_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_module, "_MIN_BATCH_BYTES", 10)
    queue = scan_module._Queue(jobs(sorted(range(1, 200), reverse=True)), processes=2)
    batches: list[range] = []
    singles: list[int] = []
    while queue:
        batches.append(queue.batch())
        if queue:
            singles.append(queue.smallest())
    taken = [p for batch in batches for p in batch] + singles
    assert sorted(taken) == list(range(199))
    # Batches come from the large end in order, single files from the small end.
    assert [p for batch in batches for p in batch] == sorted(p for b in batches for p in b)
    assert singles == sorted(singles, reverse=True)
    assert all(b.start < s for b in batches for s in singles if b)


def test_batches_shrink_with_the_bytes_left(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_module, "_MIN_BATCH_BYTES", 1)
    listed = jobs([100] * 400)
    queue = scan_module._Queue(listed, processes=2)
    sizes = []
    while queue:
        sizes.append(sum(listed[p].size for p in queue.batch()))
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] >= 10 * sizes[-1]  # the last batches are small: no long wait at the end
    assert sizes[-1] == 100  # ... down to one file


def test_a_batch_holds_at_least_one_file() -> None:
    listed = jobs([5, 3, 1])
    queue = scan_module._Queue(listed, processes=2)
    assert list(queue.batch()) == [0, 1, 2]  # under the minimum bytes: all of it
    assert not queue
