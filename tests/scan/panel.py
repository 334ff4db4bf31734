"""Operator configuration for the end-to-end scans: agents on the loopback fakes.

The operator's file (``THRESHER_CONFIG``), never the repository's: a repository's own
file cannot set provider hosts (README, Security model).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake

MODELS = {
    "openai": "openai:gpt-4.1",
    "anthropic": "anthropic:claude-sonnet-4-5",
    "gemini": "gemini:gemini-2.5-pro",
}


def panel_config(
    openai_server: OpenAIFake,
    anthropic_server: AnthropicFake,
    gemini_server: GeminiFake,
    *,
    analysis: str = "openai",
    challenger: str = "anthropic",
    judge: str = "gemini",
    extra: str = "",
) -> str:
    """An operator's file putting each agent on one protocol's loopback fake."""
    return f"""
[agents.analysis]
model = "{MODELS[analysis]}"
[agents.challenger]
model = "{MODELS[challenger]}"
[agents.judge]
model = "{MODELS[judge]}"
[providers.openai]
base_url = "{openai_server.api_base}"
[providers.anthropic]
base_url = "{anthropic_server.base_url}"
[providers.gemini]
base_url = "{gemini_server.base_url}"
{extra}"""


def operator_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    path = tmp_path / "ops.toml"
    path.write_text(text)
    monkeypatch.setenv("THRESHER_CONFIG", str(path))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.setenv(name, "loopback-test-key")


def one_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: OpenAIFake) -> None:
    agents = "".join(
        f'[agents.{a}]\nmodel = "openai:gpt-4.1"\n' for a in ("analysis", "challenger", "judge")
    )
    operator_config(
        tmp_path,
        monkeypatch,
        f'{agents}[providers.openai]\nbase_url = "{server.api_base}"\n'
        "[http]\nmax_attempts = 1\nbreaker_failures = 3\n",
    )
