"""Escalation, guardrails, fallbacks and failures of the tribunal."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from tests.heuristic.test_heuristic import repo_with
from tests.tokens import github_token, random_secret
from thresher.agents.budget import UsageLimits, UsageMeter
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, Settings
from thresher.errors import ExitCode
from thresher.findings import Finding, Severity
from thresher.llm.messages import ModelResponse
from thresher.llm.testing import FunctionModel, RecordedRequest, text_response, tool_response
from thresher.redaction.redactor import Redactor, redact_value
from thresher.scan.outcome import FailOn, exit_code_for
from thresher.scoring.model import Assessment, OperatingPoint, Scorer, shipped_scorer
from thresher.scoring.policy import Escalate
from thresher.tribunal.decisions import DecidedBy
from thresher.tribunal.tribunal import Tribunal, TribunalOptions

# A fixed operating point, so these tests do not move when the shipped scorer is retrained:
# P(real) >= 0.5 is called real; P(real) strictly inside (0.1, 0.9) is not decisive.
POINT = OperatingPoint(real_threshold=0.5, band_low=0.1, band_high=0.9)
SCORER = Scorer(shipped_scorer().artifact.model_copy(update={"operating_point": POINT}))


def assessment(p_real: float, p_test: float | None = None) -> Assessment:
    """The scorer's probabilities; what is not real is test unless ``p_test`` says otherwise."""
    rest = round(1.0 - p_real, 4)
    p_test = rest if p_test is None else p_test
    return Assessment(p_real=p_real, p_test=p_test, p_not_secret=round(rest - p_test, 4))


FACTORS = dict.fromkeys(
    (
        "recency",
        "directness",
        "completeness",
        "source_reliability",
        "verification_confidence",
        "test_results",
        "findings_review",
    ),
    8,
)


class FakeLLM(FunctionModel):
    """A function-driven model that counts as a remote LLM (offline = False)."""

    provider = "fake-llm"

    @property
    def offline(self) -> bool:
        return False


def agent(classification: str = "real", *, submit: bool = True):  # type: ignore[no-untyped-def]
    def respond(request: RecordedRequest) -> ModelResponse:
        info = request.settings.session
        assert info is not None
        if not submit:
            return text_response("I would rather chat.")
        if len(request.messages) == 2:
            return tool_response(
                *[("skill", {"name": s}) for s in info.required_skills],
                ("get_finding", {"finding_id": info.finding_id}),
            )
        verdict = "TRUE_POSITIVE" if classification == "real" else "FALSE_POSITIVE"
        args: dict[str, Any]
        if info.submit_tool == "submit_report":
            args = {
                "classification": classification,
                "verdict": verdict,
                "confidence_factors": FACTORS,
                "confidence_score": 8.0,
                "confidence_label": "high",
                "risk_level": "high",
                "key_finding": f"model says {classification}",
                "evidence": [{"claim": "finding read", "ledger_ids": ["T1"]}],
            }
        elif info.submit_tool == "submit_challenge":
            args = {"outcome": "CONFIRMED", "reasoning": "reproduced"}
        else:
            args = {
                "winner_index": 0,
                "rationale": "report 0 holds",
                "final_verdict": verdict,
                "final_classification": classification,
            }
        return tool_response((info.submit_tool, args))

    return respond


def setup(
    tmp_path: Path,
    path: str,
    value: str,
    llm: dict[AgentName, Any] | None,
    escalate: Escalate = Escalate.UNCERTAIN,
    analyses: int = 1,
    run_limits: UsageLimits | None = None,
    offline: Assessment | None = None,
    rule: str = "GitHub Token",
) -> tuple[Tribunal, Finding]:
    root = repo_with(tmp_path, path, value)
    finding = Finding.model_validate(
        {
            "id": "f-1",
            "rule_id": rule,
            "fingerprint": "sha256:x",
            "redacted": redact_value(value),
            "locations": [{"path": path, "line": 12}],
        }
    )
    factory = SessionFactory(
        settings=Settings(),
        redactor=Redactor([value]),
        workspace=Workspace(root, value_for=lambda _: value),
        run_meter=UsageMeter(run_limits or UsageLimits(), "run"),
    )
    models: dict[AgentName, Any] = llm or {}
    from thresher.heuristic.model import HeuristicModel

    for name in AgentName:
        models.setdefault(name, HeuristicModel())
    tribunal = Tribunal(
        factory,
        models,
        TribunalOptions(escalate=escalate, analyses=analyses),
        assessments={"f-1": offline} if offline is not None else None,
        scorer=SCORER,
    )
    return tribunal, finding


