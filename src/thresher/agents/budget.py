"""Usage limits checked *before* spending: per session and per run.

A request that would cross a limit is not sent; ``BudgetExceeded`` carries the
numbers so the user can see which limit bit and by how much.
"""

from __future__ import annotations

from dataclasses import dataclass

from thresher.llm.errors import BudgetExceeded
from thresher.llm.messages import Usage


@dataclass(frozen=True)
class UsageLimits:
    """``None`` means unlimited."""

    max_requests: int | None = None
    max_total_tokens: int | None = None
    max_tool_calls: int | None = None


class UsageMeter:
    """Counts one scope's usage against its limits (a session, or the whole run)."""

    def __init__(self, limits: UsageLimits, scope: str) -> None:
        self.limits = limits
        self.scope = scope
        self.usage = Usage()
        self.tool_calls = 0
        # Requests checked and sent but not answered yet: sessions run concurrently,
        # so without counting these every session in flight would pass the same check.
        self.in_flight = 0

    def check_request(self) -> None:
        limit = self.limits.max_requests
        sent = self.usage.requests + self.in_flight
        if limit is not None and sent + 1 > limit:
            raise BudgetExceeded("request", sent, limit, self.scope)
        tokens = self.limits.max_total_tokens
        if tokens is not None and self.usage.total_tokens >= tokens:
            raise BudgetExceeded("token", self.usage.total_tokens, tokens, self.scope)

    def check_tool_call(self) -> None:
        limit = self.limits.max_tool_calls
        if limit is not None and self.tool_calls + 1 > limit:
            raise BudgetExceeded("tool-call", self.tool_calls, limit, self.scope)

    def reserve(self) -> None:
        self.in_flight += 1

    def release(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)

    def record(self, usage: Usage) -> None:
        self.usage = self.usage + usage

    def record_tool_call(self) -> None:
        self.tool_calls += 1


class Budget:
    """The meters a session must satisfy: its own and the run's shared one."""

    def __init__(self, *meters: UsageMeter) -> None:
        self.meters = meters

    def check_request(self) -> None:
        """Check every meter, then reserve the request in each until ``record``/``release``."""
        for meter in self.meters:
            meter.check_request()
        for meter in self.meters:
            meter.reserve()

    def check_tool_call(self) -> None:
        for meter in self.meters:
            meter.check_tool_call()

    def record(self, usage: Usage) -> None:
        """The answer to the request reserved by ``check_request``."""
        for meter in self.meters:
            meter.record(usage)
            meter.release()

    def release(self) -> None:
        """The reserved request failed without an answer to record."""
        for meter in self.meters:
            meter.release()

    def record_tool_call(self) -> None:
        for meter in self.meters:
            meter.record_tool_call()
