"""``thresher models list|check`` against loopback servers speaking each protocol."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake

Cli = Callable[..., Result]


def configure(
    tmp_path: Path, openai: OpenAIFake, anthropic: AnthropicFake, gemini: GeminiFake
) -> None:
    """An operator's file (``--config``/``THRESHER_CONFIG``): it may set hosts and key names."""
    (tmp_path / "thresher.toml").write_text(f"""
[agents.analysis]
model = "openai-compatible:qwen2.5-coder"
[agents.challenger]
model = "anthropic:claude-sonnet-4-5"
[agents.judge]
model = "gemini:gemini-2.5-pro"
[providers.openai-compatible]
base_url = "{openai.api_base}"
api_key_env = "LOCAL_LLM_KEY"
[providers.anthropic]
base_url = "{anthropic.base_url}"
[providers.gemini]
base_url = "{gemini.base_url}"
""")


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCAL_LLM_KEY", "k1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k2")
    monkeypatch.setenv("GEMINI_API_KEY", "k3")


def test_list_shows_models_urls_and_keys(
    cli: Cli,
    tmp_path: Path,
    openai_server: OpenAIFake,
    anthropic_server: AnthropicFake,
    gemini_server: GeminiFake,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(tmp_path, openai_server, anthropic_server, gemini_server)
    monkeypatch.setenv("THRESHER_CONFIG", str(tmp_path / "thresher.toml"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k2")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    result = cli("--no-color", "models", "list")
    assert result.exit_code == 0
    out = result.stdout
    assert "openai-compatible:qwen2.5-coder" in out and openai_server.api_base in out
    assert "ANTHROPIC_API_KEY: present" in out
    assert "GEMINI_API_KEY: MISSING" in out
    assert "k2" not in out


def test_check_succeeds_against_each_protocol(
    cli: Cli,
    tmp_path: Path,
    keys: None,
    openai_server: OpenAIFake,
    anthropic_server: AnthropicFake,
    gemini_server: GeminiFake,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(tmp_path, openai_server, anthropic_server, gemini_server)
    monkeypatch.setenv("THRESHER_CONFIG", str(tmp_path / "thresher.toml"))
    openai_server.enqueue(OpenAIFake.tool_calls([("c1", "ping", '{"ok": true}')]))
    anthropic_server.enqueue(AnthropicFake.tool_use([("t1", "ping", {"ok": True})]))
    gemini_server.enqueue(GeminiFake.text("pong"))
    result = cli("models", "check")
    assert result.exit_code == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok   analysis") and "called the tool" in lines[0]
    assert lines[1].startswith("ok   challenger") and "called the tool" in lines[1]
    assert lines[2].startswith("ok   judge") and "without calling the tool" in lines[2]
    for server in (openai_server, anthropic_server, gemini_server):
        assert len(server.requests) == 1
        assert "ping" in server.requests[0].body.decode()


def test_check_reports_each_failure_and_exits_3(
    cli: Cli,
    tmp_path: Path,
    keys: None,
    openai_server: OpenAIFake,
    anthropic_server: AnthropicFake,
    gemini_server: GeminiFake,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(tmp_path, openai_server, anthropic_server, gemini_server)
    monkeypatch.setenv("THRESHER_CONFIG", str(tmp_path / "thresher.toml"))
    anthropic_server.api_key = "another-key"
    monkeypatch.delenv("GEMINI_API_KEY")
    openai_server.enqueue(OpenAIFake.text("ok"))
    result = cli("models", "check")
    assert result.exit_code == 3
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok   analysis")
    assert lines[1].startswith("FAIL challenger") and "HTTP 401" in lines[1]
    assert lines[2].startswith("FAIL judge") and "GEMINI_API_KEY is not set" in lines[2]


def test_check_one_agent_with_the_model_flag(
    cli: Cli, openai_server: OpenAIFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "thresher.toml").write_text(
        f'[providers.ollama]\nbase_url = "{openai_server.api_base}"\n'
    )
    monkeypatch.setenv("THRESHER_CONFIG", str(tmp_path / "thresher.toml"))
    openai_server.require_auth = False
    openai_server.enqueue(OpenAIFake.text("ok"))
    result = cli("--model", "judge=ollama:llama3.1", "models", "check", "--agent", "judge")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.startswith("ok   judge      ollama:llama3.1")


def test_model_flag_errors(cli: Cli) -> None:
    bad = cli("--model", "reviewer=openai:x", "models", "list")
    assert bad.exit_code == 2 and "unknown agent 'reviewer'" in bad.stderr
    unknown = cli("--model", "mystery:x", "models", "check")
    assert unknown.exit_code == 3
    assert "unknown provider 'mystery'" in unknown.stdout


def test_heuristic_default_needs_no_network(cli: Cli) -> None:
    result = cli("models", "check")
    assert result.exit_code == 0
    assert result.stdout.count("offline model") == 3