def decide(tribunal: Tribunal, finding: Finding, value: str):  # type: ignore[no-untyped-def]
    return asyncio.run(tribunal.decide(finding, value))


def all_llm(classification: str = "real", **kwargs: Any) -> dict[AgentName, Any]:
    return {a: FakeLLM(agent(classification, **kwargs)) for a in AgentName}


def test_heuristic_only_when_no_llm_is_configured(tmp_path: Path) -> None:
    value = github_token()
    tribunal, finding = setup(tmp_path, "app/settings.py", value, None)
    decision = decide(tribunal, finding, value)
    assert decision.decided_by is DecidedBy.HEURISTIC and not decision.escalated
    assert decision.verdict.value == "TRUE_POSITIVE"
    assert decision.entries[0].compliance.score == 1.0
    assert all(check.passed for check in decision.entries[0].checks)


def test_decisive_offline_assessment_is_not_escalated(tmp_path: Path) -> None:
    value = github_token()
    llm = all_llm()
    tribunal, finding = setup(tmp_path, "app/settings.py", value, llm, offline=assessment(0.97))
    decision = decide(tribunal, finding, value)
    assert not decision.escalated and decision.decided_by is DecidedBy.HEURISTIC
    assert decision.classification.value == "real"
    assert decision.escalation is not None and not decision.escalation.would_escalate
    assert "decisive" in decision.escalation.reason
    assert decision.assessment is not None and decision.assessment.p_real == 0.97
    assert all(not m.requests for m in llm.values())


def test_decisive_low_assessment_is_not_escalated(tmp_path: Path) -> None:
    value = random_secret(24)  # no checksum, no placeholder: only the scorer speaks
    llm = all_llm()
    tribunal, finding = setup(
        tmp_path, "app/settings.py", value, llm, offline=assessment(0.05), rule="Secret Keyword"
    )
    decision = decide(tribunal, finding, value)
    assert not decision.escalated and decision.classification.value == "test"
    assert decision.escalation is not None and not decision.escalation.would_escalate
    assert all(not m.requests for m in llm.values())


def test_assessment_inside_the_band_is_escalated(tmp_path: Path) -> None:
    value = github_token()
    llm = all_llm()
    tribunal, finding = setup(tmp_path, "app/settings.py", value, llm, offline=assessment(0.7))
    decision = decide(tribunal, finding, value)
    assert decision.escalated and decision.decided_by is DecidedBy.TRIBUNAL
    assert decision.escalation is not None and decision.escalation.would_escalate
    assert "inside the uncertainty band" in decision.escalation.reason
    assert decision.assessment is not None and decision.assessment.p_real == 0.7
    assert llm[AgentName.ANALYSIS].requests and llm[AgentName.JUDGE].requests


@pytest.mark.parametrize(
    ("offline", "called"),
    [(assessment(0.3), "test"), (assessment(0.3, p_test=0.1), "not_secret")],
)
def test_a_call_against_real_inside_the_band_is_escalated_too(
    tmp_path: Path, offline: Assessment, called: str
) -> None:
    # Escalation follows risk, not the direction of the call: a confident-looking miss
    # that never reaches a model would cap recall for good.
    value = random_secret(24)
    llm = all_llm("real")
    tribunal, finding = setup(
        tmp_path, "app/settings.py", value, llm, offline=offline, rule="Secret Keyword"
    )
    call, escalation = tribunal.offline(finding, ())
    assert call is not None and call.classification.value == called
    assert escalation.would_escalate and "inside the uncertainty band" in escalation.reason
    decision = decide(tribunal, finding, value)
    assert decision.escalated and decision.decided_by is DecidedBy.TRIBUNAL
    assert decision.classification.value == "real"  # the panel's call, not the offline one
    assert llm[AgentName.ANALYSIS].requests


def test_without_a_model_an_uncertain_call_is_recorded_but_not_escalated(
    tmp_path: Path,
) -> None:
    value = github_token()
    tribunal, finding = setup(tmp_path, "app/settings.py", value, None, offline=assessment(0.7))
    decision = decide(tribunal, finding, value)
    assert not decision.escalated and decision.decided_by is DecidedBy.HEURISTIC
    assert decision.escalation is not None and decision.escalation.would_escalate
    assert decision.classification.value == "real"


