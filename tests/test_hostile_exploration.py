"""A model that explores ``.env``, ``.git/config`` and old commits, and quotes what it
reads: a real scan (``run_scan``) against a loopback OpenAI fake. None of the secrets it
can reach is a candidate of the scan, so only detection stands between them and the
provider, the transcripts, the decision journal and every report."""

from __future__ import annotations

import base64
import json
import logging
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from tests.agent_emulator import finding_id, has_results, submission, tools_of
from tests.fakes.servers import OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply
from tests.gitrepo import git
from tests.tokens import github_token, random_secret
from thresher.cli.scan_cmd import render_markdown
from thresher.config.settings import (
    AgentName,
    AgentSettings,
    ProviderName,
    ProviderSettings,
    Settings,
)
from thresher.redaction.redactor import redact_value
from thresher.reports import render_json, render_sarif
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.policy import Escalate

MODEL = "openai:gpt-4.1"
FREE_TEXT = {"submit_report": "key_finding", "submit_challenge": "reasoning"}


class Planted:
    """The secrets of one hostile checkout, generated at test time."""

    def __init__(self) -> None:
        self.old_token = github_token(seed=90)  # committed, then removed
        self.env_token = random_secret(40, seed=91)  # in the git-ignored .env
        self.env_password = random_secret(18, seed=92) + "/+%&!\\@"
        self.checkout_token = github_token("ghs", seed=93)  # actions/checkout's
        self.header = base64.b64encode(f"x-access-token:{self.checkout_token}".encode()).decode()
        self.live = "sk_live_" + random_secret(24, seed=94)  # the scan's one candidate

    def hidden(self) -> dict[str, str]:
        """The values no candidate list knows."""
        return {
            "old commit": self.old_token,
            ".env token": self.env_token,
            ".env password": self.env_password,
            "checkout token": self.checkout_token,
            "extraheader": self.header,
        }

    def all(self) -> dict[str, str]:
        return {**self.hidden(), "live candidate": self.live}


