"""A tiny loopback HTTP server for the live validators: records requests, replies on script.

``ThreadingHTTPServer`` on ``127.0.0.1`` (random port) in a daemon thread. ``reply`` maps a
captured request to ``(status, headers, body)``; ``delay`` makes every answer late.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

Reply = tuple[int, dict[str, str], bytes]


@dataclass(frozen=True)
class Captured:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def json_reply(status: int, payload: Any, headers: dict[str, str] | None = None) -> Reply:
    return (
        status,
        {"Content-Type": "application/json", **(headers or {})},
        json.dumps(payload).encode(),
    )


@dataclass
class LiveServer:
    reply: Callable[[Captured], Reply] = lambda _: json_reply(200, {})
    delay: float = 0.0
    requests: list[Captured] = field(default_factory=list)

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                captured = Captured(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(size) if size else b"",
                )
                server.requests.append(captured)
                if server.delay:
                    time.sleep(server.delay)
                status, headers, body = server.reply(captured)
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the client gave up (timeout tests)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
