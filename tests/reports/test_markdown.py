"""Markdown summary and per-finding reports: escaped, collapsed, never a raw value."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.reports.builders import Sample, decision_for, finding_for, run_report
from tests.tokens import github_token
from thresher.agents.prompts import PromptRenderer
from thresher.findings.results import Classification
from thresher.findings.skips import SkipReason
from thresher.reports import STICKY_MARKER, render_finding, render_summary
from thresher.tribunal.decisions import ScanSummary


@pytest.fixture
def sample() -> Sample:
    return Sample()


def _table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def _cells(row: str) -> list[str]:
    """Split a table row on unescaped pipes, as GitHub does."""
    return re.split(r"(?<!\\)\|", row)[1:-1]


def test_summary_starts_with_the_sticky_marker(sample: Sample) -> None:
    text = render_summary(sample.report)
    assert text.splitlines()[0] == STICKY_MARKER
    assert "## 🔴 thresher: 3 findings need action" in text
    assert "**4** candidates triaged: 🔴 **2** true positive · 🟡 **1** inconclusive" in text


def test_summary_lists_action_first_and_collapses_false_positives(sample: Sample) -> None:
    text = render_summary(sample.report)
    action, _, rest = text.partition("<details>")
    assert action.index("TRUE_POSITIVE (real)") < action.index("INCONCLUSIVE (real)")
    assert "app/settings.py:3 (+2 more)" in action
    assert "tests/fixtures/tokens.py" not in action
    assert "<summary>⚪ 1 false positive</summary>" in rest
    details = rest.partition("</details>")[0]
    assert "tests/fixtures/tokens.py:7" in details
    assert "| test | 9.1/10 (high) | heuristic |" in details


def test_summary_tables_keep_their_shape_and_escape_hostile_text(sample: Sample) -> None:
    text = render_summary(sample.report)
    for row in _table_rows(text):
        assert len(_cells(row)) == 7, row
    assert "src/a\\|b \\`x\\`.py:9" in text
    assert "<script>" not in text
    assert "Lives in a test fixture \\| used only by unit tests." in text


def test_summary_shows_redacted_values_never_raw_ones(sample: Sample) -> None:
    text = render_summary(sample.report)
    for raw in sample.raws:
        assert raw not in text
    assert (
        "ghp\\_"
        + sample.real.finding.redacted.removeprefix("ghp_").replace("(", "\\(").replace(")", "\\)")
        in text
    )


def test_summary_usage_line(sample: Sample) -> None:
    text = render_summary(sample.report)
    assert (
        "Usage: 12 model requests · 34,567 input (20,480 cached) + 890 output tokens · 115.0 s"
        in text
    )
    assert "models: analysis openai:gpt-4o, judge gemini:gemini-2.0-flash" in text


def test_summary_with_nothing_to_do() -> None:
    dismissed = decision_for(
        finding_for(github_token(seed=3)), classification=Classification.NOT_SECRET
    )
    text = render_summary(run_report([dismissed]))
    assert "## ✅ thresher: no findings need action" in text
    assert "Findings that need action" not in text
    assert "<details>" in text
    assert render_summary(run_report([])).count("<details>") == 0


def test_summary_caps_rows(sample: Sample) -> None:
    text = render_summary(sample.report, max_rows=1)
    assert "… and 2 more in the JSON report." in text
    assert len(_table_rows(text.partition("<details>")[0])) == 2 + 1


def test_summary_breaks_mentions(sample: Sample) -> None:
    dismissed = decision_for(
        finding_for(github_token(seed=6)),
        classification=Classification.TEST,
        key_finding="Fixture owned by @octocat and @org/team",
    )
    text = render_summary(run_report([dismissed]))
    assert "@octocat" not in text and "@org" not in text
    assert "@\u200boctocat" in text


def test_summary_marker_survives_a_custom_template(tmp_path: Path, sample: Sample) -> None:
    (tmp_path / "summary.md.j2").write_text("custom {{ total }}\n")
    text = render_summary(sample.report, renderer=PromptRenderer(tmp_path))
    assert text == f"{STICKY_MARKER}\ncustom 4\n"


def test_finding_report_has_every_part_of_the_decision(sample: Sample) -> None:
    text = render_finding(sample.real)
    assert text.startswith("## 🔴 GitHub Token — TRUE_POSITIVE (real)\n")
    assert "| Locations | app/settings.py:3<br>deploy/env.sh:12<br>docs/setup.md:40 |" in text
    assert "| Compliance | 50% (1 skills loaded; skipped: b) |" in text
    assert "### Analysis report 0 (chosen by the judge): TRUE_POSITIVE (real)" in text
    assert "- ✅ citations exist" in text
    assert "- ❌ verdict matches classification: x\\|y" in text
    assert "(T1, T3)" in text
    assert "**Challenge** (anthropic:claude-sonnet): **CONFIRMED**" in text
    assert "- Verification reproduced: yes — checksum valid" in text
    assert "### Judgement (gemini:gemini-2.0-flash)" in text
    assert "- Report 0: 8.5/10 — Cites every claim." in text
    assert "### Remediation\n\n1. Revoke the token\n2. Load it from the secret store" in text
    assert "| github-checksum | checksum | valid | CRC32 matches |" in text
    for raw in sample.raws:
        assert raw not in text


def test_finding_report_escapes_model_text(sample: Sample) -> None:
    text = render_finding(sample.hostile)
    assert "\\<script\\>" in text and "<script>" not in text
    assert "\\`config\\|prod\\`" in text
    assert "\\*\\*bold\\*\\*" in text
    assert "\\[x\\]\\(https://evil.test\\)" in text
    assert "@\u200boctocat" in text
    for row in _table_rows(text):
        assert len(_cells(row)) in (2, 4), row


def test_finding_report_without_a_tribunal_falls_back_to_catalog_remediation() -> None:
    heuristic_real = decision_for(finding_for(github_token(seed=12)), with_tribunal=False)
    text = render_finding(heuristic_real)
    assert "No analysis report was recorded for this finding." in text
    assert "**Key finding:**" not in text
    assert "### Judgement" not in text
    assert "1. Revoke the token in the owner's GitHub settings" in text

    dismissed = decision_for(
        finding_for(github_token(seed=13)),
        classification=Classification.TEST,
        with_tribunal=False,
    )
    assert "### Remediation" not in render_finding(dismissed)


def test_finding_report_multiline_text_cannot_start_blocks() -> None:
    decision = decision_for(
        finding_for(github_token(seed=14)),
        key_finding="first line\n---\n# heading\n\n- list",
    )
    text = render_finding(decision)
    assert "first line --- \\# heading - list" in text
    assert "\n---\n" not in text


def test_summary_says_what_was_scanned_and_warns_about_skipped_files(sample: Sample) -> None:
    clean = sample.report.model_copy(update={"scan": ScanSummary(files_scanned=120)})
    assert "\nScanned 120 files; skipped 0.\n" in render_summary(clean)
    skipped = sample.report.model_copy(
        update={
            "scan": ScanSummary(
                files_scanned=120,
                files_skipped=3,
                skipped={SkipReason.BINARY: 1, SkipReason.UNREADABLE: 1, SkipReason.TOO_LARGE: 1},
                decoded_with_fallback=2,
            )
        }
    )
    text = render_summary(skipped)
    assert (
        "> ⚠️ Scanned 120 files; skipped 3 (1 unreadable, 1 too large, 1 binary); "
        "2 decoded as Windows-1252/Latin-1, not UTF-8. Run `thresher -v scan`"
    ) in text
    # Above the tables, where a reviewer reads first.
    assert text.index("skipped 3") < text.index("### Findings that need action")


def test_a_custom_template_still_warns_about_skipped_files(tmp_path: Path, sample: Sample) -> None:
    (tmp_path / "summary.md.j2").write_text("custom {{ total }}\n")
    report = sample.report.model_copy(
        update={
            "scan": ScanSummary(files_scanned=1, files_skipped=1, skipped={SkipReason.BINARY: 1})
        }
    )
    text = render_summary(report, renderer=PromptRenderer(tmp_path))
    assert text.startswith(f"{STICKY_MARKER}\ncustom 4\n")
    assert text.rstrip().endswith(
        "skipped 1 (1 binary). Run `thresher -v scan` to list the skipped files."
    )
