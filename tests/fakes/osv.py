"""A loopback fake of the OSV API (https://google.github.io/osv.dev/api/).

``OsvFake`` is a real HTTP server (see :mod:`tests.fakes.base`) answering from an
:class:`OsvWorld`: which advisories exist (OSV JSON) and which package versions they
match. It speaks the two routes thresher uses, in OSV's shapes:

- ``POST /v1/querybatch``: ``{"queries": [...]}`` of at most 1,000 queries, each
  ``{"package": {"name", "ecosystem"}, "version"}`` or ``{"package": {"purl"}}`` with an
  optional ``page_token``; answered ``{"results": [{"vulns": [{"id", "modified"}],
  "next_page_token"?}]}``, one result per query, ``page_size`` matches a page;
- ``GET /v1/vulns/{id}``: the full record, or OSV's 404 ``{"code": 5, "message"}``.

Bad requests get OSV's 400 shape. ``fault()`` scripts 429s (with ``Retry-After``),
5xx and malformed bodies on a route, ahead of the world's answer::

    with OsvFake(world) as server:
        server.fault("/v1/querybatch", Reply.json_(429, {...}, {"retry-after": "1"}))
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import unquote

from tests.fakes.base import CapturedRequest, FakeServer, Reply

MAX_QUERIES = 1000


@dataclass
class OsvWorld:
    """What the fake OSV knows. ``matches`` is keyed by (ecosystem, name, version)."""

    advisories: dict[str, dict[str, Any]] = field(default_factory=dict)
    matches: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
    purls: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    page_size: int = 1000

    def advisory(self, record: dict[str, Any]) -> None:
        self.advisories[record["id"]] = record

    def match(
        self, ecosystem: str, name: str, version: str, *ids: str, purl: str | None = None
    ) -> None:
        self.matches.setdefault((ecosystem, name, version), []).extend(ids)
        if purl is not None:
            self.purls[purl] = (ecosystem, name, version)


@dataclass
class _Fault:
    pattern: re.Pattern[str]
    reply: Reply
    remaining: int


class OsvFake(FakeServer):
    provider: ClassVar[str] = "osv"
    server_header: ClassVar[str] = "ESF"

    def __init__(self, world: OsvWorld | None = None) -> None:
        super().__init__(require_auth=False)
        self.world = world or OsvWorld()
        self._faults: list[_Fault] = []
        self._fault_lock = threading.Lock()
        self._tokens: dict[str, tuple[tuple[str, str, str], int]] = {}
        self.responder = self._respond

    def fault(self, route_pattern: str, reply: Reply, *, times: int = 1) -> None:
        """The next ``times`` requests whose path matches get ``reply`` instead."""
        with self._fault_lock:
            self._faults.append(_Fault(re.compile(route_pattern), reply, times))

    def count(self, route_pattern: str) -> int:
        """How many requests (faulted ones included) hit a route."""
        return sum(1 for r in self.requests if re.search(route_pattern, r.route))

    def error_reply(self, status: int, message: str) -> Reply:
        code = {400: 3, 404: 5, 429: 8}.get(status, 13)
        return Reply.json_(status, {"code": code, "message": message})

    def check(self, request: CapturedRequest) -> Reply | None:
        with self._fault_lock:
            for fault in self._faults:
                if fault.remaining > 0 and fault.pattern.search(request.route):
                    fault.remaining -= 1
                    return fault.reply
        return None

    # -- routes ----------------------------------------------------------------------------

    def _respond(self, request: CapturedRequest, index: int) -> Reply:
        if request.route == "/v1/querybatch":
            if request.method != "POST":
                return self.error_reply(405, "Method Not Allowed")
            return self._querybatch(request)
        if request.route.startswith("/v1/vulns/") and request.method == "GET":
            vuln_id = unquote(request.route.removeprefix("/v1/vulns/"))
            record = self.world.advisories.get(vuln_id)
            if record is None:
                return self.error_reply(404, "Bug not found.")
            return Reply.json_(200, record)
        return self.error_reply(404, "Not Found")

    def _querybatch(self, request: CapturedRequest) -> Reply:
        try:
            body = request.json()
        except ValueError:
            return self.error_reply(400, "Invalid JSON")
        queries = body.get("queries") if isinstance(body, dict) else None
        if not isinstance(queries, list):
            return self.error_reply(400, "'queries' must be a list")
        if len(queries) > MAX_QUERIES:
            return self.error_reply(400, f"Too many queries: {len(queries)} > {MAX_QUERIES}")
        results = []
        for query in queries:
            key, offset, problem = self._key(query)
            if problem is not None:
                return self.error_reply(400, problem)
            results.append(self._page(key, offset))
        return Reply.json_(200, {"results": results})

    def _key(self, query: Any) -> tuple[tuple[str, str, str], int, str | None]:
        none = ("", "", "")
        if not isinstance(query, dict) or not isinstance(query.get("package"), dict):
            return none, 0, "each query needs a package"
        package = query["package"]
        if "purl" in package:
            if "version" in query or "name" in package or "ecosystem" in package:
                return none, 0, "a purl query carries no name, ecosystem or version"
            purl = package["purl"]
            key = self.world.purls.get(purl, ("", purl, ""))
        else:
            name, ecosystem = package.get("name"), package.get("ecosystem")
            version = query.get("version")
            if not all(isinstance(v, str) and v for v in (name, ecosystem, version)):
                return none, 0, "a package query needs name, ecosystem and version"
            key = (str(ecosystem), str(name), str(version))
        token = query.get("page_token")
        if token is None:
            return key, 0, None
        if token not in self._tokens or self._tokens[token][0] != key:
            return none, 0, f"invalid page_token {token!r} for this query"
        return key, self._tokens[token][1], None

    def _page(self, key: tuple[str, str, str], offset: int) -> dict[str, Any]:
        ids = self.world.matches.get(key, [])
        page = ids[offset : offset + self.world.page_size]
        result: dict[str, Any] = {}
        if page:
            result["vulns"] = [
                {"id": vuln_id, "modified": self.world.advisories[vuln_id]["modified"]}
                for vuln_id in page
            ]
        if offset + self.world.page_size < len(ids):
            token = secrets.token_urlsafe(12)
            self._tokens[token] = (key, offset + self.world.page_size)
            result["next_page_token"] = token
        return result
