"""The run directory: where a scan writes its journal, record and report.

Part of the scan use case (``thresher.scan.run``): creating the run directory safely (no
symbolic link out of the working directory, a ``.gitignore`` in ``.thresher/``), opening
the decision journal and the offline record, and the error raised when they cannot be
written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from thresher.errors import ThresherError
from thresher.git.scope import OWN_OUTPUT_DIR


class RunDirError(ThresherError):
    """The run directory (transcripts, decisions, report) cannot be written."""


def open_offline_record(path: Path) -> TextIO | None:
    """``offline.jsonl`` opened for a run decided in worker processes, or None: a record
    file that cannot be opened is reported per finding by the serial loop."""
    try:
        return path.open("a", encoding="utf-8")
    except OSError:
        return None


def open_journal(run_dir: Path, *, relative_to: Path | None) -> TextIO:
    """The run directory and its decision journal, before any session starts.

    The default runs directory sits in the working directory, usually the checkout
    under review: a ``.thresher`` link committed by a pull request would send the
    transcripts wherever it points, so a relative runs directory must stay inside.
    """
    if relative_to is not None:
        _check_inside(run_dir, relative_to)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        _ignore_own_output(run_dir)
        return (run_dir / "decisions.jsonl").open("a", encoding="utf-8")
    except OSError as exc:
        raise RunDirError(
            f"cannot create the run directory {run_dir}: {exc.strerror or exc}",
            hint="run thresher from a writable directory; transcripts and decisions go "
            "to .thresher/runs/ under it",
        ) from exc


def _check_inside(run_dir: Path, base: Path) -> None:
    existing = next((d for d in (run_dir, *run_dir.parents) if d.exists() or d.is_symlink()), base)
    if not existing.resolve().is_relative_to(base.resolve()):
        raise RunDirError(
            f"the run directory {run_dir} leads outside {base} through a symbolic link",
            hint="remove the link, or pass an absolute runs directory you trust",
        )


def _ignore_own_output(run_dir: Path) -> None:
    """Drop a ``.gitignore`` holding ``*`` into the ``.thresher/`` directory above the run.

    Runs usually land inside the repository being scanned; without it, ``git status``
    lists every transcript and ``git add -A`` commits reports that describe the
    repository's secrets. ``*`` ignores the directory's whole content, the
    ``.gitignore`` included, so it never shows up either. An existing file is the
    user's choice and is left alone; a directory created by an older version gets one
    on its next run. A runs directory configured outside any ``.thresher/`` is the
    user's own layout and is not touched.
    """
    own = next((d for d in (run_dir, *run_dir.parents) if d.name == OWN_OUTPUT_DIR), None)
    if own is None:
        return
    try:
        with (own / ".gitignore").open("x", encoding="utf-8") as handle:
            handle.write("*\n")
    except FileExistsError:
        pass
