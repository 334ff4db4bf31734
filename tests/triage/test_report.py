"""The triage report: summary counts, merging shards, and the job summary Markdown."""

from __future__ import annotations

import pytest

from thresher.errors import ExitCode
from thresher.findings import AlertState
from thresher.findings.results import Classification, Verdict
from thresher.triage.policy import ActionKind, Hold
from thresher.triage.report import (
    ReportMergeError,
    TriageFilters,
    TriageReport,
    job_key,
    merge,
    render_markdown,
)
from thresher.tribunal.decisions import DecisionError

from .reports import START, outcome, shard_report


def test_the_summary_counts_verdicts_classes_resolutions_and_holds() -> None:
    report = shard_report(
        "1/2",
        [
            outcome("octo/a", 1),
            outcome("octo/a", 2, classification=Classification.REAL),
            outcome("octo/a", 3, confidence=3.0),
            outcome("octo/a", 4, classification=Classification.NOT_SECRET, error="PATCH 422"),
        ],
    )
    s = report.summary
    assert s.alerts == 4
    assert s.by_verdict == {Verdict.TRUE_POSITIVE: 1, Verdict.FALSE_POSITIVE: 3}
    assert s.by_classification == {
        Classification.REAL: 1,
        Classification.TEST: 2,
        Classification.NOT_SECRET: 1,
    }
    assert s.would_resolve == 2
    assert s.resolved == 0
    assert s.held == {Hold.REAL: 1, Hold.LOW_CONFIDENCE: 1}
    assert s.alert_errors == 1


def test_a_report_round_trips_through_json() -> None:
    report = shard_report("1/1", [outcome("octo/a", 1)])
    assert TriageReport.model_validate_json(report.model_dump_json()) == report


def test_merge_combines_the_shards_of_one_job() -> None:
    one = shard_report("1/2", [outcome("octo/b", 2), outcome("octo/b", 1)])
    two = shard_report(
        "2/2",
        [outcome("octo/a", 5, classification=Classification.REAL)],
    ).model_copy(update={"stopped": "rate limit until 07:00", "targets": ("octo", "octo2")})
    merged = merge([one, two], names=["one.json", "two.json"])
    assert [(a.repo, a.number) for a in merged.alerts] == [
        ("octo/a", 5),
        ("octo/b", 1),
        ("octo/b", 2),
    ]
    assert merged.summary.alerts == 3
    assert merged.summary.would_resolve == 2
    assert merged.summary.held == {Hold.REAL: 1}
    assert merged.shards == ("1/2", "2/2")
    assert merged.shard is None
    assert merged.merged_from == ("run-1of2", "run-2of2")
    assert merged.run_id.startswith("merged-")
    assert merged.started_at == one.started_at
    assert merged.finished_at == two.finished_at
    assert merged.targets == ("octo", "octo2")
    assert merged.stopped == "two.json: rate limit until 07:00"
    assert merged.dry_run


def test_merging_is_stable_whatever_the_input_order() -> None:
    one = shard_report("1/2", [outcome("octo/b", 1)])
    two = shard_report("2/2", [outcome("octo/a", 1)])
    assert merge([one, two]) == merge([two, one])


def test_merging_a_merged_report_keeps_its_shards_and_runs() -> None:
    first = merge([shard_report("1/3", [outcome("octo/a", 1)]), shard_report("2/3", [])])
    again = merge([first, shard_report("3/3", [outcome("octo/c", 1)])])
    assert again.shards == ("1/3", "2/3", "3/3")
    assert set(again.merged_from) >= {"run-1of3", "run-2of3", "run-3of3"}


def test_run_errors_are_kept() -> None:
    error = DecisionError(stage="github", error="RateLimited", message="stopped")
    one = shard_report("1/2", []).model_copy(update={"errors": (error,)})
    merged = merge([one, shard_report("2/2", [])])
    assert merged.errors == (error,)
    assert merged.summary.run_errors == 1


def test_an_alert_in_two_inputs_names_both_files() -> None:
    one = shard_report("1/2", [outcome("octo/a", 1)])
    two = shard_report("2/2", [outcome("octo/a", 1)])
    with pytest.raises(
        ReportMergeError, match=r"octo/a#1 is in both a\.json and b\.json"
    ) as caught:
        merge([one, two], names=["a.json", "b.json"])
    assert caught.value.exit_code is ExitCode.USAGE


