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

    def check_request(self) -> None:
        limit = self.limits.max_requests
        if limit is not None and self.usage.requests + 1 > limit:
            raise BudgetExceeded("request", self.usage.requests, limit, self.scope)
        tokens = self.limits.max_total_tokens
        if tokens is not None and self.usage.total_tokens >= tokens:
            raise BudgetExceeded("token", self.usage.total_tokens, tokens, self.scope)

    def check_tool_call(self) -> None:
        limit = self.limits.max_tool_calls
        if limit is not None and self.tool_calls + 1 > limit:
            raise BudgetExceeded("tool-call", self.tool_calls, limit, self.scope)

    def record(self, usage: Usage) -> None:
        self.usage = self.usage + usage

    def record_tool_call(self) -> None:
        self.tool_calls += 1


class Budget:
    """The meters a session must satisfy: its own and the run's shared one."""

    def __init__(self, *meters: UsageMeter) -> None:
        self.meters = meters

    def check_request(self) -> None:
        for meter in self.meters:
            meter.check_request()

    def check_tool_call(self) -> None:
        for meter in self.meters:
            meter.check_tool_call()

    def record(self, usage: Usage) -> None:
        for meter in self.meters:
            meter.record(usage)

    def record_tool_call(self) -> None:
        for meter in self.meters:
            meter.record_tool_call()
