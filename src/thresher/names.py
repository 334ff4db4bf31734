"""Closed vocabularies the CLI needs at import time, kept free of heavy imports."""

from __future__ import annotations

from enum import StrEnum


class AgentName(StrEnum):
    """The three agent roles of the tribunal."""

    ANALYSIS = "analysis"
    CHALLENGER = "challenger"
    JUDGE = "judge"
