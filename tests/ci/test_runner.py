"""Which findings become annotations, what the job summary adds, and the last-line scrub."""

from __future__ import annotations

import pytest
from tests.reports.builders import Sample, decision_for, finding_for, run_report
from tests.tokens import github_token

from thresher.ci.commands import Level, cap_annotations
from thresher.ci.comment import CommentAction, CommentResult
from thresher.ci.runner import annotations_for, job_summary, scrub
from thresher.ci.scope import Scope, ScopeKind
from thresher.scan.outcome import FailOn

SCOPE = Scope(ScopeKind.RANGE, "the lines pull request #1 adds", "a" * 40, "b" * 40)


def levels(fail_on: FailOn) -> list[tuple[str, Level]]:
    sample = Sample()
    return [(a.file or "", a.level) for a in annotations_for(sample.report, fail_on)]


def test_errors_follow_fail_on_and_other_findings_that_need_a_look_are_warnings() -> None:
    real = levels(FailOn.REAL)
    assert ("app/settings.py", Level.ERROR) in real
    assert ("./config/app.ini", Level.WARNING) in real  # inconclusive, below --fail-on real
    assert all(path != "tests/fixtures/tokens.py" for path, _ in real)  # false positive
    assert real[0][1] is Level.ERROR  # riskiest first: the cap keeps what matters
    assert {level for _, level in levels(FailOn.UNCERTAIN)} == {Level.ERROR}
    assert len(levels(FailOn.ANY)) == 4  # even the false positive fails the run
    assert {level for _, level in levels(FailOn.NEVER)} == {Level.WARNING}


def test_the_summary_says_what_was_scanned_and_what_was_left_out() -> None:
    many = [decision_for(finding_for(github_token(seed=i))) for i in range(14)]
    report = run_report(many)
    capped = cap_annotations(annotations_for(report, FailOn.REAL))
    note = "The pull-request comment was skipped: no token."
    text = job_summary(report, SCOPE, capped, CommentResult(CommentAction.SKIPPED, note=note))
    assert "**Scanned:** the lines pull request #1 adds." in text
    assert f"> 💬 {note}" in text
    assert "> ✂️ 4 error annotation(s) not shown" in text
    assert text.index("**Scanned:**") < text.index("<sub>Usage")
    # Every escalated finding's report follows the summary.
    assert text.count("A live-format token is hard-coded") >= 14


def test_scrub_removes_every_raw_value_longest_first() -> None:
    text = "key ABCDEF123456 and ABCDEF123456789 here"
    assert scrub(text, ["ABCDEF123456", "ABCDEF123456789"]) == "key [redacted] and [redacted] here"
    assert scrub("nothing", ["ABCDEF123456"]) == "nothing"


@pytest.mark.slow
def test_finding_reports_that_do_not_fit_one_mebibyte_are_left_out_with_a_note() -> None:
    from thresher.ci.commands import MAX_SUMMARY_BYTES

    long = "The token is assigned in production settings and used by the deploy job. " * 25
    many = [decision_for(finding_for(github_token(seed=i)), key_finding=long) for i in range(900)]
    report = run_report(many)
    capped = cap_annotations(annotations_for(report, FailOn.REAL))
    text = job_summary(report, SCOPE, capped, CommentResult(CommentAction.DISABLED))
    assert len(text.encode("utf-8")) <= MAX_SUMMARY_BYTES
    assert "finding report(s) left out to stay under GitHub's 1 MiB job-summary limit" in text
