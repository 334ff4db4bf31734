"""What --apply may do: every rule of issue 10 §3 and every reason to hold."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.tokens import github_token, random_secret
from thresher.errors import ExitCode, UsageError
from thresher.findings import AlertResolution, AlertState, AlertValidity
from thresher.findings.results import Classification, Verdict
from thresher.redaction.redactor import Redactor, redact_value
from thresher.triage.policy import (
    COMMENT_LIMIT,
    Action,
    ActionKind,
    Hold,
    completed_tribunal,
    hold_action,
    plan,
    resolution_comment,
    scrub,
)
from thresher.triage.state import AppliedRecord
from thresher.tribunal.decisions import DecidedBy, Decision, DecisionError

from .factory import (
    CHECKSUM_INVALID,
    DOCUMENTATION,
    LIVE_VALID,
    SYNTAX,
    decision,
    tribunal_fields,
)

RUN = "https://github.com/octo/ops/actions/runs/123456"
APPLIED = AppliedRecord(
    repo="octo/app",
    number=1,
    resolution=AlertResolution.USED_IN_TESTS,
    comment="thresher: test",
    run_id="run-0",
    applied_at=datetime(2026, 11, 1, tzinfo=UTC),
)


def _plan(made: Decision, **overrides: Any) -> Action:
    arguments: dict[str, Any] = {
        "alert_state": AlertState.OPEN,
        "validity": None,
        "applied": None,
        "min_confidence": 7.0,
        "remaining": None,
        "run_ref": RUN,
        "redactor": None,
    }
    arguments.update(overrides)
    return plan(made, **arguments)


def _tribunal(
    classification: Classification = Classification.NOT_SECRET, **fields: Any
) -> Decision:
    verdict = fields.pop("verdict", Verdict.FALSE_POSITIVE)
    parts = tribunal_fields(classification, verdict, **fields)
    return decision(classification=classification, verdict=verdict, validations=(), **parts)


# -- resolving ---------------------------------------------------------------------------


def test_a_test_value_with_hard_evidence_is_resolved_as_used_in_tests() -> None:
    action = _plan(decision(classification=Classification.TEST, validations=(CHECKSUM_INVALID,)))
    assert action.kind is ActionKind.RESOLVE
    assert action.resolution is AlertResolution.USED_IN_TESTS
    assert action.hold is None
    assert action.comment is not None
    assert RUN in action.comment
    assert "checksum-invalid" in action.detail


@pytest.mark.parametrize("evidence", [DOCUMENTATION, SYNTAX], ids=["documentation", "syntax"])
def test_a_not_secret_value_with_hard_evidence_is_resolved_as_false_positive(
    evidence: Any,
) -> None:
    action = _plan(decision(classification=Classification.NOT_SECRET, validations=(evidence,)))
    assert action.kind is ActionKind.RESOLVE
    assert action.resolution is AlertResolution.FALSE_POSITIVE


def test_a_completed_llm_tribunal_is_enough_without_hard_evidence() -> None:
    made = _tribunal(Classification.TEST, verdict=Verdict.FALSE_POSITIVE)
    assert completed_tribunal(made)
    action = _plan(made)
    assert action.kind is ActionKind.RESOLVE
    assert action.resolution is AlertResolution.USED_IN_TESTS
    assert "LLM tribunal" in action.detail


def test_confidence_exactly_at_the_minimum_resolves() -> None:
    action = _plan(decision(confidence=7.0), min_confidence=7.0)
    assert action.kind is ActionKind.RESOLVE


@pytest.mark.parametrize("remaining", [None, 1, 5])
def test_resolves_while_the_cap_allows(remaining: int | None) -> None:
    assert _plan(decision(), remaining=remaining).kind is ActionKind.RESOLVE


@pytest.mark.parametrize("validity", [None, AlertValidity.INACTIVE, AlertValidity.UNKNOWN])
def test_validity_other_than_active_does_not_stop_a_resolution(
    validity: AlertValidity | None,
) -> None:
    assert _plan(decision(), validity=validity).kind is ActionKind.RESOLVE


def test_a_dependency_that_is_not_affected_is_a_false_positive() -> None:
    made = decision(classification=Classification.NOT_AFFECTED, verdict=Verdict.FALSE_POSITIVE)
    assert _plan(made).resolution is AlertResolution.FALSE_POSITIVE


# -- holding -----------------------------------------------------------------------------

HELD: list[tuple[str, Decision, dict[str, Any], Hold]] = [
    ("real", decision(classification=Classification.REAL), {}, Hold.REAL),
    (
        "fp-verdict-but-real-class",
        decision(classification=Classification.REAL, verdict=Verdict.FALSE_POSITIVE),
        {},
        Hold.REAL,
    ),
    (
        "affected",
        decision(classification=Classification.AFFECTED, verdict=Verdict.FALSE_POSITIVE),
        {},
        Hold.REAL,
    ),
    ("inconclusive", decision(verdict=Verdict.INCONCLUSIVE), {}, Hold.INCONCLUSIVE),
    ("low-confidence", decision(confidence=6.9), {}, Hold.LOW_CONFIDENCE),
    ("scorer-only", decision(validations=()), {}, Hold.SOFT_EVIDENCE),
    (
        "live-valid-outranks-checksum",
        decision(validations=(LIVE_VALID, CHECKSUM_INVALID)),
        {},
        Hold.SOFT_EVIDENCE,
    ),
    (
        "resolved-by-someone",
        decision(),
        {"alert_state": AlertState.RESOLVED},
        Hold.ALREADY_RESOLVED,
    ),
    (
        "reopened",
        decision(),
        {"alert_state": AlertState.OPEN, "applied": APPLIED},
        Hold.REOPENED_AFTER_RESOLVE,
    ),
    (
        "already-applied",
        decision(),
        {"alert_state": AlertState.RESOLVED, "applied": APPLIED},
        Hold.ALREADY_APPLIED,
    ),
    ("cap", decision(), {"remaining": 0}, Hold.APPLY_CAP),
    ("active", decision(), {"validity": AlertValidity.ACTIVE}, Hold.ACTIVE),
]


@pytest.mark.parametrize(
    ("made", "overrides", "hold"), [h[1:] for h in HELD], ids=[h[0] for h in HELD]
)
def test_holds(made: Decision, overrides: dict[str, Any], hold: Hold) -> None:
    action = _plan(made, **overrides)
    assert action.kind is ActionKind.NONE
    assert action.hold is hold
    assert action.resolution is None
    assert action.comment is None
    assert action.detail


def test_every_hold_has_a_case() -> None:
    # CHANGED_SINCE_LISTED is the last look's, not plan's: tests/triage/test_apply.py
    assert {h[3] for h in HELD} == set(Hold) - {Hold.CHANGED_SINCE_LISTED}


INCOMPLETE: list[tuple[str, Decision]] = [
    (
        "errors",
        _tribunal().model_copy(
            update={"errors": (DecisionError(stage="judge", error="Timeout", message="late"),)}
        ),
    ),
    ("unchallenged", _tribunal(challenged=False)),
    ("no-winner", _tribunal(winner=-1)),
    ("winner-out-of-range", _tribunal(winner=3)),
    ("not-escalated", _tribunal().model_copy(update={"escalated": False})),
    ("no-judge", _tribunal().model_copy(update={"judge": None})),
    ("no-entries", _tribunal().model_copy(update={"entries": ()})),
    (
        "judge-disagrees",
        _tribunal()
        .model_copy(update={"verdict": Verdict.FALSE_POSITIVE})
        .model_copy(
            update={
                "judge": _tribunal(verdict=Verdict.INCONCLUSIVE).judge,
            }
        ),
    ),
    ("heuristic", _tribunal().model_copy(update={"decided_by": DecidedBy.HEURISTIC})),
    ("guardrail", _tribunal().model_copy(update={"decided_by": DecidedBy.GUARDRAIL})),
]


@pytest.mark.parametrize("made", [i[1] for i in INCOMPLETE], ids=[i[0] for i in INCOMPLETE])
def test_an_incomplete_tribunal_without_hard_evidence_is_soft(made: Decision) -> None:
    assert not completed_tribunal(made)
    assert _plan(made).hold is Hold.SOFT_EVIDENCE


def test_a_person_reopening_wins_over_everything() -> None:
    action = _plan(
        decision(confidence=10.0), applied=APPLIED, validity=AlertValidity.INACTIVE, remaining=9
    )
    assert action.hold is Hold.REOPENED_AFTER_RESOLVE
    assert "run-0" in action.detail


def test_active_validity_wins_over_hard_evidence_and_a_tribunal() -> None:
    made = _tribunal().model_copy(update={"validations": (CHECKSUM_INVALID,)})
    assert _plan(made, validity=AlertValidity.ACTIVE).hold is Hold.ACTIVE


def test_the_cap_is_checked_only_for_what_would_be_resolved() -> None:
    assert _plan(decision(confidence=1.0), remaining=0).hold is Hold.LOW_CONFIDENCE


@pytest.mark.parametrize("value", [-0.1, 10.5, 70.0])
def test_min_confidence_outside_the_scale_is_a_usage_error(value: float) -> None:
    with pytest.raises(UsageError, match="--apply-min-confidence") as caught:
        _plan(decision(), min_confidence=value)
    assert caught.value.exit_code is ExitCode.USAGE


# -- the comment -------------------------------------------------------------------------


def test_the_comment_never_carries_the_value_it_quotes() -> None:
    token = github_token(seed=99)
    made = decision(token, rationale=f"the fixture sets GITHUB_TOKEN={token} for a fake client")
    comment = resolution_comment(made, RUN, Redactor([token]))
    assert token not in comment
    assert token[4:16] not in comment
    assert redact_value(token) in comment  # the redacted form is kept: it names the value
    assert RUN in comment
    assert "fake client" in comment
    assert len(comment) <= COMMENT_LIMIT


def test_the_comment_strips_value_shaped_words_the_redactor_did_not_know() -> None:
    token = github_token(seed=5)
    other = random_secret(32, seed=8)
    password = "hunter2horse9"
    made = decision(rationale=f"fixture quotes {token}, '{other}' and password={password} in tests")
    comment = resolution_comment(made, RUN, Redactor())
    for value in (token, other, password):
        assert value not in comment
    assert "fixture quotes" in comment
    assert "in tests" in comment


def test_a_long_rationale_is_cut_and_the_run_reference_kept() -> None:
    made = decision(rationale="because " + "the value sits in a fixture " * 40)
    comment = resolution_comment(made, RUN, None)
    assert len(comment) == COMMENT_LIMIT
    assert comment.endswith(f"[run {RUN}]")
    assert "…" in comment


def test_an_overlong_run_reference_is_capped() -> None:
    comment = resolution_comment(decision(), "r" * 500, None)
    assert len(comment) <= COMMENT_LIMIT


def test_a_multi_line_rationale_becomes_one_line() -> None:
    comment = resolution_comment(decision(rationale="first line\n\nsecond\tline"), "run-1", None)
    assert "\n" not in comment
    assert "first line second line" in comment


def test_scrub_keeps_redacted_forms_and_ordinary_words() -> None:
    text = (
        "value ghp_…Xk2 (40 chars) and [REDACTED:github-token:3f2a] in "
        "tests/fixtures/github_client_test.py, P(real) = 0.12"
    )
    assert scrub(text) == text


def test_scrub_judges_a_path_part_by_part() -> None:
    base64ish = "dGhpcyBpcyBub3Q/YSByZWFsIHZhbHVlMTIz/c2VjcmV0"
    assert scrub(f"see {base64ish} here") == "see […] here"


def test_hold_action_changes_nothing() -> None:
    action = hold_action(Hold.INCONCLUSIVE, "not decided: the contents API failed")
    assert action.kind is ActionKind.NONE
    assert action.resolution is None
    assert action.comment is None
