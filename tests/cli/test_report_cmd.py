"""``thresher report merge``: shards in, one JSON, Markdown and job summary out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from tests.triage.reports import outcome, shard_report
from thresher.triage.report import TriageReport

Cli = Callable[..., Result]


def _write(path: Path, report: TriageReport) -> Path:
    path.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    return path


@pytest.fixture
def shards(tmp_path: Path) -> list[Path]:
    return [
        _write(tmp_path / "shard-1.json", shard_report("1/2", [outcome("octo/a", 1)])),
        _write(tmp_path / "shard-2.json", shard_report("2/2", [outcome("octo/b", 7)])),
    ]


def test_merge_writes_json_and_markdown(cli: Cli, shards: list[Path], tmp_path: Path) -> None:
    out, md = tmp_path / "out" / "merged.json", tmp_path / "merged.md"
    result = cli("report", "merge", *map(str, shards), "--json", str(out), "--markdown", str(md))
    assert result.exit_code == 0, result.output
    merged = TriageReport.model_validate_json(out.read_text())
    assert [(a.repo, a.number) for a in merged.alerts] == [("octo/a", 1), ("octo/b", 7)]
    assert merged.shards == ("1/2", "2/2")
    assert merged.summary.would_resolve == 2
    assert "### Would be resolved with --apply (2)" in md.read_text()


def test_merge_without_outputs_prints_the_json(cli: Cli, shards: list[Path]) -> None:
    result = cli("report", "merge", *map(str, shards))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["alerts"] == 2


def test_merge_appends_to_the_step_summary(
    cli: Cli, shards: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = cli("report", "merge", *map(str, shards), "--summary")
    assert result.exit_code == 0, result.output
    text = summary.read_text()
    assert text.startswith("earlier step\n## thresher triage")
    assert result.stdout == ""


def test_summary_without_github_step_summary_is_a_usage_error(
    cli: Cli, shards: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    result = cli("report", "merge", *map(str, shards), "--summary")
    assert result.exit_code == 2
    assert "GITHUB_STEP_SUMMARY is not set" in result.output


def test_a_missing_input_names_the_file(cli: Cli, shards: list[Path], tmp_path: Path) -> None:
    missing = tmp_path / "shard-3.json"
    result = cli("report", "merge", str(shards[0]), str(missing))
    assert result.exit_code == 2
    assert f"{missing}: cannot read" in result.output
    assert "Traceback" not in result.output


def test_an_input_that_is_not_json_names_the_file(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = cli("report", "merge", str(bad))
    assert result.exit_code == 2
    assert f"{bad}: not JSON" in result.output


def test_an_invalid_field_names_the_file_and_the_field(
    cli: Cli, shards: list[Path], tmp_path: Path
) -> None:
    data = json.loads(shards[1].read_text())
    data["alerts"][0]["state_before"] = "dismissed"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    result = cli("report", "merge", str(shards[0]), str(bad))
    assert result.exit_code == 2
    assert f"{bad}: field 'alerts.0.state_before'" in result.output


def test_a_scan_report_is_not_a_triage_report(cli: Cli, tmp_path: Path) -> None:
    scan = tmp_path / "scan.json"
    scan.write_text(json.dumps({"schema_version": "1.1", "tool": "thresher", "decisions": []}))
    result = cli("report", "merge", str(scan))
    assert result.exit_code == 2
    assert f"{scan}: field '" in result.output


def test_a_newer_schema_is_refused(cli: Cli, shards: list[Path], tmp_path: Path) -> None:
    data = json.loads(shards[0].read_text())
    data["schema_version"] = "2.0"
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(data))
    result = cli("report", "merge", str(newer))
    assert result.exit_code == 2
    assert f"{newer}: field 'schema_version'" in result.output


def test_a_duplicate_alert_names_both_files(cli: Cli, shards: list[Path], tmp_path: Path) -> None:
    copy = _write(tmp_path / "copy.json", shard_report("2/2", [outcome("octo/a", 1)]))
    result = cli("report", "merge", str(shards[0]), str(copy))
    assert result.exit_code == 2
    assert f"octo/a#1 is in both {shards[0]} and {copy}" in result.output


def test_an_output_directory_is_refused_before_reading(cli: Cli, shards: list[Path]) -> None:
    result = cli("report", "merge", *map(str, shards), "--json", str(shards[0].parent))
    assert result.exit_code == 2
    assert "--json" in result.output


def test_merge_needs_at_least_one_input(cli: Cli) -> None:
    result = cli("report", "merge")
    assert result.exit_code == 2
