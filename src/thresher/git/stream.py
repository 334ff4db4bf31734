"""git's stdout as a stream of lines, bounded in time, never buffered whole.

The history index and the agents' git tools both read git output that can be
huge (a whole ``git log -p``, a large blob) and must stop early or on a timer.
One implementation: each caller turns ``code``, ``timed_out`` and ``message``
into its own typed error.
"""

from __future__ import annotations

import signal
import subprocess
import tempfile
import threading
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path

READ_CHUNK_BYTES = 1024 * 1024  # so one huge diff or blob line is never read whole
_MESSAGE_BYTES = 4000


class GitStream:
    """One git process. Iterate ``lines()``; once it is exhausted, ``code`` is git's
    exit status, ``timed_out`` says the timer killed it and ``message`` holds the start
    of its stderr. Closing the generator early kills git: nothing is left running."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        timeout: float,
        bufsize: int = -1,
    ) -> None:
        self.argv, self.cwd, self.env = list(argv), cwd, dict(env)
        self.timeout, self.bufsize = timeout, bufsize
        self.code = 0
        self.timed_out = False
        self.message = ""

    def lines(self) -> Generator[bytes, None, None]:
        """Raises ``OSError`` when git cannot be started."""
        # stderr goes to a file so a flood of warnings cannot stall git's stdout.
        with tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                bufsize=self.bufsize)  # fmt: skip
            timer = threading.Timer(self.timeout, proc.kill)
            timer.start()
            assert proc.stdout is not None
            with proc:
                try:
                    while chunk := proc.stdout.readline(READ_CHUNK_BYTES):
                        yield chunk
                    code = proc.wait()
                finally:
                    timer.cancel()
                    proc.kill()  # a no-op once git has exited and been reaped
            self.code = code
            self.timed_out = code == -signal.SIGKILL
            err.seek(0)
            self.message = err.read(_MESSAGE_BYTES).decode("utf-8", errors="replace").strip()
