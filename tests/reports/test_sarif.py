"""SARIF: valid 2.1.0, fit for GitHub code scanning, no false positives, no raw values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.reports.builders import Sample, decision_for, finding_for, run_report
from tests.tokens import github_token
from thresher.findings import Location
from thresher.findings.results import Classification, Verdict
from thresher.reports import render_sarif
from thresher.reports.sarif import MAX_LOCATIONS, MAX_RESULTS, SARIF_SCHEMA_URI

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "../shared/schemas/sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.protocols.Validator:
    if not SCHEMA_PATH.is_file():
        pytest.skip(f"SARIF 2.1.0 schema not found at {SCHEMA_PATH.resolve()}")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)  # draft-04, as the schema declares
    cls.check_schema(schema)
    return cls(schema)


@pytest.fixture
def sample() -> Sample:
    return Sample()


def _run(text: str) -> dict[str, Any]:
    log = json.loads(text)
    assert len(log["runs"]) == 1
    run: dict[str, Any] = log["runs"][0]
    return run


def _by_finding(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {result["properties"]["findingId"]: result for result in run["results"]}


def test_valid_against_the_sarif_schema(
    sample: Sample, sarif_validator: jsonschema.protocols.Validator
) -> None:
    log = json.loads(render_sarif(sample.report))
    errors = sorted(sarif_validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    assert list(log)[:2] == ["$schema", "version"]
    assert log["$schema"] == SARIF_SCHEMA_URI
    assert log["version"] == "2.1.0"


def test_tool_driver_rules_and_run_metadata(sample: Sample) -> None:
    run = _run(render_sarif(sample.report))
    driver = run["tool"]["driver"]
    assert driver["name"] == "thresher"
    assert driver["version"] == driver["semanticVersion"] == "0.1.0"
    assert "informationUri" not in driver  # no invented home page
    with_home = _run(render_sarif(sample.report, information_uri="https://example.org/thresher"))
    assert with_home["tool"]["driver"]["informationUri"] == "https://example.org/thresher"
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert set(rules) == {"thresher/github-token", "thresher/secret-keyword"}
    token = rules["thresher/github-token"]
    assert token["name"] == "GitHubToken"
    assert token["shortDescription"]["text"] and token["fullDescription"]["text"]
    assert "Revoke the token" in token["help"]["text"]
    assert "#### Remediation" in token["help"]["markdown"]
    assert token["properties"]["security-severity"] == "9.5"  # the critical finding wins
    assert token["properties"]["tags"][:2] == ["security", "secret"]
    assert token["properties"]["precision"] == "high"
    assert rules["thresher/secret-keyword"]["properties"]["precision"] == "medium"
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert run["automationDetails"]["id"] == "thresher/secrets/"
    assert run["invocations"] == [
        {
            "executionSuccessful": True,
            "endTimeUtc": "2025-01-02T03:06:00Z",
            "startTimeUtc": "2025-01-02T03:04:05Z",
        }
    ]


def test_false_positives_are_left_out_and_levels_follow_the_verdict(sample: Sample) -> None:
    run = _run(render_sarif(sample.report))
    results = _by_finding(run)
    assert sample.test.finding.id not in results
    assert set(results) == {
        sample.real.finding.id,
        sample.hostile.finding.id,
        sample.unsure.finding.id,
    }
    assert results[sample.real.finding.id]["level"] == "error"
    assert results[sample.unsure.finding.id]["level"] == "warning"
    assert run["properties"]["falsePositivesOmitted"] == 1
    # riskiest first: true positives (critical before high), then inconclusive
    assert [r["properties"]["findingId"] for r in run["results"]] == [
        sample.real.finding.id,
        sample.hostile.finding.id,
        sample.unsure.finding.id,
    ]
    real = results[sample.real.finding.id]["properties"]
    assert real == {
        "findingId": sample.real.finding.id,
        "verdict": "TRUE_POSITIVE",
        "classification": "real",
        "confidence": 8.6,
        "confidenceLabel": "high",
        "riskLevel": "critical",
        "decidedBy": "tribunal",
    }


def test_message_carries_the_redacted_value_and_never_a_raw_one(sample: Sample) -> None:
    text = render_sarif(sample.report)
    for raw in sample.raws:
        assert raw not in text
    message = _by_finding(_run(text))[sample.real.finding.id]["message"]["text"]
    assert sample.real.finding.redacted in message
    assert "TRUE_POSITIVE" in message and "real" in message and "8.6/10" in message
    assert "hard-coded in production settings" in message
    assert "2 other location(s)" in message


def test_message_escapes_embedded_link_brackets(sample: Sample) -> None:
    message = _by_finding(_run(render_sarif(sample.report)))[sample.hostile.finding.id]
    text = message["message"]["text"]
    assert "\\[x\\](https://evil.test)" in text
    assert "[x](" not in text.replace("\\[x\\](", "")


def test_one_result_per_finding_with_related_locations_and_relative_uris(sample: Sample) -> None:
    results = _by_finding(_run(render_sarif(sample.report)))
    real = results[sample.real.finding.id]
    (primary,) = real["locations"]
    physical = primary["physicalLocation"]
    assert physical["artifactLocation"] == {"uri": "app/settings.py", "uriBaseId": "%SRCROOT%"}
    assert physical["region"] == {"startLine": 3}
    related = [loc["physicalLocation"] for loc in real["relatedLocations"]]
    assert [(p["artifactLocation"]["uri"], p["region"]["startLine"]) for p in related] == [
        ("deploy/env.sh", 12),
        ("docs/setup.md", 40),
    ]
    assert [loc["id"] for loc in real["relatedLocations"]] == [1, 2]
    unsure = results[sample.unsure.finding.id]["locations"][0]["physicalLocation"]
    assert unsure["artifactLocation"]["uri"] == "config/app.ini"  # "./" dropped
    hostile = results[sample.hostile.finding.id]["locations"][0]["physicalLocation"]
    assert hostile["artifactLocation"]["uri"] == "src/a%7Cb%20%60x%60.py"


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("/abs/leading/slash.py", "abs/leading/slash.py"),
        ("win\\style\\path.py", "win/style/path.py"),
        ("./a/../b/c.py", "b/c.py"),
        ("space in name.env", "space%20in%20name.env"),
    ],
)
def test_uris_are_relative_posix_without_leading_slash(path: str, uri: str) -> None:
    report = run_report([decision_for(finding_for(github_token(seed=5), locations=((path, 1),)))])
    result = _run(render_sarif(report))["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == uri


def _hash(report_text: str) -> str:
    value: str = _run(report_text)["results"][0]["partialFingerprints"]["primaryLocationLineHash"]
    return value


def test_fingerprint_is_stable_and_line_free() -> None:
    raw = github_token(seed=9)
    finding = finding_for(raw, locations=(("app/settings.py", 3),))
    first = render_sarif(run_report([decision_for(finding)]))
    assert _hash(first) == _hash(render_sarif(run_report([decision_for(finding)])))
    assert _hash(first).endswith(":1")
    assert len(_hash(first)) == 64 + 2

    moved = finding.model_copy(update={"locations": (Location(path="app/settings.py", line=99),)})
    assert _hash(render_sarif(run_report([decision_for(moved)]))) == _hash(first)

    renamed = finding.model_copy(update={"locations": (Location(path="app/other.py", line=3),)})
    assert _hash(render_sarif(run_report([decision_for(renamed)]))) != _hash(first)


@pytest.mark.slow
def test_results_are_capped_keeping_the_riskiest() -> None:
    real = decision_for(finding_for(github_token(seed=1)))
    unsure = decision_for(
        finding_for(github_token(seed=2)),
        verdict=Verdict.INCONCLUSIVE,
        confidence=3.0,
    )
    dismissed = decision_for(finding_for(github_token(seed=3)), classification=Classification.TEST)
    decisions = []
    for index in range(MAX_RESULTS + 10):
        base = real if index < MAX_RESULTS - 5 else unsure
        finding = base.finding.model_copy(
            update={"id": f"f{index:05d}", "fingerprint": f"{index:064x}"}
        )
        decisions.append(base.model_copy(update={"finding": finding}))
    decisions.append(dismissed)
    run = _run(render_sarif(run_report(decisions)))
    results = run["results"]
    assert len(results) == MAX_RESULTS
    levels = [r["level"] for r in results]
    assert levels.count("error") == MAX_RESULTS - 5  # every true positive survives
    assert levels.count("warning") == 5
    assert run["properties"]["resultsTruncated"] is True
    assert run["properties"]["omittedResults"] == 10
    assert run["properties"]["resultLimit"] == MAX_RESULTS
    assert run["properties"]["falsePositivesOmitted"] == 1


@pytest.mark.slow
def test_locations_per_result_are_capped(sarif_validator: jsonschema.protocols.Validator) -> None:
    locations = tuple((f"src/file{i}.py", i + 1) for i in range(MAX_LOCATIONS + 200))
    report = run_report([decision_for(finding_for(github_token(seed=4), locations=locations))])
    log = json.loads(render_sarif(report))
    result = log["runs"][0]["results"][0]
    assert len(result["locations"]) + len(result["relatedLocations"]) == MAX_LOCATIONS
    assert result["properties"]["omittedLocations"] == 200
    assert not list(sarif_validator.iter_errors(log))


def test_run_errors_mark_the_invocation_unsuccessful(sample: Sample) -> None:
    from thresher.tribunal.decisions import DecisionError

    report = run_report(
        sample.decisions,
        errors=[DecisionError(stage="source", error="GitHubError", message="alerts: HTTP 502")],
    )
    (invocation,) = _run(render_sarif(report))["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"] == [
        {"message": {"text": "source: alerts: HTTP 502"}, "level": "error"}
    ]


def test_sarif_om_sentinel_defaults_are_not_emitted(sample: Sample) -> None:
    text = render_sarif(sample.report)
    for sentinel in ('"rank"', '"kind"', '"index"', '"byteOffset"', '"charOffset"', '"language"'):
        assert sentinel not in text
    assert ": -1" not in text and ": null" not in text


def test_a_run_with_only_false_positives_is_an_empty_valid_run(
    sarif_validator: jsonschema.protocols.Validator,
) -> None:
    dismissed = decision_for(
        finding_for(github_token(seed=8)), classification=Classification.NOT_SECRET
    )
    log = json.loads(render_sarif(run_report([dismissed])))
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["tool"]["driver"]["rules"] == []
    assert not list(sarif_validator.iter_errors(log))
