"""The bounded agent loop (DESIGN §5).

System prompt + task (with the skill catalog) -> model -> tool calls -> results
-> ... until the agent submits through its submit tool. Everything is bounded:
turns, continuations for a model that stops without submitting, retries for a
submission that does not validate or skipped required skills, and the usage
budget: every request reserves its estimated size before it is sent. Tool
failures -- a ``ToolError``, or any exception a tool implementation raises on
odd input (a NUL byte, an encoding error, an OS error) -- unknown tools and
invalid arguments go back to the model as error results; they never end the
session. Only an exhausted budget and cancellation do.

Tools that block (files, git, live validators) run off the event loop (see
``Toolbox.call``), so concurrent sessions overlap them. The budget is checked and
charged, and every tool output redacted, here on the loop, before and after the
tool runs: a worker thread never touches the meters or the ledger.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from thresher.agents.budget import Budget
from thresher.agents.prompts import PromptRenderer, Template
from thresher.agents.toolbox import Toolbox
from thresher.agents.tooling import Ledger, LedgerEntry, ToolError
from thresher.agents.transcript import TranscriptWriter
from thresher.errors import ThresherError
from thresher.findings import SecretType
from thresher.llm.errors import BudgetExceeded, ProviderError
from thresher.llm.messages import (
    Message,
    ModelResponse,
    ModelSettings,
    SessionInfo,
    SystemMessage,
    ToolCallPart,
    ToolDefinition,
    ToolResultPart,
    ToolResultsMessage,
    Usage,
    UserMessage,
    estimate_input_tokens,
)
from thresher.llm.model import Model
from thresher.redaction.redactor import RedactingLogger, Redactor
from thresher.skills.compliance import Compliance

R = TypeVar("R", bound=BaseModel)
_LOG = logging.getLogger("thresher.agents")
_MAX_ERROR = 500  # characters of a tool's exception shown to the model, after redaction


class SessionError(ThresherError):
    """A session ended without a valid result; the tribunal records it and goes on."""


class NoSubmission(SessionError):
    pass


class InvalidSubmission(SessionError):
    pass


class TurnLimitReached(SessionError):
    pass


@dataclass(frozen=True)
class LoopLimits:
    max_turns: int = 24
    max_continuations: int = 3
    max_validation_retries: int = 3
    max_compliance_retries: int = 2


@dataclass
class SessionOutcome(Generic[R]):
    result: R
    compliance: Compliance
    ledger: Ledger
    usage: Usage
    messages: list[Message]
    turns: int
    seconds: float
    rejected_submissions: int = 0


@dataclass
class AgentSession(Generic[R]):
    """Everything one session needs; ``run`` drives it to a validated result."""

    model: Model
    system_prompt: str
    task_prompt: str
    toolbox: Toolbox
    submit_tool: str
    result_type: type[R]
    info: SessionInfo
    secret_type: SecretType | None
    renderer: PromptRenderer
    budget: Budget
    redactor: Redactor = field(default_factory=Redactor)
    settings: ModelSettings = field(default_factory=ModelSettings)
    limits: LoopLimits = field(default_factory=LoopLimits)
    transcript: TranscriptWriter | None = None
    clock: Callable[[], float] = time.perf_counter
    # What this session has spent so far, failed and cancelled requests included;
    # still readable after ``run`` raised (``SessionOutcome.usage`` on success).
    usage: Usage = field(default_factory=Usage, init=False)

    async def run(self) -> SessionOutcome[R]:
        """Drive the session; the transcript records a failure before it propagates."""
        try:
            return await self._run()
        except ThresherError as exc:
            if self.transcript:
                self.transcript.event(
                    "error", error=type(exc).__name__, message=str(exc), usage=self.usage
                )
            raise
        finally:
            self.toolbox.close()
            if self.transcript:
                self.transcript.close()

    async def _run(self) -> SessionOutcome[R]:
        started = self.clock()
        ledger = Ledger()
        messages: list[Message] = []
        continuations = validation_retries = compliance_retries = rejected = 0
        tools = self.toolbox.definitions()
        settings = self.settings.model_copy(update={"session": self.info})
        if self.transcript:
            self.transcript.event(
                "session",
                agent=self.info.agent,
                model=self.model.name,
                finding_id=self.info.finding_id,
            )

        def add(message: Message) -> None:
            clean = self.redactor.model(message)
            messages.append(clean)
            if self.transcript:
                self.transcript.message(clean)

        add(SystemMessage(text=self.system_prompt))
        add(UserMessage(text=self.task_prompt))
        for turn in range(1, self.limits.max_turns + 1):
            response = await self._request(messages, tools, settings)
            add(response.to_message())
            calls = response.tool_calls
            if not calls:
                continuations += 1
                if continuations > self.limits.max_continuations:
                    raise NoSubmission(
                        f"{self.info.agent} agent stopped {continuations} times without "
                        f"calling {self.submit_tool}",
                        hint="use a model with tool calling, or raise the continuation limit",
                    )
                add(UserMessage(text=self._continuation("", self.limits.max_turns - turn, ())))
                continue
            results: list[ToolResultPart] = []
            for call in calls:
                if call.name != self.submit_tool:
                    results.append(await self._run_tool(call, ledger))
                    continue
                verdict = self._check_submission(call, ledger)
                if isinstance(verdict, BaseModel):
                    compliance = self.toolbox.skills.compliance(self.secret_type)
                    if (
                        compliance.skipped
                        and compliance_retries < self.limits.max_compliance_retries
                    ):
                        compliance_retries += 1
                        rejected += 1
                        results.append(
                            self._error(
                                call,
                                ledger,
                                self._continuation(
                                    "Submission not accepted yet.",
                                    self.limits.max_turns - turn,
                                    compliance.skipped,
                                ),
                                {"skipped_required": list(compliance.skipped)},
                            )
                        )
                        continue
                    outcome = SessionOutcome(
                        result=verdict,
                        compliance=compliance,
                        ledger=ledger,
                        usage=self.usage,
                        messages=messages,
                        turns=turn,
                        seconds=self.clock() - started,
                        rejected_submissions=rejected,
                    )
                    self._finish(outcome)
                    return outcome
                validation_retries += 1
                rejected += 1
                if validation_retries > self.limits.max_validation_retries:
                    raise InvalidSubmission(
                        f"{self.info.agent} agent's {self.submit_tool} failed validation "
                        f"{validation_retries} times; last: {verdict}"
                    )
                results.append(self._error(call, ledger, verdict, {"validation_error": verdict}))
            add(ToolResultsMessage(results=tuple(results)))
        raise TurnLimitReached(
            f"{self.info.agent} agent did not submit within {self.limits.max_turns} turns",
            hint="raise the turn limit or check the model follows tool-calling instructions",
        )

    async def _request(
        self, messages: list[Message], tools: list[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        """One budgeted request: reserve its estimated size, send, settle the reservation."""
        estimate = estimate_input_tokens(messages, tools)
        reservation = self.budget.reserve_request(estimate, settings.max_tokens)
        try:
            response = await self.model.request(messages, tools, settings)
        except BaseException as exc:
            self.usage = self.usage + reservation.fail(sent=self._sent(exc))
            raise
        reported = response.usage
        if not self.model.offline and reported.input_tokens == 0:
            # A provider that reports no usage is charged the estimate, or no token
            # limit would ever bind on it.
            reported = Usage(
                requests=max(1, reported.requests),
                input_tokens=estimate,
                output_tokens=reported.output_tokens,
            )
        self.usage = self.usage + reservation.settle(reported)
        return _printable(response)

    def _sent(self, exc: BaseException) -> bool:
        """Whether a failed request may have reached (and be billed by) a provider.
        Cancellation and unexpected errors count as sent: the bytes may be out."""
        if self.model.offline:
            return False
        if isinstance(exc, ProviderError):
            return exc.sent
        return True

    def _continuation(self, reason: str, turns_left: int, skipped: tuple[str, ...]) -> str:
        return self.renderer.render(
            Template.CONTINUATION,
            submit_tool=self.submit_tool,
            skipped_required=list(skipped),
            reason=reason,
            turns_left=max(turns_left, 0),
        )

    def _check_submission(self, call: ToolCallPart, ledger: Ledger) -> R | str:
        if call.arguments_error:
            return f"{self.submit_tool} arguments could not be read: {call.arguments_error}"
        try:
            # Redacted like every message: the result goes into reports and SARIF.
            result = self.redactor.model(self.result_type.model_validate(call.arguments))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
                for e in exc.errors()[:10]
            )
            return (
                f"{self.submit_tool} arguments are invalid: {problems}. Fix them and call "
                f"{self.submit_tool} again."
            )
        self._record(call, ledger, result="accepted")
        return result

    async def _run_tool(self, call: ToolCallPart, ledger: Ledger) -> ToolResultPart:
        if call.arguments_error:
            return self._error(
                call,
                ledger,
                f"arguments could not be read: {call.arguments_error}; send a JSON object",
                {},
            )
        self.budget.check_tool_call()
        self.budget.record_tool_call()
        started = self.clock()
        log = RedactingLogger(_LOG, self.redactor)
        log.debug("%s %s(%s)", self.info.agent, call.name, call.arguments)
        try:
            output = await self.toolbox.call(call.name, call.arguments)
        except ToolError as exc:
            log.info("%s tool %s failed: %s", self.info.agent, call.name, exc)
            return self._error(call, ledger, str(exc), {})
        except BudgetExceeded:
            raise
        except Exception as exc:  # one odd argument must not end the finding
            log.warning(
                "%s tool %s raised %s: %s", self.info.agent, call.name, type(exc).__name__, exc
            )
            detail = self.redactor.text(f"{type(exc).__name__}: {exc}")[:_MAX_ERROR]
            return self._error(
                call, ledger, f"{call.name} failed: {detail}; check the arguments", {}
            )
        log.debug("%s %s -> %s", self.info.agent, call.name, output.text[:2000])
        entry = self._record(
            call,
            ledger,
            result=self.redactor.text(output.text),
            data=self.redactor.data(output.data),
            duration_ms=round((self.clock() - started) * 1000, 2),
        )
        return ToolResultPart(
            call_id=call.id,
            name=call.name,
            ledger_id=entry.id,
            content=f"[{entry.id}] {entry.result}",
            data=entry.data,
        )

    def _error(
        self, call: ToolCallPart, ledger: Ledger, message: str, data: dict[str, Any]
    ) -> ToolResultPart:
        entry = self._record(
            call, ledger, result=self.redactor.text(message), is_error=True, data=data
        )
        return ToolResultPart(
            call_id=call.id,
            name=call.name,
            ledger_id=entry.id,
            content=f"[{entry.id}] error: {entry.result}",
            is_error=True,
            data=data,
        )

    def _record(self, call: ToolCallPart, ledger: Ledger, **fields: Any) -> LedgerEntry:
        """Give the call the next ledger id, keep it, and write it to the transcript."""
        entry = LedgerEntry(
            id=ledger.next_id(),
            tool=call.name,
            arguments=self.redactor.data(call.arguments),
            **fields,
        )
        ledger.record(entry)
        if self.transcript:
            self.transcript.ledger(entry)
        return entry

    def _finish(self, outcome: SessionOutcome[R]) -> None:
        if self.transcript:
            self.transcript.event(
                "result",
                result=outcome.result,
                compliance=outcome.compliance,
                usage=outcome.usage,
                turns=outcome.turns,
                seconds=round(outcome.seconds, 3),
            )


def _printable(response: ModelResponse) -> ModelResponse:
    """``response`` with lone surrogates (``"\\ud800"`` in a JSON tool argument)
    replaced: they cannot be encoded as UTF-8, so the transcript and the next
    request would fail on them instead of the model seeing a tool error."""
    dumped = response.model_dump(mode="python")
    clean = _scrub(dumped)
    return response if clean == dumped else ModelResponse.model_validate(clean)


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_scrub(v) for v in value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value
