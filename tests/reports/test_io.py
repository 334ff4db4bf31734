"""write_atomic: the target is the old file or the whole new one, never a partial write."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from thresher.errors import ThresherError, UsageError
from thresher.reports import ReportWriteError, check_output_path, write_atomic


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_writes_and_creates_parents(tmp_path: Path) -> None:
    target = tmp_path / "out" / "nested" / "report.sarif"
    write_atomic(target, "{}\n…\n")
    assert target.read_text(encoding="utf-8") == "{}\n…\n"
    assert _leftovers(target.parent) == []
    assert target.stat().st_mode & 0o777 == 0o644


def test_replaces_an_existing_file_keeping_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "summary.md"
    target.write_text("old")
    target.chmod(0o600)
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o600


def test_target_that_is_a_directory_is_a_named_error_without_leftovers(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.mkdir()
    with pytest.raises(ReportWriteError) as caught:
        write_atomic(target, "data")
    assert isinstance(caught.value, ThresherError)
    assert str(target) in str(caught.value)
    assert target.is_dir() and list(target.iterdir()) == []
    assert _leftovers(tmp_path) == []


def test_failure_mid_write_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old complete report")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(ReportWriteError, match="No space left on device"):
        write_atomic(target, "new report " * 1000)
    assert target.read_text() == "old complete report"
    assert _leftovers(tmp_path) == []


def test_parent_that_is_a_file_is_a_named_error(tmp_path: Path) -> None:
    blocker = tmp_path / "reports"
    blocker.write_text("not a directory")
    with pytest.raises(ReportWriteError) as caught:
        write_atomic(blocker / "out.json", "{}")
    assert str(blocker / "out.json") in str(caught.value)


def test_a_pipe_is_written_through_not_replaced(tmp_path: Path) -> None:
    # `--sarif /dev/stdout`: renaming a temp file over the target would replace the
    # device or pipe itself (as root, in /dev) instead of writing to it.
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    write_atomic(fifo, "report\n")
    reader.join(timeout=10)
    assert received == ["report\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _leftovers(tmp_path) == []


def test_a_link_is_written_through_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "shared" / "report.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "report.json"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"


def test_output_paths_are_checked_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("")
    with pytest.raises(UsageError, match=r"--markdown .*dir is a directory"):
        check_output_path(tmp_path / "dir", "--markdown")
    with pytest.raises(UsageError, match="file is not a directory"):
        check_output_path(tmp_path / "file" / "deeper" / "r.json", "--json")
    check_output_path(tmp_path / "new" / "nested" / "r.json", "--json")
    assert not (tmp_path / "new").exists()  # a check, not a write


def test_bytes_are_written_as_they_are(tmp_path: Path) -> None:
    """The JSON report is copied byte for byte (a lone surrogate a YAML escape made kept)."""
    data = "caf\u00e9 \ud800\n".encode("utf-8", "surrogatepass")
    target = tmp_path / "out" / "report.json"
    write_atomic(target, data)
    assert target.read_bytes() == data
