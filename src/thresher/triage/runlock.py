"""One ``thresher triage`` run per state database at a time (issue 19 §1).

A scheduled triage overlaps itself: a slow run is still going when the next cron tick
starts the same command. Two runs on one state database would both work through the
same checkpoint and the same alerts, each resolving what the other is about to
resolve. So a run holds an exclusive lock for its whole life, and a second run waits up
to ``--wait`` seconds for it, then stops without doing anything (exit code 4, BUSY).

The lock is ``flock`` on a file beside the database (``state.db.lock``). The kernel
drops it when the holder's file descriptor closes, which includes every way a process
dies, SIGKILL too: a killed run never leaves a stale lock behind, and nothing has to
guess whether a pid in a file is still alive. The file itself stays (deleting it
would let a run lock a file that a waiting run no longer sees); it holds the holder's
pid, host, start time and run id, written after the lock is taken, so the run that
has to stop can say who holds the database.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from thresher.errors import ExitCode, ThresherError
from thresher.triage.records import StateError

__all__ = ["Holder", "StateBusy", "hold_state", "lock_path"]

_POLL_S = 0.2  # how often a waiting run tries the lock again


class StateBusy(ThresherError):
    """Another run holds the state database; this run did nothing (exit code 4)."""

    exit_code = ExitCode.BUSY


@dataclass(frozen=True)
class Holder:
    """Who holds a state database: enough for a person to find the other run."""

    pid: int
    host: str
    started_at: datetime
    run_id: str

    def describe(self) -> str:
        return (
            f"pid {self.pid} on {self.host}, started "
            f"{self.started_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC "
            f"(run {self.run_id})"
        )

    def to_json(self) -> str:
        return json.dumps(
            {
                "pid": self.pid,
                "host": self.host,
                "started_at": self.started_at.isoformat(),
                "run_id": self.run_id,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Holder | None:
        """The holder a lock file names, or None while the holder has yet to write it
        (or when the file is not ours to read)."""
        try:
            data = json.loads(text)
            return cls(
                pid=int(data["pid"]),
                host=str(data["host"]),
                started_at=datetime.fromisoformat(str(data["started_at"])),
                run_id=str(data["run_id"]),
            )
        except (ValueError, TypeError, KeyError):
            return None


def lock_path(state_path: Path) -> Path:
    """The lock file of a state database: beside it, so every run that opens the
    same database (by any path to it) meets the same lock."""
    return state_path.with_name(state_path.name + ".lock")


@contextmanager
def hold_state(
    state_path: Path,
    *,
    run_id: str,
    wait_s: float = 0.0,
    on_wait: Callable[[Holder | None], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Holder]:
    """Hold the state database at ``state_path`` for the ``with`` block.

    Busy: try again every 0.2 s until ``wait_s`` has passed (``on_wait`` is told once,
    with the holder, that this run is waiting), then raise ``StateBusy`` naming the
    database and the holder. ``sleep`` and ``clock`` are the waiting's, for tests.
    """
    path = lock_path(Path(state_path))
    fd = _open(path, state_path)
    try:
        deadline = clock() + max(wait_s, 0.0)
        told = False
        while not _try_lock(fd, path, state_path):
            holder = _read_holder(fd)
            remaining = deadline - clock()
            if remaining <= 0:
                raise _busy(state_path, holder, wait_s)
            if on_wait is not None and not told:
                on_wait(holder)
                told = True
            sleep(min(_POLL_S, remaining))
        me = Holder(
            pid=os.getpid(),
            host=socket.gethostname(),
            started_at=datetime.now(UTC),
            run_id=run_id,
        )
        _write_holder(fd, me)
        yield me
    finally:
        os.close(fd)  # releases the lock, if taken


def _open(path: Path, state_path: Path) -> int:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise _unusable(state_path, path, exc) from exc


def _try_lock(fd: int, path: Path, state_path: Path) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError as exc:
        raise _unusable(state_path, path, exc) from exc
    return True


def _unusable(state_path: Path, path: Path, exc: OSError) -> StateError:
    return StateError(
        f"state database {state_path}: cannot lock {path}: {exc.strerror or exc}",
        hint="pass a --state-db path on a local, writable file system",
    )


def _read_holder(fd: int) -> Holder | None:
    try:
        return Holder.from_json(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
    except OSError:
        return None


def _write_holder(fd: int, holder: Holder) -> None:
    """Best effort: the lock is what protects the database; the text only explains."""
    data = holder.to_json().encode()
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    except OSError:
        pass


def _busy(state_path: Path, holder: Holder | None, wait_s: float) -> StateBusy:
    who = holder.describe() if holder is not None else "a run that is just starting"
    waited = f"after waiting {wait_s:g} s" if wait_s > 0 else "without waiting (--wait 0)"
    return StateBusy(
        f"state database {state_path} is in use by another thresher run: {who}; "
        f"this run stopped {waited} and changed nothing",
        hint="let the other run finish, or pass --wait SECONDS to wait for it (exit code 4 "
        "means only this: nothing failed)",
    )
