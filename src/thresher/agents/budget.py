"""Usage limits that hold: a request is paid for, in advance, before it is sent.

Each request *reserves* its estimated size -- input tokens estimated from the
serialized request, plus the output tokens it asks for at most -- against every
meter (the session's and the run's) before it is sent. A request whose
reservation does not fit is not sent: ``--max-tokens 10`` sends nothing. When the
answer arrives, the reservation is replaced by the usage the provider reported;
when the request fails, by what it cost (see ``Reservation.fail``). Sessions run
concurrently, so a check counts what requests in flight have reserved too.

``UsageMeter.usage`` is therefore what was really sent, including the request
that made a run stop and the requests that failed: the run meter is the source
of truth for a run's totals.
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
        # Requests reserved and sent but not settled yet, and the tokens they reserved.
        self.in_flight = 0
        self.reserved_tokens = 0

    def check_request(self, tokens: int = 0) -> None:
        """Raise ``BudgetExceeded`` unless one more request of ``tokens`` fits."""
        limit = self.limits.max_requests
        sent = self.usage.requests + self.in_flight
        if limit is not None and sent + 1 > limit:
            raise BudgetExceeded("request", sent, limit, self.scope)
        token_limit = self.limits.max_total_tokens
        committed = self.usage.total_tokens + self.reserved_tokens
        if token_limit is not None and committed + tokens > token_limit:
            raise BudgetExceeded("token", committed, token_limit, self.scope, needed=tokens)

    def check_tool_call(self) -> None:
        limit = self.limits.max_tool_calls
        if limit is not None and self.tool_calls + 1 > limit:
            raise BudgetExceeded("tool-call", self.tool_calls, limit, self.scope)

    def reserve(self, tokens: int = 0) -> None:
        self.in_flight += 1
        self.reserved_tokens += tokens

    def release(self, tokens: int = 0) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self.reserved_tokens = max(0, self.reserved_tokens - tokens)

    def record(self, usage: Usage) -> None:
        self.usage = self.usage + usage

    def record_tool_call(self) -> None:
        self.tool_calls += 1


class Reservation:
    """One request's claim on every meter, settled exactly once."""

    def __init__(self, meters: tuple[UsageMeter, ...], input_tokens: int, output_tokens: int):
        self.meters = meters
        self.input_tokens = input_tokens
        self.tokens = input_tokens + output_tokens
        self.settled = False

    def settle(self, usage: Usage) -> Usage:
        """The answer arrived: the reservation becomes the reported ``usage``."""
        return self._close(usage)

    def fail(self, *, sent: bool) -> Usage:
        """The request failed, timed out or was cancelled: charge what it cost.

        A request that may have reached the provider counts as one request sent,
        with its *estimated* input tokens (a failed request reports no usage, and
        the provider may well have billed the input) and no output tokens. One
        that provably never left (an open circuit, a refused connection, an
        offline model) costs nothing.
        """
        return self._close(Usage(requests=1, input_tokens=self.input_tokens) if sent else Usage())

    def _close(self, usage: Usage) -> Usage:
        if self.settled:
            raise RuntimeError("a usage reservation was settled twice")
        self.settled = True
        for meter in self.meters:
            meter.release(self.tokens)
            meter.record(usage)
        return usage


class Budget:
    """The meters a session must satisfy: its own and the run's shared one."""

    def __init__(self, *meters: UsageMeter) -> None:
        self.meters = meters

    def reserve_request(self, input_tokens: int, output_tokens: int) -> Reservation:
        """Check every meter for a request of this estimated size, then reserve it in
        each; raise ``BudgetExceeded`` (nothing reserved) when any meter is short."""
        tokens = input_tokens + output_tokens
        for meter in self.meters:
            meter.check_request(tokens)
        for meter in self.meters:
            meter.reserve(tokens)
        return Reservation(self.meters, input_tokens, output_tokens)

    def check_tool_call(self) -> None:
        for meter in self.meters:
            meter.check_tool_call()

    def record_tool_call(self) -> None:
        for meter in self.meters:
            meter.record_tool_call()
