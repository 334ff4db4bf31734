"""How a parallel scan shares its files between this process and its workers: every
file once, workers from the large end in batches that shrink as the work left does,
this process from the small end one file at a time. And what it kept out of the cyclic
collector's walks while it ran is given back to it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from thresher.findings.engine import FileJob
from thresher.sources import detect_secrets as scan_module
from thresher.sources import running
from thresher.sources.scan import ScanOptions, scan


def jobs(sizes: list[int]) -> list[FileJob]:
    return [FileJob(f"f{index}", disk=f"f{index}", size=size) for index, size in enumerate(sizes)]


def test_every_file_is_handed_out_once_from_both_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(running, "_MIN_BATCH_BYTES", 10)
    queue = running._Queue(jobs(sorted(range(1, 200), reverse=True)), processes=2)
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
    monkeypatch.setattr(running, "_MIN_BATCH_BYTES", 1)
    listed = jobs([100] * 400)
    queue = running._Queue(listed, processes=2)
    sizes = []
    while queue:
        sizes.append(sum(listed[p].size for p in queue.batch()))
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] >= 10 * sizes[-1]  # the last batches are small: no long wait at the end
    assert sizes[-1] == 100  # ... down to one file


def test_a_batch_holds_at_least_one_file() -> None:
    listed = jobs([5, 3, 1])
    queue = running._Queue(listed, processes=2)
    assert list(queue.batch()) == [0, 1, 2]  # under the minimum bytes: all of it
    assert not queue


def test_a_scan_spares_its_outcomes_and_gives_the_collector_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(f'password = "pw-{index}-Zq9"\n' * 20)
    monkeypatch.setattr(running, "PARALLEL_MIN_BYTES", 0)
    frozen_while_assembled: list[int] = []
    assembled = scan_module.sourced

    def watched(*args: Any, **kwargs: Any) -> Iterator[Any]:
        frozen_while_assembled.append(gc.get_freeze_count())
        yield from assembled(*args, **kwargs)

    monkeypatch.setattr(scan_module, "sourced", watched)
    assert gc.get_freeze_count() == 0
    result = scan(ScanOptions(root=tmp_path, workers=2))
    assert len(result.findings) == 6
    assert frozen_while_assembled and frozen_while_assembled[0] > 0
    assert gc.get_freeze_count() == 0
    # A caller that froze objects itself keeps them frozen (the count only drops by
    # what was freed meanwhile).
    gc.freeze()
    try:
        scan(ScanOptions(root=tmp_path, workers=2))
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_batch_is_capped_unless_one_file_is_larger(monkeypatch: pytest.MonkeyPatch) -> None:
    # Bytes are a poor measure of a large file's cost (a 1 MB YAML file takes seconds):
    # a worker holds few large files at a time, so this process never waits long on them.
    monkeypatch.setattr(running, "_MIN_BATCH_BYTES", 1)
    monkeypatch.setattr(running, "_MAX_BATCH_BYTES", 1000)
    listed = jobs([5000, 3000, *[100] * 200])
    queue = running._Queue(listed, processes=2)
    assert list(queue.batch()) == [0]  # larger than the cap: alone
    assert list(queue.batch()) == [1]
    sizes = []
    while queue:
        sizes.append(sum(listed[p].size for p in queue.batch()))
    assert max(sizes) <= 1000


def test_outcomes_made_as_they_arrive_assemble_as_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A parallel scan makes each file's candidates and reports while the workers still
    # scan (``Running.arrived``); chained in the files' order they are what one pass over
    # all outcomes at the end makes (a scan in this process only does that).
    shared = "ghp_" + "Zq9XbT4LmN7pRs2VwY6cK1dF8hJ3gA5eU0iO"
    for index in range(12):
        body = f'password = "pw-{index}-Zq9x"\napi_key = "{shared}"\n' * (index + 1)
        (tmp_path / f"m{index:02}.py").write_text(body + f"# {index}\n" * index)
    (tmp_path / "empty.txt").write_text("nothing here\n")
    monkeypatch.setattr(running, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(running, "_MIN_BATCH_BYTES", 1)
    finished: list[bool] = []
    made_early: list[bool] = []
    outcomes, assembled = running._Shared.outcomes, scan_module.sourced

    def watched_outcomes(self: Any) -> Any:
        found = outcomes(self)
        finished.append(True)
        return found

    def watched(*args: Any, **kwargs: Any) -> Iterator[Any]:
        made_early.append(not finished)
        yield from assembled(*args, **kwargs)

    monkeypatch.setattr(running._Shared, "outcomes", watched_outcomes)
    monkeypatch.setattr(scan_module, "sourced", watched)
    parallel = scan(ScanOptions(root=tmp_path, workers=2))
    assert finished and any(made_early)
    alone = scan(ScanOptions(root=tmp_path, workers=1))
    assert [f.model_dump() for f in parallel.findings] == [f.model_dump() for f in alone.findings]
    assert parallel.candidates == alone.candidates
    assert parallel.line_text == alone.line_text
    assert [parallel.vault.get(f.id) for f in parallel.findings] == [
        alone.vault.get(f.id) for f in alone.findings
    ]