def test_escalate_all_runs_n_analyses_challenges_and_one_judge(tmp_path: Path) -> None:
    value = github_token()
    llm = all_llm()
    tribunal, finding = setup(
        tmp_path, "app/settings.py", value, llm, escalate=Escalate.ALL, analyses=3
    )
    decision = decide(tribunal, finding, value)
    assert decision.escalated and decision.decided_by is DecidedBy.TRIBUNAL
    assert len(decision.entries) == 3
    assert all(e.challenge is not None for e in decision.entries)
    assert decision.judge is not None and decision.judge.winner_index == 0
    assert len(llm[AgentName.ANALYSIS].requests) == 6
    assert len(llm[AgentName.JUDGE].requests) == 2
    assert decision.usage.requests > 10


def test_guardrail_keeps_a_checksum_failure_from_ending_real(tmp_path: Path) -> None:
    value = github_token(valid_checksum=False)
    tribunal, finding = setup(
        tmp_path, "app/settings.py", value, all_llm("real"), escalate=Escalate.ALL
    )
    decision = decide(tribunal, finding, value)
    assert decision.decided_by is DecidedBy.GUARDRAIL
    assert decision.classification.value == "test"
    assert decision.verdict.value == "FALSE_POSITIVE"
    assert decision.guardrail and "checksum" in decision.guardrail


def test_failed_sessions_keep_the_offline_decision_with_errors(tmp_path: Path) -> None:
    value = github_token()
    tribunal, finding = setup(
        tmp_path, "app/settings.py", value, all_llm(submit=False), escalate=Escalate.ALL
    )
    decision = decide(tribunal, finding, value)
    assert decision.verdict.value == "TRUE_POSITIVE"
    assert decision.decided_by is DecidedBy.HEURISTIC
    assert decision.errors and decision.errors[0].error == "NoSubmission"
    assert "the offline decision stands" in decision.rationale


@pytest.mark.parametrize("dead", [(AgentName.JUDGE,), (AgentName.CHALLENGER, AgentName.JUDGE)])
def test_an_unchallenged_or_unjudged_report_cannot_clear_a_real_secret(
    tmp_path: Path, dead: tuple[AgentName, ...]
) -> None:
    """Fail closed: a lone analysis saying "not a secret" while the challenger and the judge
    are down used to turn a TRUE_POSITIVE into a FALSE_POSITIVE and exit 0."""
    value = github_token()
    llm = {a: FakeLLM(agent("not_secret")) for a in AgentName}
    for name in dead:
        llm[name] = FakeLLM(agent(submit=False))
    tribunal, finding = setup(tmp_path, "app/settings.py", value, llm, escalate=Escalate.ALL)
    decision = decide(tribunal, finding, value)
    assert decision.verdict.value == "TRUE_POSITIVE"
    assert decision.classification.value == "real"
    assert {e.stage for e in decision.errors} == {
        "judge" if name is AgentName.JUDGE else "challenger 0" for name in dead
    }
    assert exit_code_for([decision], FailOn.REAL) is ExitCode.RUNTIME
    assert exit_code_for([decision], FailOn.NEVER) is ExitCode.RUNTIME


def test_a_complete_panel_may_clear_a_finding(tmp_path: Path) -> None:
    value = github_token()
    llm = {a: FakeLLM(agent("not_secret")) for a in AgentName}
    tribunal, finding = setup(tmp_path, "app/settings.py", value, llm, escalate=Escalate.ALL)
    decision = decide(tribunal, finding, value)
    assert decision.verdict.value == "FALSE_POSITIVE" and not decision.errors
    assert decision.decided_by is DecidedBy.TRIBUNAL


def test_exhausted_budget_keeps_the_heuristic_decision(tmp_path: Path) -> None:
    value = github_token()
    tribunal, finding = setup(
        tmp_path,
        "app/settings.py",
        value,
        all_llm(),
        escalate=Escalate.ALL,
        run_limits=UsageLimits(max_requests=1),
    )
    decision = decide(tribunal, finding, value)
    assert decision.decided_by is DecidedBy.HEURISTIC
    assert decision.verdict.value == "TRUE_POSITIVE"
    assert decision.errors[0].error == "BudgetExceeded"
    assert "not escalated" in decision.errors[0].message


