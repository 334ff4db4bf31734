"""Report renderers (DESIGN §6): each returns text; only the CLI writes files.

JSON is the complete record, SARIF is what GitHub code scanning shows (false
positives left out), Markdown is for people: the sticky PR comment, the job
summary and one report per escalated finding.
"""

from thresher.reports.io import ReportWriteError, check_output_path, write_atomic
from thresher.reports.json_report import render_json, report_schema
from thresher.reports.markdown import STICKY_MARKER, render_finding, render_summary
from thresher.reports.sarif import render_sarif

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