def test_dry_run_and_applied_reports_do_not_merge() -> None:
    one = shard_report("1/2", [])
    two = shard_report("2/2", [], dry_run=False)
    with pytest.raises(ReportMergeError, match=r"b\.json and a\.json differ in 'dry_run'"):
        merge([one, two], names=["a.json", "b.json"])


def test_reports_with_different_filters_do_not_merge() -> None:
    one = shard_report("1/2", [])
    two = shard_report("2/2", []).model_copy(
        update={"filters": TriageFilters(states=(AlertState.RESOLVED,))}
    )
    with pytest.raises(ReportMergeError, match="differ in 'filters'"):
        merge([one, two], names=["a.json", "b.json"])


def test_nothing_to_merge_is_an_error() -> None:
    with pytest.raises(ReportMergeError, match="nothing to merge"):
        merge([])


def test_markdown_shows_counts_what_would_be_resolved_and_holds() -> None:
    report = shard_report(
        "1/2",
        [
            outcome("octo/a", 1),
            outcome("octo/a", 2, classification=Classification.REAL),
            outcome("octo/a", 3, error="PATCH failed with 422"),
        ],
    )
    text = render_markdown(report)
    assert "## thresher triage (dry run: nothing was changed)" in text
    assert "| Would resolve | 2 |" in text
    assert "### Would be resolved with --apply (2)" in text
    assert "[octo/a\\#1](https://github.com/octo/a/security/secret-scanning/1)" in text
    assert "used_in_tests" in text
    assert "| real | 1 |" in text
    assert "### Errors (1)" in text
    assert "PATCH failed with 422" in text


def test_markdown_of_an_applied_run_says_resolved() -> None:
    report = shard_report("1/1", [outcome("octo/a", 1, applied=True)], dry_run=False)
    text = render_markdown(report)
    assert "(--apply)" in text
    assert "| Resolved | 1 |" in text
    assert "### Resolved (1)" in text
    assert "| applied |" in text


def test_markdown_escapes_hostile_text_and_links_only_plain_https_urls() -> None:
    hostile = outcome("octo/a", 1).model_copy(
        update={"html_url": "javascript:alert(1)", "secret_type": "<img src=x> | @admins"}
    )
    text = render_markdown(shard_report("1/1", [hostile]))
    assert "javascript:" not in text
    assert "<img" not in text
    assert "&lt;img src=x&gt; \\| @\u200badmins" in text


def test_markdown_names_missing_shards_and_an_early_stop() -> None:
    merged = merge([shard_report("1/3", []), shard_report("3/3", [])]).model_copy(
        update={"stopped": "rate limit"}
    )
    text = render_markdown(merged)
    assert "no report for shard(s) 2/3" in text
    assert "**Stopped early:** rate limit" in text


def test_markdown_stays_under_the_limit_with_a_note() -> None:
    alerts = [
        outcome("octo/a", n, rationale="the value sits in a test fixture " * 20)
        for n in range(1, 400)
    ]
    report = shard_report("1/1", alerts)
    limit = 20_000
    text = render_markdown(report, limit=limit)
    assert len(text.encode()) <= limit
    assert "more rows are not shown" in text
    assert all(a.action.kind is ActionKind.RESOLVE for a in alerts)


@pytest.mark.slow
def test_the_default_limit_is_one_mebibyte() -> None:
    alerts = [outcome("octo/big", n) for n in range(1, 9000)]
    text = render_markdown(shard_report("1/1", alerts))
    assert len(text.encode()) <= 1024 * 1024
    assert "more rows are not shown" in text
    assert START.year == 2026


def test_the_job_key_identifies_targets_filters_shard_and_mode() -> None:
    filters = TriageFilters()
    key = job_key(["octo/a", "Octo/B"], filters, "1/4", apply=True)
    assert key == job_key(["octo/b", "octo/a"], TriageFilters(), "1/4", apply=True)
    assert key != job_key(["octo/a", "octo/b"], filters, "2/4", apply=True)
    assert key != job_key(["octo/a", "octo/b"], filters, None, apply=True)
    assert key != job_key(["octo/a"], filters, "1/4", apply=True)
    resolved = TriageFilters(states=(AlertState.RESOLVED,))
    assert key != job_key(["octo/a", "octo/b"], resolved, "1/4", apply=True)
    # A dry run's checkpoint is never an --apply run's (nor the other way round).
    assert key != job_key(["octo/a", "octo/b"], filters, "1/4", apply=False)
