"""The JSON report and its schema (DESIGN §6).

The JSON report is the complete record of a run — including the false
positives that SARIF leaves out — so it is a dump of ``RunReport``: keys follow
the model's field order (stable between runs and versions that add fields at the
end), and it loads back with ``RunReport.model_validate_json``. Since schema 2.0
each decision is one compact line without the fields at their default, and a
decision no model took part in leaves out the offline panel
(``thresher.tribunal.reported``). The schema is generated from the same model, so
the two cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from thresher.tribunal.decisions import REPORT_SCHEMA_VERSION, RunReport
from thresher.tribunal.reported import report_text

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
REPORT_SCHEMA_ID = f"urn:thresher:schema:report:{REPORT_SCHEMA_VERSION}"


def render_json(report: RunReport) -> str:
    """The run as JSON text ending in a newline: the run's fields indented, each
    decision on one line (``thresher.tribunal.reported``).

    Map-valued fields (``models``) are sorted by key, so two runs with the same
    configuration produce byte-identical headers whatever order config was read in.
    """
    return report_text(report)


def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the report this version writes.

    ``schema_version`` is pinned with ``const`` so a consumer validating a report
    from a newer, incompatible thresher learns that from the first error.
    """
    generated = RunReport.model_json_schema(mode="serialization")
    properties = dict(generated["properties"])
    properties["schema_version"] = {
        **properties["schema_version"],
        "const": REPORT_SCHEMA_VERSION,
        "description": "version of this report format",
    }
    schema: dict[str, Any] = {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": REPORT_SCHEMA_ID,
        "title": "thresher run report",
        "description": (
            f"thresher JSON report, schema version {REPORT_SCHEMA_VERSION}: run metadata, "
            "models per agent, summary counts, usage, and every decision; a decision the "
            "LLM tribunal took part in (escalated) with its analysis reports, challenges, "
            "judgement and compliance. Fields at their default are left out. Raw secret "
            "values never appear; findings carry a fingerprint and a redacted form."
        ),
        "version": REPORT_SCHEMA_VERSION,
    }
    schema.update({key: value for key, value in generated.items() if key not in schema})
    schema["properties"] = properties
    definitions = dict(schema.get("$defs", {}))
    if "FeatureWeight" in definitions:  # written as a pair (``thresher.tribunal.reported``)
        definitions["FeatureWeight"] = {
            "type": "array",
            "description": "[feature, contribution]: one feature's pull on the "
            "real-vs-rest log-odds",
            "prefixItems": [{"type": "string"}, {"type": "number"}],
            "minItems": 2,
            "maxItems": 2,
        }
        schema["$defs"] = definitions
    return schema
