"""Hooks into the fake GitHub's answers that put a triage run at a known moment of a
change: a PATCH held before GitHub applies it, applied but unanswered, answered with
the run stopped right after; or a person changing an alert between thresher's listing
and its change. A test kills the run (or lets the person act) at that moment."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from enum import StrEnum

from tests.fakes.base import CapturedRequest, Reply, Responder
from tests.fakes.github import GitHubFake

HOLD_BOUND_S = 120.0  # a held request gives up after this: never a timing assertion


class Moment(StrEnum):
    """Where ``PatchGate`` holds the run, counted by PATCHes since it was installed."""

    BEFORE = "before"  # the Nth PATCH arrives and is held; GitHub never applies it
    DURING = "during"  # the Nth PATCH is applied on GitHub; its answer is held
    AFTER = "after"  # the Nth PATCH is answered; the run's next request is held
    PAUSE = "pause"  # the Nth PATCH is held, then applied and answered on release


class PatchGate:
    """Holds the run at ``moment`` of its ``nth`` PATCH until ``release()`` (or ``close()``,
    which also uninstalls it). ``arrived`` is set once the run is held there."""

    def __init__(self, server: GitHubFake, nth: int, moment: Moment) -> None:
        self.server = server
        self.nth = nth
        self.moment = moment
        self.arrived = threading.Event()
        self.released = threading.Event()
        self._lock = threading.Lock()
        self._patches = 0
        self._answered = False
        self._fired = False
        inner = server.responder
        if inner is None:
            raise ValueError("the fake has no responder to wrap")
        self._inner: Responder = inner
        server.responder = self._respond

    def _fires(self, request: CapturedRequest) -> bool:
        with self._lock:
            if self._fired:
                return False
            if request.method == "PATCH":
                self._patches += 1
            match self.moment:
                case Moment.BEFORE | Moment.DURING | Moment.PAUSE:
                    fire = request.method == "PATCH" and self._patches == self.nth
                case Moment.AFTER:
                    fire = self._answered
            self._fired = fire
            return fire

    def _respond(self, request: CapturedRequest, index: int) -> Reply:
        if not self._fires(request):
            reply = self._inner(request, index)
            if request.method == "PATCH" and self.moment is Moment.AFTER:
                with self._lock:
                    self._answered = self._answered or self._patches == self.nth
            return reply
        applied = self._inner(request, index) if self.moment is Moment.DURING else None
        self.arrived.set()
        self.released.wait(timeout=HOLD_BOUND_S)
        match self.moment:
            case Moment.DURING if applied is not None:
                return applied  # to a run that was killed meanwhile
            case Moment.PAUSE:
                return self._inner(request, index)
            case _:
                return Reply(drop=True)  # never applied; the run was killed meanwhile

    def release(self) -> None:
        self.released.set()

    def close(self) -> None:
        self.release()
        self.server.responder = self._inner


def before_answering(
    server: GitHubFake,
    route: str,
    act: Callable[[CapturedRequest], None],
    method: str = "GET",
) -> None:
    """Run ``act(request)`` (under the world's lock) once, when the first ``method``
    request to ``route`` (a regex, searched) arrives, before the fake answers it: e.g. a
    person resolving an alert after thresher listed it and before it looks again."""
    inner = server.responder
    if inner is None:
        raise ValueError("the fake has no responder to wrap")
    pattern = re.compile(route)
    done = threading.Event()

    def respond(request: CapturedRequest, index: int) -> Reply:
        if not done.is_set() and request.method == method and pattern.search(server.path(request)):
            done.set()
            with server.world.lock:
                act(request)
        return inner(request, index)

    server.responder = respond
