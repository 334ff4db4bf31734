"""Live validators wait on providers off the event loop, at most ``live_concurrency`` at once.

Proven with events, not timing: the provider answers only once the event loop has
seen the request arrive, which it could not if the probe blocked the loop.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from tests.tokens import github_token
from tests.validators.helpers import assert_safe, finding_of
from tests.validators.live_server import Captured, LiveServer, Reply, json_reply
from thresher.findings import SecretType
from thresher.validators import LiveEndpoints, ValidatorError, ValidatorRegistry

WAIT_S = 15.0  # generous: only a broken build ever waits this long


class Held:
    """Replies 200 only once released; counts how many requests are held at once."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.arrived = threading.Semaphore(0)
        self.lock = threading.Lock()
        self.inside = 0
        self.most = 0

    def __call__(self, _: Captured) -> Reply:
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
        self.arrived.release()
        self.release.wait(WAIT_S)
        with self.lock:
            self.inside -= 1
        return json_reply(200, {"login": "octocat"})


async def _arrivals(held: Held, count: int) -> None:
    """Wait, on the event loop, until ``count`` requests reached the server."""
    for _ in range(count):
        while not held.arrived.acquire(blocking=False):
            await asyncio.sleep(0.01)


def test_a_live_check_waits_without_blocking_the_event_loop() -> None:
    held = Held()
    token = github_token(seed=21)
    finding = finding_of(SecretType.GITHUB_TOKEN)
    with LiveServer(reply=held) as server:
        registry = ValidatorRegistry.default(
            live=True, endpoints=LiveEndpoints(github=server.base_url), timeout=WAIT_S
        )

        async def scenario() -> list[str]:
            check = asyncio.ensure_future(registry.validate_async(token, finding))
            await _arrivals(held, 1)  # the loop runs while the probe waits
            held.release.set()
            return [f"{r.validator}:{r.status.value}" for r in await check]

        try:
            statuses = asyncio.run(asyncio.wait_for(scenario(), WAIT_S))
        finally:
            held.release.set()
            registry.close()
    assert statuses[-1] == "github-live:valid"
    assert statuses[0].startswith("placeholder:")  # the registry's order is kept


def test_live_checks_overlap_up_to_their_own_bound() -> None:
    held = Held()
    finding = finding_of(SecretType.GITHUB_TOKEN)
    tokens = [github_token(seed=30 + i) for i in range(5)]
    with LiveServer(reply=held) as server:
        registry = ValidatorRegistry.default(
            live=True,
            endpoints=LiveEndpoints(github=server.base_url),
            timeout=WAIT_S,
            live_concurrency=2,
        )

        async def scenario() -> list[list[str]]:
            checks = [asyncio.ensure_future(registry.validate_async(t, finding)) for t in tokens]
            await _arrivals(held, 2)  # two probes are held by the provider at once ...
            await asyncio.sleep(0.2)
            assert held.most == 2  # ... and a third is not sent while they wait
            held.release.set()
            done = await asyncio.gather(*checks)
            return [[r.status.value for r in results] for results in done]

        try:
            statuses = asyncio.run(asyncio.wait_for(scenario(), WAIT_S))
            results = asyncio.run(registry.validate_async(tokens[0], finding))
        finally:
            held.release.set()
            registry.close()
    assert all(s[-1] == "valid" for s in statuses)
    assert held.most == 2
    assert len(server.requests) == len(tokens) + 1
    assert_safe(results, tokens[0])


def test_the_live_bound_must_be_positive() -> None:
    with pytest.raises(ValidatorError, match="live_concurrency"):
        ValidatorRegistry.default(live=True, live_concurrency=0)
