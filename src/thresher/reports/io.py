"""Writing report files atomically.

CI steps read the reports right after thresher exits (upload-sarif, the sticky
comment). A crash or a full disk half-way through a plain write would leave a
truncated file that the next step uploads or rejects with a confusing error;
writing a temporary file beside the target and ``os.replace``-ing it means the
target is either the old file or the complete new one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from thresher.errors import ThresherError, UsageError


class ReportWriteError(ThresherError):
    """A report file could not be written; the message names the path."""


def check_output_path(path: Path, flag: str) -> None:
    """Refuse an output path that can never be written, before any work is done.

    A scan can spend minutes and paid requests; finding out only at the end that
    ``--markdown`` names a directory would throw all of that away.
    """
    if path.is_dir():
        raise UsageError(
            f"{flag} {path} is a directory", hint=f"give a file path, e.g. {path / 'report'}"
        )
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: {parent} is not writable")


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write ``text`` (UTF-8; bytes as they are) to ``path`` all at once, creating parent
    directories.

    A link is written through (the link stays); a pipe or device such as
    ``/dev/stdout`` is written to directly, since renaming a file over it would
    replace the device node itself.
    """
    if path.exists() and not path.is_file() and not path.is_dir():
        _write_through(path, text)
        return
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    temp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        temp = Path(name)
        # mkstemp creates 0600; a report is meant to be read by later CI steps and
        # holds no raw values, so keep the old file's mode or use a plain 0644.
        temp.chmod(path.stat().st_mode & 0o777 if path.is_file() else 0o644)
        with os.fdopen(handle, "wb") as stream:
            stream.write(_encoded(text))
            stream.flush()
            os.fsync(stream.fileno())
        temp.replace(path)
        temp = None
    except OSError as exc:
        raise ReportWriteError(
            f"cannot write report {path}: {exc.strerror or exc}",
            hint="check that the directory is writable and the path is not a directory",
        ) from exc
    finally:
        if temp is not None:
            temp.unlink(missing_ok=True)


def _encoded(text: str | bytes) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8")


def _write_through(path: Path, text: str | bytes) -> None:
    try:
        with path.open("wb") as stream:
            stream.write(_encoded(text))
    except OSError as exc:
        raise ReportWriteError(
            f"cannot write report {path}: {exc.strerror or exc}",
            hint="check that the file or device is writable",
        ) from exc
