"""A scan started before its result is asked for (``start_scan``): what ``thresher
scan`` runs while it loads the rest of the run."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from thresher.sources import running
from thresher.sources.scan import ScanError, ScanOptions, scan, start_scan


def _tree(root: Path) -> Path:
    for index in range(12):
        body = f'password = "pw-{index}-Zq9xR4"\napi_key = "AKIA{index:016d}"\n' * (index + 3)
        (root / f"m{index}.py").write_text(body)
    return root


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes even for a small tree, in small batches."""
    monkeypatch.setattr(running, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(running, "_MIN_BATCH_BYTES", 1)


def test_a_started_scan_finds_what_a_scan_finds(tmp_path: Path, shared: None) -> None:
    root = _tree(tmp_path)
    serial = scan(ScanOptions(root=root, workers=1))
    started = start_scan(ScanOptions(root=root, workers=2))
    result = started.result()
    assert result.findings == serial.findings
    assert result.candidates == serial.candidates
    assert result.line_text == serial.line_text
    assert [result.vault.get(f.id) for f in result.findings] == [
        serial.vault.get(f.id) for f in serial.findings
    ]
    started.close()  # finished: nothing left to stop
    assert multiprocessing.active_children() == []


def test_a_started_scan_closed_unfinished_leaves_no_worker(tmp_path: Path, shared: None) -> None:
    started = start_scan(ScanOptions(root=_tree(tmp_path), workers=2))
    assert multiprocessing.active_children()  # scanning already
    started.close()
    started.close()
    assert multiprocessing.active_children() == []


def test_starting_a_scan_checks_its_options_first(tmp_path: Path) -> None:
    with pytest.raises(ScanError, match="not a directory"):
        start_scan(ScanOptions(root=tmp_path / "missing"))
    assert multiprocessing.active_children() == []