def test_decide_all_keeps_input_order_and_reports_each(tmp_path: Path) -> None:
    value = github_token()
    tribunal, finding = setup(tmp_path, "app/settings.py", value, None)
    # One at a time: with real overlap the completion order is the scheduler's.
    tribunal.options = dataclasses.replace(tribunal.options, concurrency=1)
    other = finding.model_copy(update={"id": "f-2", "severity": Severity.CRITICAL})
    seen: list[str] = []
    decisions = asyncio.run(
        tribunal.decide_all([finding, other], lambda _: value, lambda d: seen.append(d.finding.id))
    )
    assert [d.finding.id for d in decisions] == ["f-1", "f-2"]
    assert seen[0] == "f-2"  # highest severity first


class SlowLLM(FakeLLM):
    """Answers after a network-like pause, so concurrent sessions interleave."""

    async def request(self, messages, tools, settings):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.01)
        return await super().request(messages, tools, settings)


def test_concurrent_sessions_cannot_overspend_the_run_budget(tmp_path: Path) -> None:
    value = github_token()
    llm = {a: SlowLLM(agent()) for a in AgentName}
    tribunal, finding = setup(
        tmp_path,
        "app/settings.py",
        value,
        llm,  # type: ignore[arg-type]
        escalate=Escalate.ALL,
        analyses=3,
        run_limits=UsageLimits(max_requests=4),
    )
    decision = decide(tribunal, finding, value)
    assert sum(len(m.requests) for m in llm.values()) <= 4
    assert tribunal.factory.run_meter.in_flight == 0  # cancelled sessions released theirs
    assert decision.decided_by is DecidedBy.HEURISTIC
    assert "not escalated" in decision.errors[0].message


def test_one_session_over_its_own_limit_does_not_void_the_panel(tmp_path: Path) -> None:
    value = github_token()
    steady = agent()

    def respond(request: RecordedRequest) -> ModelResponse:
        task = request.messages[1]
        if "Analysis 2 of 2" in getattr(task, "text", ""):
            return tool_response(("list_secret_validators", {}))  # never submits
        return steady(request)

    llm = all_llm()
    llm[AgentName.ANALYSIS] = FakeLLM(respond)
    tribunal, finding = setup(
        tmp_path, "app/settings.py", value, llm, escalate=Escalate.ALL, analyses=2
    )
    tribunal.factory.session_limits = UsageLimits(max_requests=6)
    decision = decide(tribunal, finding, value)
    assert decision.escalated and decision.decided_by is DecidedBy.TRIBUNAL
    assert len(decision.entries) == 1
    assert decision.verdict.value == "TRUE_POSITIVE"
    assert [(e.stage, e.error) for e in decision.errors] == [("analysis 1", "BudgetExceeded")]


def test_a_bug_in_one_finding_does_not_end_the_run(tmp_path: Path) -> None:
    value = github_token()
    tribunal, finding = setup(tmp_path, "app/settings.py", value, None)
    broken = finding.model_copy(update={"id": "f-broken"})

    def value_of(finding_id: str) -> str | None:
        if finding_id == "f-broken":
            raise KeyError("vault lost the value")  # a bug, not a thresher error
        return value

    decisions = asyncio.run(tribunal.decide_all([finding, broken], value_of))
    assert decisions[0].verdict.value == "TRUE_POSITIVE"
    assert decisions[1].verdict.value == "INCONCLUSIVE"
    assert decisions[1].errors[0].error == "KeyError"


def test_budget_running_out_at_the_judge_keeps_the_paid_reports(tmp_path: Path) -> None:
    value = github_token()
    llm = all_llm()
    # analysis (2 requests) + challenger (2 requests) fit; the judge does not.
    tribunal, finding = setup(
        tmp_path,
        "app/settings.py",
        value,
        llm,
        escalate=Escalate.ALL,
        run_limits=UsageLimits(max_requests=4),
    )
    decision = decide(tribunal, finding, value)
    assert decision.escalated and decision.judge is None
    assert decision.entries[0].model == "fake-llm:default"
    assert decision.verdict.value == "TRUE_POSITIVE"
    assert decision.decided_by is DecidedBy.HEURISTIC
    assert "the offline decision stands" in decision.rationale
    assert [e.error for e in decision.errors] == ["BudgetExceeded"]
