"""Make the fake-server fixtures available to the self-tests in this directory."""

from tests.fakes.fixtures import (  # noqa: F401
    anthropic_server,
    gemini_server,
    github_models_server,
    openai_server,
)
