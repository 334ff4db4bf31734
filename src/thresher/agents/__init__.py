"""Agents: definitions, prompt rendering and the tools they may use."""
