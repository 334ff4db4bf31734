"""What escalation costs, end to end: a per-finding token budget that stops a finding's
agents cleanly (its offline decision stands, the run exits 3), and cached input tokens
counted per agent in the report and its summary."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from tests.agent_emulator import emulate_diligent
from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake
from tests.scan.panel import one_provider, operator_config, panel_config
from tests.scan.test_scan_e2e import make_demo

Cli = Callable[..., Result]


def scan(cli: Cli, demo: Path, out: Path, *extra: str) -> tuple[Result, dict[str, Any]]:
    result = cli("scan", "--root", str(demo), "--json", str(out), *extra)
    return result, json.loads(out.read_text())


def offline_calls(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {d["finding"]["id"]: (d["classification"], d["verdict"]) for d in report["decisions"]}


@pytest.mark.parametrize("where", ["flag", "config"])
def test_a_finding_budget_stops_its_agents_and_keeps_the_offline_decision(
    cli: Cli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    openai_server: OpenAIFake,
    where: str,
) -> None:
    one_provider(tmp_path, monkeypatch, openai_server)
    if where == "config":  # the operator's file, as one_provider wrote it, plus the budget
        config = Path(str(tmp_path / "ops.toml"))
        config.write_text(config.read_text() + "[budget]\nmax_tokens_per_finding = 20000\n")
    emulate_diligent(openai_server, "not_secret")  # a panel that would clear every finding
    demo, _ = make_demo(tmp_path)
    _, offline = scan(cli, demo, tmp_path / "offline.json", "--escalate", "never")
    budget = ("--max-tokens-per-finding", "20000") if where == "flag" else ()
    result, report = scan(cli, demo, tmp_path / "r.json", "--escalate", "all", *budget)
    assert result.exit_code == 3, result.stderr
    assert openai_server.requests  # each finding got as far as its budget allowed
    assert offline_calls(report) == offline_calls(offline)
    for decision in report["decisions"]:
        [error] = [e for e in decision["errors"] if e["error"] == "BudgetExceeded"]
        assert "finding token limit reached" in error["message"]
        assert "of 20000" in error["message"]
        assert "the offline decision stands" in decision["rationale"]
        assert decision["decided_by"] == "heuristic"
    assert "finding token limit reached" in result.stderr
    # Checked before each request: no finding's sessions sent more than the limit.
    assert all(d["usage"]["input_tokens"] <= 20000 for d in report["decisions"])


def test_a_repository_may_not_set_the_budget(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo, _ = make_demo(tmp_path)
    (tmp_path / "thresher.toml").write_text("[budget]\nmax_tokens_per_finding = 1\n")
    result = cli("scan", "--root", str(demo), "--escalate", "never")
    assert result.exit_code == 2
    assert "'budget' is not accepted from the repository's configuration" in result.stderr


def test_a_bad_budget_names_the_flag(cli: Cli, tmp_path: Path) -> None:
    result = cli("scan", "--root", str(tmp_path), "--max-tokens-per-finding", "0")
    assert result.exit_code == 2
    assert "--max-tokens-per-finding" in result.stderr


@pytest.mark.slow
def test_cached_tokens_are_reported_per_agent_and_in_the_summary(
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
            openai_server,
            anthropic_server,
            gemini_server,
            analysis="anthropic",
            challenger="openai",
        ),
    )
    caches = {
        "analysis": emulate_diligent(anthropic_server),
        "challenger": emulate_diligent(openai_server),
        "judge": emulate_diligent(gemini_server),
    }
    demo, _ = make_demo(tmp_path)
    summary = tmp_path / "summary.md"
    result, report = scan(
        cli, demo, tmp_path / "r.json", "--escalate", "all", "--markdown", str(summary)
    )
    assert result.exit_code in (0, 1), result.stderr
    usage = report["usage"]
    for agent, cache in caches.items():
        spent = usage["agents"][agent]
        assert spent["requests"] == len(cache.served)
        assert spent["input_tokens"] == sum(u.input_tokens for u in cache.served)
        assert spent["cached_input_tokens"] == sum(u.cached for u in cache.served) > 0
    assert usage["cached_input_tokens"] == sum(
        a["cached_input_tokens"] for a in usage["agents"].values()
    )
    assert f"({usage['cached_input_tokens']:,} cached)" in summary.read_text()
    for decision in report["decisions"]:
        assert decision["escalated"] and decision["entries"][0]["compliance"]["score"] == 1.0
