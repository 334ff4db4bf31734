"""One triage run per state database: a second one waits up to ``--wait``, then stops with
exit code 4 naming the database and the holder; a holder that dies (SIGKILL too) leaves
no lock behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

import pytest

from thresher.errors import ExitCode
from thresher.triage.runlock import Holder, StateBusy, hold_state, lock_path

SRC = Path(__file__).resolve().parents[2] / "src"


def test_a_second_run_is_refused_naming_the_database_and_the_holder(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    with (
        hold_state(state, run_id="run-1") as holder,
        pytest.raises(StateBusy) as caught,
        hold_state(state, run_id="run-2"),
    ):
        pytest.fail("two runs held one state database")
    busy = caught.value
    assert busy.exit_code is ExitCode.BUSY and int(busy.exit_code) == 4
    assert busy.exit_code not in {ExitCode.RUNTIME, ExitCode.USAGE}
    assert str(state) in busy.message
    assert f"pid {os.getpid()} on {socket.gethostname()}, started " in busy.message
    assert "run-1" in busy.message and "--wait 0" in busy.message
    assert holder.run_id == "run-1"
    with hold_state(state, run_id="run-3") as later:  # free again once the first ended
        assert later.pid == os.getpid()


def test_a_waiting_run_goes_ahead_when_the_holder_finishes(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    told: list[Holder | None] = []
    with ExitStack() as first:
        first.enter_context(hold_state(state, run_id="run-1"))

        def sleep(_: float) -> None:
            first.close()  # the first run finishes while the second waits

        with hold_state(state, run_id="run-2", wait_s=60, on_wait=told.append, sleep=sleep) as me:
            assert me.run_id == "run-2"
    assert [h.run_id if h else None for h in told] == ["run-1"]


def test_a_run_that_waited_long_enough_stops(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    with (
        hold_state(state, run_id="run-1"),
        pytest.raises(StateBusy, match="after waiting 5 s"),
        hold_state(state, run_id="run-2", wait_s=5, sleep=sleep, clock=lambda: now[0]),
    ):
        pytest.fail("the lock was taken from its holder")


def test_a_holder_killed_with_sigkill_leaves_no_lock(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    script = (
        "import sys, time\n"
        "from thresher.triage.runlock import hold_state\n"
        f"with hold_state({str(state)!r}, run_id='killed'):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(600)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        with pytest.raises(StateBusy, match=f"pid {holder.pid} "), hold_state(state, run_id="x"):
            pytest.fail("two runs held one state database")
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=60)
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.communicate()
    with hold_state(state, run_id="after") as me:  # the kill took its lock with it
        assert me.run_id == "after"
    assert "after" in lock_path(state).read_text()  # the file names the holder now