def build_checkout(root: Path, planted: Planted) -> str:
    """The repository; returns the commit that added the since-removed token."""
    (root / "app").mkdir(parents=True)
    git(root, "init", "-q")
    (root / "app/deploy.py").write_text(f'GITHUB_TOKEN = "{planted.old_token}"\n')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "deploy script")
    added = git(root, "rev-parse", "HEAD").strip()
    (root / "app/deploy.py").write_text('GITHUB_TOKEN = os.environ["GITHUB_TOKEN"]\n')
    (root / "app/settings.py").write_text(f'STRIPE_KEY = "{planted.live}"\n')
    (root / ".gitignore").write_text(".env\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "read the token from the environment")
    (root / ".env").write_text(
        f"DEBUG=true\nAPI_TOKEN={planted.env_token}\nPASSWORD={planted.env_password}\n"
    )
    with (root / ".git/config").open("a", encoding="utf-8") as config:
        config.write(
            f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {planted.header}\n'
        )
    return added


def explore_and_quote(server: OpenAIFake, planted: Planted, old_commit: str) -> None:
    """Each agent loads its skills, explores everything it is allowed to, then submits a
    result quoting every tool result it read, and the raw values as if it remembered
    them, in the contexts a model would write them in."""
    workspace_calls: list[tuple[str, str, dict[str, Any]]] = [
        ("w1", "git_log", {"max_count": 20}),
        ("w2", "git_show", {"rev": old_commit}),
        ("w3", "git_show", {"rev": old_commit, "path": "app/deploy.py"}),
        ("w4", "read_file", {"path": ".env"}),
        ("w5", "read_file", {"path": ".git/config"}),
        ("w6", "grep", {"pattern": "TOKEN|PASSWORD|ghp_|extraheader", "path": "."}),
        ("w7", "list_dir", {"path": "."}),
    ]
    remembered = (
        f"The old commit held {planted.old_token}; .env sets API_TOKEN={planted.env_token} "
        f"and PASSWORD={planted.env_password}; {planted.env_token} again, alone. The "
        f"checkout wrote AUTHORIZATION: basic {planted.header} for {planted.checkout_token}; "
        f"the live key is {planted.live}."
    )

    def respond(request: CapturedRequest, index: int) -> Reply:
        body = request.json()
        tools = tools_of(server, body)
        submit = next(name for name in tools if name.startswith("submit_"))
        if not has_results(server, body):
            skills = tools["skill"]["properties"]["name"]["enum"]
            calls = [(f"s{i}", "skill", {"name": s}) for i, s in enumerate(skills)]
            calls.append(("f", "get_finding", {"finding_id": finding_id(body)}))
            calls += [call for call in workspace_calls if call[1] in tools]
            return server.tool_calls([(i, n, json.dumps(a)) for i, n, a in calls])
        read = [
            m["content"]
            for m in body["messages"]
            if (m["role"] == "tool" and m["tool_call_id"].startswith("w")) or m["role"] == "user"
        ]
        quote = f"I read: {' | '.join(read)[-30_000:]} And I remember: {remembered}"
        arguments = submission(submit, "real")
        arguments[FREE_TEXT.get(submit, "rationale")] = quote
        if submit == "submit_report":
            arguments["evidence"] = [{"claim": remembered, "ledger_ids": ["T1"]}]
            arguments["remediation"] = [f"Rotate {planted.env_password} and {planted.old_token}"]
        return server.tool_calls([("submit", submit, json.dumps(arguments))])

    server.responder = respond


def forms(value: str) -> dict[str, str]:
    """The forms a value takes in text, JSON and URLs."""
    return {
        "raw": value,
        "base64": base64.b64encode(value.encode()).decode(),
        "url-encoded": urllib.parse.quote(value, safe=""),
        "json-escaped": json.dumps(value)[1:-1],
    }


def test_a_model_exploring_env_git_config_and_history_leaks_no_value(
    tmp_path: Path, openai_server: OpenAIFake, caplog: pytest.LogCaptureFixture
) -> None:
    planted = Planted()
    root = tmp_path / "repo"
    old_commit = build_checkout(root, planted)
    explore_and_quote(openai_server, planted, old_commit)
    settings = Settings(
        agents={agent: AgentSettings(model=MODEL) for agent in AgentName},
        providers={ProviderName.OPENAI: ProviderSettings(base_url=openai_server.api_base)},
    )
    caplog.set_level(logging.DEBUG, logger="thresher")
    outcome = run_scan(
        ScanRequest(root=root, runs_dir=tmp_path / "runs", escalate=Escalate.ALL),
        settings,
        environ={"OPENAI_API_KEY": "loopback-test-key"},
    )

    # The scan knows only the live key: everything else is detection's to catch.
    assert set(outcome.scan.vault.values()) == {planted.live}
    decisions = outcome.report.decisions
    assert decisions and all(d.escalated and not d.errors for d in decisions)

    bodies = [r.body.decode() for r in openai_server.requests]
    assert len(bodies) >= 6  # analysis, challenger and judge each explored, then submitted
    sent = "\n".join(bodies)
    # The model really read each place, and got each value as a token...
    assert "API_TOKEN=[REDACTED:token:" in sent and "PASSWORD=[REDACTED:password:" in sent
    assert "[REDACTED:github-token:" in sent  # the removed token, in git_show
    assert ".git/ internals are refused" in sent  # .git/config is not readable at all
    assert redact_value(planted.live) in sent
    # ...and its quotes reached the reports, redacted rather than dropped.
    rationale = " ".join(d.rationale for d in decisions)
    assert "[REDACTED:password:" in rationale and "[REDACTED:basic-auth-credentials:" in rationale

    run_dir = outcome.run_dir
    artifacts = {
        "request bodies": sent,
        "transcripts": "\n".join(p.read_text() for p in (run_dir / "transcripts").glob("*")),
        "decisions.jsonl": (run_dir / "decisions.jsonl").read_text(),
        "report.json": (run_dir / "report.json").read_text(),
        "JSON report": render_json(outcome.report),
        "SARIF report": render_sarif(outcome.report),
        "Markdown report": render_markdown(outcome.report),
        "logs": "\n".join(record.getMessage() for record in caplog.records),
    }
    assert artifacts["transcripts"].count('"type": "ledger"') >= 14
    for name, value in planted.all().items():
        for form, shown in forms(value).items():
            for artifact, text in artifacts.items():
                assert shown not in text, f"{name} ({form}) in {artifact}"
