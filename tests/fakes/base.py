"""Protocol-neutral fake server: lifecycle, request log, reply queue and responder.

A :class:`FakeServer` is a real ``ThreadingHTTPServer`` on ``127.0.0.1`` (random port, one
background thread). Every request is recorded; a request that passes the provider's route and
header checks is answered from the queue filled by :meth:`FakeServer.enqueue`, else by
:attr:`FakeServer.responder`, else with a loud 500 saying the script ran out.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Collection
from types import TracebackType
from typing import ClassVar, Self

from tests.fakes.transport import LoopbackHTTPServer
from tests.fakes.wire import CapturedRequest, Reply, Responder, random_id, seconds_header

__all__ = [
    "CapturedRequest",
    "FakeServer",
    "Reply",
    "Responder",
    "random_id",
    "seconds_header",
]


class FakeServer:
    """Base class: a started server is a context manager; subclasses add the protocol.

    Subclasses implement :meth:`check` (route, method, headers, body validation; return an
    error :class:`Reply` to reject without consuming the script), :meth:`error_reply` (the
    provider's error shape) and :meth:`default_reply`.
    """

    provider: ClassVar[str] = "fake"
    server_header: ClassVar[str] = "fake"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        require_auth: bool = True,
        models: Collection[str] | None = None,
    ) -> None:
        self.api_key = api_key
        self.require_auth = require_auth
        self.models: frozenset[str] | None = frozenset(models) if models is not None else None
        self.base_url = ""
        self.requests: list[CapturedRequest] = []
        self.responder: Responder | None = None
        self.errors: list[BaseException] = []
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._scripted = 0
        self.stopping = threading.Event()
        self._httpd: LoopbackHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        if self._httpd is not None:
            raise RuntimeError(f"{type(self).__name__} already started")
        httpd = LoopbackHTTPServer(self)
        self.base_url = f"http://127.0.0.1:{httpd.server_port}"
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-{self.provider}-{httpd.server_port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, wake every delayed reply, close open connections, join threads."""
        httpd = self._httpd
        if httpd is None or self.stopping.is_set():
            return
        self.stopping.set()
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
        httpd.join_handlers(timeout=5.0)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- scripting -------------------------------------------------------------------------

    def enqueue(self, *replies: Reply) -> None:
        """Append replies; each accepted request consumes the next one, in order."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """How many queued replies have not been consumed yet."""
        with self._lock:
            return len(self._queue)

    @property
    def last_request(self) -> CapturedRequest:
        if not self.requests:
            raise AssertionError(f"fake {self.provider} server received no request")
        return self.requests[-1]

    def reset(self) -> None:
        """Forget recorded requests, errors, queued replies and the responder."""
        with self._lock:
            self.requests.clear()
            self.errors.clear()
            self._queue.clear()
            self._scripted = 0
            self.responder = None

    # -- protocol hooks --------------------------------------------------------------------

    def check(self, request: CapturedRequest) -> Reply | None:
        """Reject a request the real API would reject before the model runs."""
        return None

    def error_reply(self, status: int, message: str) -> Reply:
        return Reply.json_(status, {"error": {"message": message}})

    @classmethod
    def default_reply(cls) -> Reply:
        return Reply.json_(200, {})

    # -- common builders -------------------------------------------------------------------

    @classmethod
    def malformed(cls, body: bytes | None = None) -> Reply:
        """200 with a JSON content type and a body cut in half (not parseable)."""
        if body is None:
            full = cls.default_reply().body
            body = full[: len(full) // 2]
        return Reply.raw(200, body, "application/json")

    @classmethod
    def slow(cls, seconds: float, reply: Reply | None = None) -> Reply:
        """``reply`` (default: a normal text answer) sent after ``seconds``."""
        return (reply if reply is not None else cls.default_reply()).with_delay(seconds)

    @staticmethod
    def dropped(delay: float = 0.0) -> Reply:
        return Reply.dropped(delay)

    @classmethod
    def silent(cls) -> Reply:
        """Accept the request and never answer (until the server stops)."""
        return cls.default_reply().with_delay(3600.0)

    @staticmethod
    def dripping(interval: float = 0.2) -> Reply:
        """Headers at once, then one body byte every ``interval`` seconds, forever."""
        return Reply.dripping(interval)

    # -- internals -------------------------------------------------------------------------

    def handle_request(self, request: CapturedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
        try:
            rejection = self.check(request)
        except Exception as exc:  # a bug in the fake itself: fail loudly
            self.errors.append(exc)
            return self.error_reply(500, f"fake {self.provider} server: check failed: {exc!r}")
        if rejection is not None:
            return rejection
        with self._lock:
            index = self._scripted
            self._scripted += 1
            reply = self._queue.popleft() if self._queue else None
            responder = self.responder
        if reply is not None:
            return reply
        if responder is None:
            message = (
                f"fake {self.provider} server: script exhausted: request #{index} "
                f"({request.method} {request.path}) arrived but no reply was queued "
                "and no responder is set"
            )
            return self.error_reply(500, message).with_headers({"x-fake-script": "exhausted"})
        try:
            return responder(request, index)
        except Exception as exc:
            self.errors.append(exc)
            message = f"fake {self.provider} server: responder raised {exc!r}"
            return self.error_reply(500, message).with_headers({"x-fake-script": "error"})
