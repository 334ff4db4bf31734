"""The bounded agent loop, driven by the shipped test models."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.llm.harness import REPORT, make_finding
from thresher.agents.budget import UsageLimits
from thresher.agents.loop import InvalidSubmission, LoopLimits, NoSubmission, TurnLimitReached
from thresher.agents.sessions import SessionFactory
from thresher.agents.tooling import ToolOutput
from thresher.agents.toolspecs import ToolName
from thresher.agents.transcript import read_messages
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, Settings
from thresher.llm.errors import BudgetExceeded
from thresher.llm.messages import (
    ModelResponse,
    ModelSettings,
    StopReason,
    ToolCallPart,
    ToolResultsMessage,
    Usage,
    estimate_input_tokens,
)
from thresher.llm.testing import (
    FunctionModel,
    RecordedRequest,
    ScriptedModel,
    text_response,
    tool_response,
)
from thresher.redaction.redactor import Redactor


def build(model: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
    finding, secret = make_finding()
    sessions = SessionFactory(settings=Settings(), redactor=Redactor([secret]), **kwargs)
    return sessions.build(AgentName.ANALYSIS, model, finding, secret), secret


def required_calls(session) -> list[tuple[str, dict[str, Any]]]:  # type: ignore[no-untyped-def]
    return [("skill", {"name": s}) for s in session.info.required_skills]


def results_of(request: RecordedRequest) -> ToolResultsMessage:
    last = request.messages[-1]
    assert isinstance(last, ToolResultsMessage)
    return last


def test_full_session_with_a_scripted_model() -> None:
    probe, _ = build(ScriptedModel([]))
    model = ScriptedModel(
        [
            tool_response(*required_calls(probe), ("get_finding", {"finding_id": "f-gh-1"})),
            tool_response(("submit_report", REPORT)),
        ]
    )
    session, _ = build(model)
    outcome = asyncio.run(session.run())
    assert outcome.result.verdict.value == "TRUE_POSITIVE"
    assert outcome.compliance.score == 1.0
    assert [e.id for e in outcome.ledger.entries][-1] == f"T{len(outcome.ledger.entries)}"
    first_results = results_of(model.requests[1]).results
    assert first_results[0].content.startswith('[T1] <skill_content name="')
    assert model.requests[0].settings.session is not None


def test_tool_errors_go_back_to_the_model() -> None:
    probe, _ = build(ScriptedModel([]))
    bad_json = ModelResponse(
        parts=(ToolCallPart(id="x", name="grep", arguments_error="oops"),),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(requests=1),
        model="m",
    )
    model = ScriptedModel(
        [
            tool_response(
                ("shell", {"cmd": "ls"}),
                ("get_finding", {"finding_id": "other"}),
                ("skill", {"name": "no-such-skill"}),
                ("get_finding", {}),
            ),
            bad_json,
            tool_response(*required_calls(probe), ("submit_report", REPORT)),
        ]
    )
    session, _ = build(model)
    outcome = asyncio.run(session.run())
    errors = results_of(model.requests[1]).results
    assert all(r.is_error for r in errors)
    assert "unknown tool 'shell'" in errors[0].content
    assert "unknown finding id 'other'" in errors[1].content
    assert "unknown skill 'no-such-skill'" in errors[2].content
    assert "invalid arguments: finding_id: Field required" in errors[3].content
    assert "arguments could not be read: oops" in results_of(model.requests[2]).results[0].content
    assert outcome.result.classification.value == "real"


def test_invalid_submission_is_returned_then_retried() -> None:
    probe, _ = build(ScriptedModel([]))
    broken = {**REPORT, "confidence_label": "sure"}
    model = ScriptedModel(
        [
            tool_response(*required_calls(probe), ("submit_report", broken)),
            tool_response(("submit_report", REPORT)),
        ]
    )
    session, _ = build(model)
    outcome = asyncio.run(session.run())
    rejection = results_of(model.requests[1]).results[-1]
    assert rejection.is_error and "confidence_label" in rejection.content
    assert outcome.rejected_submissions == 1


def test_repeated_invalid_submissions_end_the_session() -> None:
    probe, _ = build(ScriptedModel([]))
    bad = tool_response(*required_calls(probe), ("submit_report", {"verdict": "maybe"}))
    session, _ = build(ScriptedModel([bad] * 5), loop_limits=LoopLimits(max_validation_retries=2))
    with pytest.raises(InvalidSubmission, match="failed validation 3 times"):
        asyncio.run(session.run())


def test_skipped_required_skills_are_named_before_a_submit_is_accepted() -> None:
    probe, _ = build(ScriptedModel([]))
    required = list(probe.info.required_skills)
    model = ScriptedModel(
        [
            tool_response(("submit_report", REPORT)),
            tool_response(*[("skill", {"name": s}) for s in required]),
            tool_response(("submit_report", REPORT)),
        ]
    )
    session, _ = build(model)
    outcome = asyncio.run(session.run())
    rejection = results_of(model.requests[1]).results[0]
    assert rejection.is_error
    assert rejection.data["skipped_required"] == sorted(required)
    for name in required:
        assert f"- `{name}`" in rejection.content
    assert outcome.compliance.score == 1.0


def test_compliance_retries_are_bounded_and_recorded() -> None:
    model = ScriptedModel([tool_response(("submit_report", REPORT))] * 3)
    session, _ = build(model)
    outcome = asyncio.run(session.run())
    assert outcome.compliance.score == 0.0
    assert outcome.compliance.skipped == tuple(sorted(session.info.required_skills))
    assert len(model.requests) == 3


def test_a_model_that_never_submits_gets_continuations_then_fails() -> None:
    model = ScriptedModel([text_response("I think it is fine.")] * 10)
    session, _ = build(model, loop_limits=LoopLimits(max_continuations=2))
    with pytest.raises(NoSubmission, match="stopped 3 times without calling submit_report"):
        asyncio.run(session.run())
    continuation = model.requests[1].messages[-1]
    assert "call `submit_report`" in continuation.text  # type: ignore[union-attr]


def test_turn_limit() -> None:
    looping = FunctionModel(lambda r: tool_response(("list_secret_validators", {})))
    session, _ = build(looping, loop_limits=LoopLimits(max_turns=3))
    with pytest.raises(TurnLimitReached):
        asyncio.run(session.run())
    assert len(looping.requests) == 3


def test_budget_is_checked_before_spending() -> None:
    looping = FunctionModel(lambda r: tool_response(("list_secret_validators", {})))
    session, _ = build(looping, session_limits=UsageLimits(max_requests=2))
    with pytest.raises(BudgetExceeded) as caught:
        asyncio.run(session.run())
    assert (caught.value.used, caught.value.limit, caught.value.what) == (2, 2, "request")
    assert len(looping.requests) == 2


def test_a_token_budget_holds_when_answers_are_as_large_as_reserved() -> None:
    """Every request reserves its estimated input plus its max output before it is sent, so
    a model whose answers really are that large can never push usage past the limit."""

    def as_large_as_reserved(r: RecordedRequest) -> ModelResponse:
        return tool_response(
            ("list_secret_validators", {}),
            usage=Usage(
                requests=1,
                input_tokens=estimate_input_tokens(r.messages, r.tools),
                output_tokens=r.settings.max_tokens,
            ),
        )

    heavy = FunctionModel(as_large_as_reserved)
    limit = 30_000
    session, _ = build(
        heavy,
        session_limits=UsageLimits(max_total_tokens=limit),
        model_settings=ModelSettings(max_tokens=2000),
    )
    with pytest.raises(BudgetExceeded, match="session token limit reached") as caught:
        asyncio.run(session.run())
    assert len(heavy.requests) >= 2  # it did work until the budget ran out
    assert session.usage.requests == len(heavy.requests)
    assert session.usage.total_tokens <= limit
    assert caught.value.used + caught.value.needed > limit


def test_a_token_budget_smaller_than_one_request_sends_nothing() -> None:
    model = FunctionModel(lambda r: tool_response(("list_secret_validators", {})))
    session, _ = build(model, session_limits=UsageLimits(max_total_tokens=10))
    with pytest.raises(BudgetExceeded, match=r"0 used of 10; the next request needs about"):
        asyncio.run(session.run())
    assert model.requests == [] and session.usage == Usage()


def test_tool_call_budget() -> None:
    calls = FunctionModel(lambda r: tool_response(*[("list_secret_validators", {})] * 3))
    session, _ = build(calls, session_limits=UsageLimits(max_tool_calls=4))
    with pytest.raises(BudgetExceeded, match="tool-call"):
        asyncio.run(session.run())


def test_scripted_model_reports_exhaustion() -> None:
    from thresher.llm.testing import ScriptExhausted

    session, _ = build(ScriptedModel([]))
    with pytest.raises(ScriptExhausted):
        asyncio.run(session.run())


def test_a_submitted_result_is_redacted_like_every_message() -> None:
    probe, secret = build(ScriptedModel([]))
    echoed = {
        **REPORT,
        "key_finding": f"the token {secret} is live",
        "evidence": [{"claim": f"read {secret}", "ledger_ids": ["T1"]}],
    }
    model = ScriptedModel(
        [tool_response(*required_calls(probe), ("submit_report", echoed))],
    )
    session, _ = build(model)
    outcome = asyncio.run(session.run())
    assert secret not in outcome.result.model_dump_json()
    assert outcome.result.classification.value == "real"  # closed vocabularies untouched


def test_a_failed_request_is_charged_and_releases_its_reservation() -> None:
    from thresher.agents.budget import Budget, UsageMeter

    meter = UsageMeter(UsageLimits(max_requests=2, max_total_tokens=1000), "run")
    budget = Budget(meter)
    first = budget.reserve_request(300, 100)
    with pytest.raises(BudgetExceeded, match="token"):  # 400 reserved + 700 > 1000
        Budget(meter).reserve_request(600, 100)
    assert (meter.in_flight, meter.reserved_tokens) == (1, 400)
    assert first.fail(sent=True) == Usage(requests=1, input_tokens=300)
    assert (meter.in_flight, meter.reserved_tokens) == (0, 0)
    second = budget.reserve_request(100, 100)
    assert second.settle(Usage(requests=1, input_tokens=90, output_tokens=10)).total_tokens == 100
    assert meter.usage == Usage(requests=2, input_tokens=390, output_tokens=10)
    with pytest.raises(BudgetExceeded, match="request"):
        budget.reserve_request(1, 1)
    never_left = UsageMeter(UsageLimits(), "run")
    assert Budget(never_left).reserve_request(50, 50).fail(sent=False) == Usage()
    assert never_left.usage == Usage() and never_left.in_flight == 0


def _workspace(tmp_path: Path) -> Workspace:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.py").write_text("DEBUG = False\n", encoding="utf-8")
    return Workspace(tmp_path)


def test_a_nul_byte_in_a_tool_argument_is_an_error_the_model_sees(tmp_path: Path) -> None:
    probe, _ = build(ScriptedModel([]))
    model = ScriptedModel(
        [
            tool_response(
                ("read_file", {"path": "config/\x00settings.py"}),
                ("grep", {"pattern": "DEBUG\x00", "path": "config"}),
                ("list_dir", {"path": "\x00"}),
                ("git_show", {"rev": "HEAD\x00"}),
                ("skill", {"name": "finding-intake\x00"}),
                ("skill", {"name": "finding-intake"}),
                ("read_skill_file", {"skill": "finding-intake", "path": "ref\x00.md"}),
                ("read_file", {"path": "config/settings.py"}),
            ),
            tool_response(*required_calls(probe), ("submit_report", REPORT)),
        ]
    )
    session, _ = build(model, workspace=_workspace(tmp_path), transcripts_dir=tmp_path / "t")
    outcome = asyncio.run(session.run())
    assert outcome.result.verdict.value == "TRUE_POSITIVE"  # the finding is not lost
    results = results_of(model.requests[1]).results
    errors = [r for r in results if r.is_error]
    assert [r.name for r in errors] == [
        "read_file",
        "grep",
        "list_dir",
        "git_show",
        "skill",
        "read_skill_file",
    ]
    assert all("NUL byte" in r.content for r in errors)
    assert "DEBUG = False" in results[-1].content  # the session went on working


def test_any_exception_from_a_tool_becomes_an_error_result(tmp_path: Path) -> None:
    probe, _ = build(ScriptedModel([]))
    model = ScriptedModel(
        [
            tool_response(("list_dir", {"path": "."}), ("list_dir", {"path": "config"})),
            tool_response(*required_calls(probe), ("submit_report", REPORT)),
        ]
    )
    session, _ = build(model, workspace=_workspace(tmp_path))
    failures: list[Exception] = [
        OSError(5, "Input/output error"),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    ]

    def broken(arguments: dict[str, Any]) -> ToolOutput:
        raise failures.pop(0)

    session.toolbox.handlers[ToolName.LIST_DIR] = broken
    outcome = asyncio.run(session.run())
    assert outcome.result.verdict.value == "TRUE_POSITIVE"
    first, second = results_of(model.requests[1]).results
    assert first.is_error and "list_dir failed: OSError" in first.content
    assert second.is_error and "UnicodeDecodeError" in second.content


def test_an_exhausted_budget_inside_a_tool_still_ends_the_session(tmp_path: Path) -> None:
    model = ScriptedModel([tool_response(("list_dir", {"path": "."}))])
    session, _ = build(model, workspace=_workspace(tmp_path))

    def spender(arguments: dict[str, Any]) -> ToolOutput:
        raise BudgetExceeded("token", 10, 10, "run")

    session.toolbox.handlers[ToolName.LIST_DIR] = spender
    with pytest.raises(BudgetExceeded, match="run token limit"):
        asyncio.run(session.run())


def test_a_lone_surrogate_in_a_tool_argument_does_not_break_the_transcript(
    tmp_path: Path,
) -> None:
    probe, _ = build(ScriptedModel([]))
    odd = ModelResponse(
        parts=(ToolCallPart(id="s", name="read_file", arguments={"path": "config/\ud800.py"}),),
        stop_reason=StopReason.TOOL_USE,
        usage=Usage(requests=1),
        model="m",
    )
    model = ScriptedModel([odd, tool_response(*required_calls(probe), ("submit_report", REPORT))])
    transcripts = tmp_path / "t"
    session, _ = build(model, workspace=_workspace(tmp_path), transcripts_dir=transcripts)
    outcome = asyncio.run(session.run())
    assert outcome.result.verdict.value == "TRUE_POSITIVE"
    (result,) = results_of(model.requests[1]).results
    assert result.is_error
    assert len(read_messages(next(transcripts.glob("*.jsonl")))) == len(outcome.messages)
