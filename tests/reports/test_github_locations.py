"""Findings GitHub reports outside the tree (an issue, a wiki page) in every format:
valid SARIF with absolute addresses, readable Markdown and tables, JSON that loads back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.reports.builders import decision_for, finding_for, run_report
from tests.tokens import github_token
from thresher.findings import (
    AlertState,
    GitHubAlertSource,
    GitHubLocationType,
    Location,
    TextLocation,
    WikiLocation,
)
from thresher.reports import render_finding, render_json, render_sarif, render_summary
from thresher.reports.views import location_text
from thresher.tribunal.decisions import Decision, RunReport

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "../shared/schemas/sarif-schema-2.1.0.json"
COMMENT = "https://github.com/octo/app/issues/7#issuecomment-99"
WIKI = "https://github.com/octo/app/wiki/Deploy"
TEXT = TextLocation(type=GitHubLocationType.ISSUE_COMMENT, url=COMMENT)
PAGE = WikiLocation(path="Deploy.md", line=4, commit="d" * 40, url=WIKI)


def _github_decision(raw: str, *locations: Location | WikiLocation | TextLocation) -> Decision:
    finding = finding_for(raw, rule_id="github_personal_access_token").model_copy(
        update={
            "locations": locations,
            "source": GitHubAlertSource(
                repo="octo/app",
                number=7,
                url="https://api.github.com/repos/octo/app/secret-scanning/alerts/7",
                state=AlertState.OPEN,
            ),
        }
    )
    return decision_for(finding)


@pytest.fixture
def report() -> RunReport:
    return run_report(
        [
            _github_decision(github_token(seed=61), TEXT),
            _github_decision(github_token(seed=62), PAGE, TEXT),
            _github_decision(
                github_token(seed=63), Location(path="app.py", line=2, url="https://x.test/b")
            ),
        ]
    )


def _results(report: RunReport) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = json.loads(render_sarif(report))["runs"][0]["results"]
    return results


def test_non_file_locations_give_sarif_valid_against_the_schema(report: RunReport) -> None:
    if not SCHEMA_PATH.is_file():
        pytest.skip(f"SARIF 2.1.0 schema not found at {SCHEMA_PATH.resolve()}")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    log = json.loads(render_sarif(report))
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_sarif_links_text_and_wiki_pages_by_their_absolute_address(report: RunReport) -> None:
    by_first = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r
        for r in _results(report)
    }
    text = by_first[COMMENT]["locations"][0]
    assert text["physicalLocation"] == {"artifactLocation": {"uri": COMMENT}}  # no %SRCROOT%
    assert text["logicalLocations"] == [{"name": "issue_comment", "kind": "resource"}]
    wiki = by_first[WIKI]
    assert wiki["locations"][0]["physicalLocation"]["region"] == {"startLine": 4}
    assert wiki["locations"][0]["logicalLocations"] == [
        {"name": "wiki:Deploy.md", "kind": "resource"}
    ]
    related = wiki["relatedLocations"][0]["physicalLocation"]["artifactLocation"]
    assert related == {"uri": COMMENT}
    # A file keeps its repository-relative URI even when GitHub gave its blob address.
    assert by_first["app.py"]["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "app.py",
        "uriBaseId": "%SRCROOT%",
    }


def test_sarif_leaves_out_an_address_that_is_not_http() -> None:
    hostile = TextLocation(type=GitHubLocationType.ISSUE_BODY, url="javascript:alert(1)")
    (result,) = _results(run_report([_github_decision(github_token(seed=64), hostile)]))
    assert "locations" not in result
    assert result["properties"]["findingId"]


def test_markdown_and_tables_name_the_place_and_its_address(report: RunReport) -> None:
    assert location_text(TEXT) == f"issue comment {COMMENT}"
    assert location_text(PAGE) == f"wiki Deploy.md:4 ({WIKI})"
    assert location_text(Location(path="app.py", line=2)) == "app.py:2"
    summary = render_summary(report)
    assert "issue comment https://github.com/octo/app/issues/7" in summary
    detail = render_finding(report.decisions[1])
    assert "wiki Deploy.md:4" in detail and "issue comment" in detail


def test_the_json_report_loads_back_with_every_location_kind(report: RunReport) -> None:
    text = render_json(report)
    assert RunReport.model_validate_json(text) == report
    kinds = [
        [loc["kind"] for loc in d["finding"]["locations"]] for d in json.loads(text)["decisions"]
    ]
    assert sorted(kinds) == [["file"], ["text"], ["wiki", "text"]]


def test_the_scan_table_prints_the_place_of_a_text_finding(report: RunReport) -> None:
    from rich.console import Console

    from thresher.cli.app import RunState
    from thresher.cli.scan_cmd import _table

    console = Console(width=400, record=True)

    class Recorded(RunState):
        def console(self, *, stderr: bool = True) -> Console:
            return console

    _table(Recorded(), report, [Path("report.json")])
    assert f"issue comment {COMMENT}" in console.export_text()
