"""Planted secrets never leave the process: not in request bodies, transcripts or logs."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from tests.fakes.servers import OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply
from tests.heuristic.test_heuristic import git
from tests.llm.harness import REPORT, model_for, settings_for
from tests.tokens import github_token, random_secret
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, ProviderName
from thresher.findings import Finding
from thresher.redaction.redactor import Redactor, redact_value


def test_planted_secrets_never_reach_the_provider_transcripts_or_logs(
    openai_server: OpenAIFake, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    token, password = github_token(seed=21), random_secret(32, seed=22)
    root = tmp_path / "repo"
    (root / "deploy").mkdir(parents=True)
    (root / "deploy/prod.env").write_text(f"GITHUB_TOKEN={token}\nDB_PASSWORD={password}\n")
    (root / "README.md").write_text(f"Use {token} to log in.\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", f"add deploy config {token[:4]}")
    finding = Finding.model_validate(
        {
            "id": "f-1",
            "rule_id": "GitHub Token",
            "fingerprint": "sha256:x",
            "redacted": redact_value(token),
            "locations": [{"path": "deploy/prod.env", "line": 1}],
        }
    )
    factory = SessionFactory(
        settings=settings_for(ProviderName.OPENAI, openai_server.api_base),
        redactor=Redactor([token, password]),
        transcripts_dir=tmp_path / "runs",
        workspace=Workspace(root, value_for=lambda fid: token),
    )
    probe = factory.build(
        AgentName.ANALYSIS, model_for(ProviderName.OPENAI, openai_server.api_base), finding, token
    )
    required = list(probe.info.required_skills)

    def respond(request: CapturedRequest, index: int) -> Reply:
        if index == 0:
            calls = [(f"s{k}", "skill", {"name": s}) for k, s in enumerate(required)]
            calls += [
                ("r1", "read_file", {"path": "deploy/prod.env"}),
                ("r2", "grep", {"pattern": "ghp_|PASSWORD"}),
                ("r3", "git_log", {"finding_id": "f-1"}),
                ("r4", "git_show", {"rev": "HEAD"}),
                ("r5", "read_file", {"path": "../outside"}),
                ("r6", "validate_secret", {"finding_id": "f-1"}),
            ]
            return OpenAIFake.tool_calls([(i, n, json.dumps(a)) for i, n, a in calls])
        return OpenAIFake.tool_calls([("done", "submit_report", json.dumps(REPORT))])

    openai_server.responder = respond
    caplog.set_level(logging.DEBUG, logger="thresher")
    session = factory.build(
        AgentName.ANALYSIS, model_for(ProviderName.OPENAI, openai_server.api_base), finding, token
    )
    outcome = asyncio.run(session.run())
    assert outcome.compliance.score == 1.0

    bodies = [r.body.decode() for r in openai_server.requests]
    tool_results = "\n".join(
        m["content"] for m in json.loads(bodies[1])["messages"] if m["role"] == "tool"
    )
    assert "GITHUB_TOKEN=ghp_" in tool_results  # the file was really read...
    assert redact_value(token) in tool_results  # ...and the value redacted
    logs = "\n".join(record.getMessage() for record in caplog.records)
    assert "read_file" in logs
    transcripts = "\n".join(p.read_text() for p in (tmp_path / "runs").glob("*.jsonl"))
    for secret in (token, password):
        for artifact in (
            *bodies,
            transcripts,
            logs,
            repr(outcome.messages),
            repr([e.model_dump() for e in outcome.ledger.entries]),
        ):
            assert secret not in artifact


def test_run_files_redact_values_that_json_would_escape() -> None:
    from thresher.tribunal.decisions import DecisionError
    from thresher.tribunal.journal import redacted_json

    value = 'pa"ss\\w0rd-7Qz!x9#Lm'  # a quote and a backslash: escaped in JSON text
    error = DecisionError(stage="analysis 0", error="ProviderError", message=f"echo {value}")
    text = redacted_json(Redactor([value]), error, indent=2)
    assert json.dumps(value)[1:-1] not in text and value not in text
    assert json.loads(text)["message"] == f"echo {redact_value(value)}"
