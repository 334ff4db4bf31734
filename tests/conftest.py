"""Shared fixtures. A network guard refuses every connection off loopback."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from thresher.cli import app
from thresher.skills import SkillLoader

_real_connect = socket.socket.connect
_real_getaddrinfo = socket.getaddrinfo


class NetworkAccessError(RuntimeError):
    """Raised when a test tries to reach anything but loopback."""


def _is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if host in {"localhost", "localhost.localdomain"}:
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
        raise NetworkAccessError(f"test tried to connect to {address!r}; only loopback allowed")
    return _real_connect(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if host is not None and not _is_loopback(host):
        raise NetworkAccessError(f"test tried to resolve {host!r}; only loopback allowed")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def _no_network() -> Iterator[None]:
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.getaddrinfo = _guarded_getaddrinfo
    try:
        yield
    finally:
        socket.socket.connect = _real_connect  # type: ignore[method-assign]
        socket.getaddrinfo = _real_getaddrinfo


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No setting from the developer's shell or the CI runner leaks into a test.

    ``CI`` and ``GITHUB_*`` decide whether a run is a pull-request job (see
    ``thresher.config.trust``); a test that wants one sets them itself.
    """
    import os

    for name in list(os.environ):
        if name.startswith(("THRESHER_", "GITHUB_")) or name in {"CI", "GH_TOKEN"}:
            monkeypatch.delenv(name)


def write_skill(
    directory: Path,
    name: str | None = None,
    *,
    description: str = "Explains how to check one thing and when to load it.",
    metadata: dict[str, str] | None = None,
    extra: str = "",
    body: str = "# Title\n\nSteps.\n",
    frontmatter: str | None = None,
) -> Path:
    """Write ``directory/SKILL.md``; ``frontmatter`` replaces the generated block."""
    directory.mkdir(parents=True, exist_ok=True)
    if frontmatter is None:
        lines = [f"name: {name or directory.name}", f"description: {description}"]
        if metadata:
            lines.append("metadata:")
            lines += [f'  {key}: "{value}"' for key, value in metadata.items()]
        frontmatter = "\n".join(lines) + ("\n" + extra if extra else "")
    path = directory / "SKILL.md"
    path.write_text(f"---\n{frontmatter}\n---\n{body}", encoding="utf-8")
    return path


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Run thresher in an empty working directory, through the real error boundary."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(app, list(args))

    return invoke


@pytest.fixture
def loader() -> SkillLoader:
    return SkillLoader()


@pytest.fixture
def skill_root(tmp_path: Path) -> Path:
    """An empty bundled-style root: ``<root>/<agent>/...``."""
    root = tmp_path / "skills"
    for agent in ("analysis", "challenger", "judge"):
        (root / agent).mkdir(parents=True)
    return root


from tests.fakes.fixtures import (  # noqa: E402,F401 - fixtures for every test
    anthropic_server,
    gemini_server,
    github_models_server,
    openai_server,
)
