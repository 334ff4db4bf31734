"""Report renderers (DESIGN §6): each returns text; only the CLI writes files.

JSON is the complete record, SARIF is what GitHub code scanning shows (false
positives left out), Markdown is for people: the sticky PR comment, the job
summary and one report per escalated finding.

The renderers are loaded when first asked for (``__getattr__``): ``thresher scan``
checks its output paths (``check_output_path``) before its scan starts, and the
renderers' modules (SARIF's object model, the decisions' models) load beside the scan.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from thresher.reports.io import ReportWriteError, check_output_path, write_atomic

if TYPE_CHECKING:
    from thresher.reports.json_report import render_json, report_schema
    from thresher.reports.markdown import STICKY_MARKER, render_finding, render_summary
    from thresher.reports.sarif import render_sarif

# Each renderer's name, and the module that defines it.
_RENDERERS = {
    "render_json": "thresher.reports.json_report",
    "report_schema": "thresher.reports.json_report",
    "STICKY_MARKER": "thresher.reports.markdown",
    "render_finding": "thresher.reports.markdown",
    "render_summary": "thresher.reports.markdown",
    "render_sarif": "thresher.reports.sarif",
}

__all__ = [
    "STICKY_MARKER",
    "ReportWriteError",
    "check_output_path",
    "render_finding",
    "render_json",
    "render_sarif",
    "render_summary",
    "report_schema",
    "write_atomic",
]


def __getattr__(name: str) -> Any:
    module = _RENDERERS.get(name)
    if module is None:
        raise AttributeError(f"module 'thresher.reports' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # asked once
    return value
