"""The judgement rule both panels share."""

from __future__ import annotations

from thresher.findings.results import Classification, JudgeResult, Verdict
from thresher.tribunal.decisions import DecisionError
from thresher.tribunal.fallbacks import valid_judgement


def judgement(winner: int) -> JudgeResult:
    return JudgeResult(
        winner_index=winner,
        rationale="report holds",
        final_verdict=Verdict.TRUE_POSITIVE,
        final_classification=Classification.REAL,
    )


def test_a_judge_picking_a_report_that_does_not_exist_is_dropped_with_an_error() -> None:
    errors: list[DecisionError] = []
    assert valid_judgement(judgement(2), 2, errors) is None
    assert [(e.stage, e.error) for e in errors] == [("judge", "InvalidWinner")]
    assert "report 2 of 2" in errors[0].message


def test_a_valid_judgement_or_none_passes_unchanged() -> None:
    errors: list[DecisionError] = []
    valid = judgement(1)
    assert valid_judgement(valid, 2, errors) is valid
    assert valid_judgement(judgement(-1), 2, errors) is not None
    assert valid_judgement(None, 2, errors) is None
    assert errors == []
