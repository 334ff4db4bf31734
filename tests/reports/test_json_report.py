"""JSON report: complete, stable, round-trips, and matches its published schema."""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.reports.builders import Sample
from thresher.reports import render_json, report_schema
from thresher.tribunal.decisions import REPORT_SCHEMA_VERSION, RunReport


@pytest.fixture
def sample() -> Sample:
    return Sample()


def test_round_trips_into_the_model(sample: Sample) -> None:
    text = render_json(sample.report)
    assert RunReport.model_validate_json(text) == sample.report


def test_keeps_false_positives_and_never_a_raw_value(sample: Sample) -> None:
    text = render_json(sample.report)
    data = json.loads(text)
    assert [d["verdict"] for d in data["decisions"]] == [
        "FALSE_POSITIVE",
        "INCONCLUSIVE",
        "TRUE_POSITIVE",
        "TRUE_POSITIVE",
    ]
    for raw in sample.raws:
        assert raw not in text
    assert sample.real.finding.redacted in text


def test_is_stable_indented_and_in_field_order(sample: Sample) -> None:
    text = render_json(sample.report)
    assert text == render_json(sample.report)
    assert text.startswith('{\n  "schema_version": "2.0",\n  "tool": "thresher",')
    # one decision a line
    decisions = text[text.index('  "decisions": [\n') :].split("\n  ],")[0].splitlines()[1:]
    assert len(decisions) == len(sample.report.decisions)
    assert all(line.startswith("    {") for line in decisions)
    assert text.endswith("}\n")
    assert list(json.loads(text)["models"]) == ["analysis", "judge"]  # sorted


def test_schema_has_identity_and_version() -> None:
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert REPORT_SCHEMA_VERSION in schema["$id"]
    assert schema["title"] == "thresher run report"
    assert REPORT_SCHEMA_VERSION in schema["description"]
    assert schema["version"] == REPORT_SCHEMA_VERSION
    assert schema["properties"]["schema_version"]["const"] == REPORT_SCHEMA_VERSION
    assert "Decision" in schema["$defs"]
    json.dumps(schema)  # printable by `thresher schema report`


def test_schema_validates_the_rendered_report(sample: Sample) -> None:
    validator = jsonschema.Draft202012Validator(report_schema())
    data = json.loads(render_json(sample.report))
    assert not list(validator.iter_errors(data))

    data["schema_version"] = "1.3"
    data["decisions"][0]["finding"]["raw_value"] = "x"
    messages = [error.message for error in validator.iter_errors(data)]
    assert any(f"'{REPORT_SCHEMA_VERSION}' was expected" in m for m in messages)
    assert any("raw_value" in m for m in messages)  # no room for extra fields
