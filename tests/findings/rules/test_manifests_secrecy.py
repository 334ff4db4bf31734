"""A Secret manifest's decoded value is held like any other: in the vault only.

The finding's value is the decoded text (what is redacted and fingerprinted), and
neither it nor its base64 form reaches the JSON, SARIF or Markdown report, the run's
files or the findings' own representations. Values are generated at test time."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from tests.findings.rules.casekit import ALNUM, pick
from thresher.cli.scan_cmd import render_markdown
from thresher.config.settings import Settings
from thresher.redaction.redactor import redact_value
from thresher.reports import render_json, render_sarif
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.sources.dedupe import fingerprint


def test_a_decoded_secret_value_never_reaches_a_report(tmp_path: Path) -> None:
    data_value = pick(ALNUM, 22, 81) + "#x"
    string_value = pick(ALNUM, 26, 82)
    encoded = base64.b64encode(data_value.encode()).decode()
    root = tmp_path / "repo"
    (root / "deploy").mkdir(parents=True)
    (root / "deploy" / "secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n"
        f"  db-password: {encoded}\nstringData:\n  api-token: {string_value}\n"
    )
    request = ScanRequest(root=root, runs_dir=tmp_path / "runs", history_depth=0)
    outcome = run_scan(request, Settings(), environ={})

    by_rule = {
        by.split(":", 1)[1]: finding
        for finding in outcome.scan.findings
        for by in finding.detected_by
        if by.startswith("thresher-rules:kubernetes-secret")
    }
    assert set(by_rule) == {"kubernetes-secret-data", "kubernetes-secret-stringdata"}
    data = by_rule["kubernetes-secret-data"]
    assert data.fingerprint == fingerprint(data_value)  # the decoded text, not the base64
    assert data.redacted == redact_value(data_value)
    assert data.locations[0].line == 6  # type: ignore[union-attr]
    assert data_value in outcome.scan.vault.values()
    assert string_value in outcome.scan.vault.values()

    run_dir = outcome.run_dir
    shown = {
        "JSON report": render_json(outcome.report),
        "SARIF report": render_sarif(outcome.report),
        "Markdown report": render_markdown(outcome.report),
        "findings": json.dumps([f.model_dump(mode="json") for f in outcome.scan.findings]),
        "repr": repr(outcome.scan) + repr(outcome.report),
        "run files": "\n".join(
            p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file()
        ),
    }
    for name, text in shown.items():
        for value in (data_value, string_value, encoded):
            assert value not in text, f"{value[:3]}… in {name}"
