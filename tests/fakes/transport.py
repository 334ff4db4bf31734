"""The HTTP layer: a stdlib ``ThreadingHTTPServer`` that tracks its connections and threads
so that shutdown closes everything, and a handler that turns bytes into a
:class:`~tests.fakes.wire.CapturedRequest` and a :class:`~tests.fakes.wire.Reply` into bytes.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from typing import Any, Protocol

from tests.fakes.wire import CapturedRequest, Reply

_EXTRA_REASONS = {529: "Overloaded"}


class Host(Protocol):
    """What the HTTP layer needs from a fake server."""

    @property
    def provider(self) -> str: ...

    @property
    def server_header(self) -> str: ...

    errors: list[BaseException]
    stopping: threading.Event

    def handle_request(self, request: CapturedRequest) -> Reply: ...


class LoopbackHTTPServer(ThreadingHTTPServer):
    """Tracks connections and handler threads so shutdown never leaves anything hanging."""

    daemon_threads = True

    def __init__(self, fake: Host) -> None:
        self.fake = fake
        self._tracking_lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._handler_threads: list[threading.Thread] = []
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        TCPServer.server_bind(self)  # skips HTTPServer's reverse DNS lookup of the host
        self.server_name = "127.0.0.1"
        self.server_port = int(self.server_address[1])

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"fake-{self.fake.provider}-conn",
            daemon=True,
        )
        with self._tracking_lock:
            self._connections.add(request)
            self._handler_threads = [t for t in self._handler_threads if t.is_alive()]
            self._handler_threads.append(thread)
        thread.start()

    def shutdown_request(self, request: Any) -> None:
        with self._tracking_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._tracking_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def join_handlers(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self._tracking_lock:
            threads = list(self._handler_threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if exc is None or isinstance(exc, ConnectionError | TimeoutError):
            return  # a client that gave up or a connection closed at shutdown
        self.fake.errors.append(exc)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # per-connection socket timeout: an idle client cannot pin a thread
    server: LoopbackHTTPServer

    def version_string(self) -> str:
        return self.server.fake.server_header

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _handle(self) -> None:
        fake = self.server.fake
        body = self._read_body()
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        request = CapturedRequest(self.command, self.path, headers, body)
        reply = fake.handle_request(request)
        if reply.delay > 0 and fake.stopping.wait(reply.delay):
            self.close_connection = True
            return
        if reply.drop:
            self.close_connection = True
            return
        if reply.drip is not None:
            self._drip(reply, reply.drip)
            return
        self._send(reply)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _handle

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _drip(self, reply: Reply, interval: float) -> None:
        """Headers now, then a byte of JSON whitespace per ``interval`` until stopped."""
        self.close_connection = True
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(1 << 30))
        self.end_headers()
        try:
            self.wfile.flush()
            while not self.server.fake.stopping.wait(interval):
                self.wfile.write(b" ")
                self.wfile.flush()
        except OSError:
            return  # the client gave up: that is the point

    def _send(self, reply: Reply) -> None:
        try:
            reason = HTTPStatus(reply.status).phrase
        except ValueError:
            reason = _EXTRA_REASONS.get(reply.status, "")
        payload = reply.body
        self.send_response(reply.status, reason)
        names = {name.lower() for name in reply.headers}
        if "content-type" not in names:
            self.send_header("Content-Type", reply.content_type)
        for name, value in reply.headers.items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        if reply.cut_after is not None:
            payload = payload[: reply.cut_after]
            self.close_connection = True
        self.end_headers()
        try:
            if self.command != "HEAD":
                self.wfile.write(payload)
            self.wfile.flush()
        except OSError:
            self.close_connection = True
