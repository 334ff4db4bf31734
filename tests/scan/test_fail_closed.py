"""Fail closed, end to end: what a CI job does when its model providers fail.

A broken provider must never make a real secret disappear: the offline decision
stands, the errors are on stderr and in every report, and the job does not pass.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from tests.agent_emulator import emulate
from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake
from tests.fakes.wire import CapturedRequest, Reply
from tests.scan.panel import one_provider, operator_config, panel_config
from tests.scan.test_scan_e2e import make_demo

Cli = Callable[..., Result]


@pytest.mark.slow
def test_a_dead_challenger_and_judge_cannot_clear_real_secrets(
    cli: Cli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    openai_server: OpenAIFake,
    anthropic_server: AnthropicFake,
    gemini_server: GeminiFake,
) -> None:
    operator_config(
        tmp_path,
        monkeypatch,
        panel_config(
            openai_server, anthropic_server, gemini_server, extra="[http]\nmax_attempts = 1\n"
        ),
    )
    emulate(openai_server, "not_secret")  # a lone analysis that says "nothing to see"

    def down(server: AnthropicFake | GeminiFake) -> Callable[[CapturedRequest, int], Reply]:
        return lambda request, index: server.server_error()

    anthropic_server.responder = down(anthropic_server)
    gemini_server.responder = down(gemini_server)
    demo, _ = make_demo(tmp_path)
    out = tmp_path / "out"
    result = cli(
        "scan",
        "--root",
        str(demo),
        "--escalate",
        "all",
        "--json",
        str(out / "r.json"),
        "--sarif",
        str(out / "r.sarif"),
        "--markdown",
        str(out / "r.md"),
    )
    assert result.exit_code == 3, result.stderr
    assert "error in this run (exit 3)" in result.stderr
    assert "challenger 0: OverloadedError" in result.stderr
    report = json.loads((out / "r.json").read_text())
    by_path = {d["finding"]["locations"][0]["path"]: d for d in report["decisions"]}
    for path in ("app/notify.py", "app/deploy_settings.py"):
        assert by_path[path]["classification"] == "real"
        assert by_path[path]["verdict"] == "TRUE_POSITIVE"
        assert by_path[path]["decided_by"] == "heuristic"
        assert by_path[path]["errors"]
    assert report["errors"] and report["summary"]["errors"] == len(report["decisions"])
    sarif = json.loads((out / "r.sarif").read_text())
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert {"app/notify.py", "app/deploy_settings.py"} <= uris
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False
    assert "OverloadedError" in (out / "r.md").read_text()


@pytest.mark.slow
def test_the_run_deadline_bounds_a_silent_provider(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIFake
) -> None:
    agents = "".join(
        f'[agents.{a}]\nmodel = "openai:gpt-4.1"\n' for a in ("analysis", "challenger", "judge")
    )
    operator_config(
        tmp_path,
        monkeypatch,
        f'{agents}[providers.openai]\nbase_url = "{openai_server.api_base}"\n',
    )
    openai_server.responder = lambda request, index: OpenAIFake.slow(30)
    demo, _ = make_demo(tmp_path)
    started = time.monotonic()
    result = cli(
        "scan", "--root", str(demo), "--escalate", "all", "--timeout", "2",
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert elapsed < 20, elapsed
    assert result.exit_code == 3, result.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["decisions"]
    for decision in report["decisions"]:
        assert decision["verdict"] == "INCONCLUSIVE"
        assert decision["errors"][0]["stage"] == "deadline"
    assert report["errors"][0]["error"] == "RunDeadlineExceeded"
    assert "--timeout 2 s expired" in result.stderr


def test_max_tokens_10_sends_nothing_and_says_so(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIFake
) -> None:
    one_provider(tmp_path, monkeypatch, openai_server)
    emulate(openai_server)
    demo, _ = make_demo(tmp_path)
    result = cli(
        "scan", "--root", str(demo), "--escalate", "all", "--max-tokens", "10",
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert openai_server.requests == []
    assert result.exit_code == 3, result.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["usage"]["requests"] == 0 and report["usage"]["input_tokens"] == 0
    assert {e["error"] for e in report["errors"]} == {"BudgetExceeded"}
    assert all(not d["escalated"] for d in report["decisions"])
    assert "BudgetExceeded" in result.stderr


def test_an_open_circuit_sends_the_rest_of_the_run_offline(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, openai_server: OpenAIFake
) -> None:
    one_provider(tmp_path, monkeypatch, openai_server)
    openai_server.responder = lambda request, index: OpenAIFake.server_error()
    demo, _ = make_demo(tmp_path)
    result = cli(
        "scan", "--root", str(demo), "--escalate", "all", "--concurrency", "1",
        "--json", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert len(openai_server.requests) == 3  # then the circuit is open: nothing more is sent
    assert result.exit_code == 3, result.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["usage"]["requests"] == 3
    errors = {e["error"] for d in report["decisions"] for e in d["errors"]}
    assert "ProviderUnavailableError" in errors
    by_path = {d["finding"]["locations"][0]["path"]: d for d in report["decisions"]}
    assert by_path["app/notify.py"]["verdict"] == "TRUE_POSITIVE"
