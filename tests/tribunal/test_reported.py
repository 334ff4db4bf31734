"""The JSON report's decisions (schema 2.0): an offline decision without its synthetic
panel, one line each, small, loading back, valid against the published schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.scan.test_scan_e2e import make_demo
from thresher.config.settings import Settings
from thresher.reports import render_json, report_schema
from thresher.scan.outcome import ScanOutcome, ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.policy import Escalate
from thresher.tribunal.decisions import RunReport
from thresher.tribunal.reported import PANEL_FIELDS, decision_line, reported

pytestmark = pytest.mark.slow  # a scan of the demo workspace, which a subprocess generates

# Issue 26: at most 1.5 KB a decision of an offline run, on average (the dev corpus
# averages ~1.4 KB).
MAX_OFFLINE_AVERAGE = 1536


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> ScanOutcome:
    tmp = tmp_path_factory.mktemp("reported")
    root, _ = make_demo(tmp, seed=0)  # the same decisions every run: the size is an average
    request = ScanRequest(root=root, runs_dir=tmp / "runs", escalate=Escalate.NEVER)
    return run_scan(request, Settings(), environ={}, offline_workers=0)


def test_an_offline_decision_is_written_without_its_panel(offline: ScanOutcome) -> None:
    decisions = offline.report.decisions
    assert decisions and all(d.entries and not d.escalated for d in decisions)  # in memory
    sizes = [len(decision_line(d)[0].encode()) for d in decisions]
    assert sum(sizes) / len(sizes) <= MAX_OFFLINE_AVERAGE
    for decision in decisions:
        line, exact = decision_line(decision)
        data = json.loads(line)
        assert exact and not PANEL_FIELDS & data.keys()
        assert data["assessment"]["top_features"][0][0]  # [feature, contribution]
        assert "guardrail" not in data and "usage" not in data  # at their default
        assert data["finding"]["locations"][0]["kind"] == "file"  # the union's tag stays


def test_the_report_loads_back_and_matches_its_schema(offline: ScanOutcome) -> None:
    text = render_json(offline.report)
    assert text == offline.report_json
    loaded = RunReport.model_validate_json(text)
    assert loaded.decisions == tuple(reported(d) for d in offline.report.decisions)
    validator = jsonschema.Draft202012Validator(report_schema())
    assert not list(validator.iter_errors(json.loads(text)))


def test_the_journal_holds_the_report_lines(offline: ScanOutcome) -> None:
    journal = (offline.run_dir / "decisions.jsonl").read_text().splitlines()
    # in the tribunal's order, the report in the findings'
    assert sorted(journal) == sorted(decision_line(d)[0] for d in offline.report.decisions)


def test_an_escalated_decision_keeps_its_panel(offline: ScanOutcome) -> None:
    decision = offline.report.decisions[0].model_copy(update={"escalated": True})
    data = json.loads(decision_line(decision)[0])
    assert data["entries"] and data["judge"] and data["judge_model"]
    assert reported(decision) is decision


def test_the_run_directory_does_not_repeat_the_panel(offline: ScanOutcome) -> None:
    report = (offline.run_dir / "report.json").read_text()
    assert '"entries"' not in report and '"challenge"' not in report
    assert Path(offline.run_dir / "offline.jsonl").is_file()  # the panel's evidence, once
