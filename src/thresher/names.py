"""Closed vocabularies the CLI needs at import time, kept free of heavy imports."""

from __future__ import annotations

from enum import StrEnum


class AgentName(StrEnum):
    """The three agent roles of the tribunal."""

    ANALYSIS = "analysis"
    CHALLENGER = "challenger"
    JUDGE = "judge"


class ProviderName(StrEnum):
    """The ``provider`` of a ``provider:model`` string."""

    OPENAI = "openai"
    GITHUB = "github"
    OLLAMA = "ollama"
    OPENAI_COMPATIBLE = "openai-compatible"
    ANTHROPIC = "anthropic"
    GEMINI = "gemini"
    HEURISTIC = "heuristic"
