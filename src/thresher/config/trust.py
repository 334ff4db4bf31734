"""The trust boundary for configuration: which layer may set what.

A scan runs on a checkout it must not trust: in a pull-request job the head of
the range is written by whoever opened the pull request. Settings decide where
requests go, which credential is sent, which agents, prompts, skills and rules
judge the change, so a setting is honoured only from a place the operator
controls:

- **operator** layers — ``--config``, ``THRESHER_CONFIG``, the user-level file
  under the XDG config directory, ``THRESHER_*`` variables and flags — may set
  anything;
- the **repository** layer — ``thresher.toml`` or ``[tool.thresher]`` found in
  the working directory — never sets a provider's host or the environment
  variable its key is read from, unless the operator says
  ``--trust-repo-config``; in a pull-request job it is read from the *base*
  commit, never from the checkout, and it may not name paths (they would
  resolve into the checkout the pull request controls) nor set a usage limit
  (``budget``: a tiny one would fail every job).

This module holds the vocabulary and the checks; ``config`` applies them and
the CLI decides, from the environment and ``--diff``, which mode a run is in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from thresher.errors import ConfigError

USER_CONFIG_NAME = "config.toml"
REPO_CONFIG_NAMES = ("thresher.toml", "pyproject.toml")
TRUST_FLAG = "--trust-repo-config"


class RepoMode(StrEnum):
    """Where the scanned repository's own configuration is read from."""

    WORKING_TREE = "working-tree"  # a local or push run: the checkout's files
    BASE_COMMIT = "base-commit"  # a pull request: the files as they are at the base
    NONE = "none"  # a pull request with no base to read: the repository is not read


class Layer(StrEnum):
    """Who wrote a configuration layer, for messages and the report."""

    USER = "user"
    EXPLICIT = "explicit"
    REPOSITORY = "repository"
    ENVIRONMENT = "environment"
    FLAGS = "flags"


@dataclass(frozen=True)
class RepoConfig:
    """How this run treats the repository's configuration.

    ``files`` holds, for ``BASE_COMMIT``, the content of each config file name as it
    is at ``commit`` (absent: the file does not exist there).
    """

    mode: RepoMode = RepoMode.WORKING_TREE
    commit: str | None = None
    files: Mapping[str, bytes] = field(default_factory=dict)
    trusted: bool = False
    reason: str = ""


def is_pull_request(environ: Mapping[str, str], *, diff: str | None) -> bool:
    """A pull-request job: GitHub says so, or a ``--diff`` scan runs in CI.

    ``--diff`` outside CI is a developer comparing their own branches: their
    checkout is their own and its configuration is theirs.
    """
    if environ.get("GITHUB_EVENT_NAME", "").startswith("pull_request"):
        return True
    return diff is not None and environ.get("CI", "").lower() in {"1", "true", "yes"}


def user_config_path(environ: Mapping[str, str]) -> Path | None:
    """``$XDG_CONFIG_HOME/thresher/config.toml``, else ``~/.config/thresher/config.toml``."""
    base = environ.get("XDG_CONFIG_HOME")
    if base:
        return Path(base) / "thresher" / USER_CONFIG_NAME
    home = environ.get("HOME")
    if home:
        return Path(home) / ".config" / "thresher" / USER_CONFIG_NAME
    return None


# Keys that decide where data goes and which credential travels with it.
_DESTINATION_KEYS = ("base_url", "api_key_env")


def check_repository_layer(
    layer: Mapping[str, Any], where: str, label: str, repo: RepoConfig
) -> None:
    """Refuse what a repository's configuration may not set (see the module docstring)."""
    if repo.trusted:
        return
    providers = layer.get("providers")
    if isinstance(providers, Mapping):
        for provider, table in providers.items():
            keys = [k for k in _DESTINATION_KEYS if isinstance(table, Mapping) and k in table]
            if keys:
                raise ConfigError(
                    f"{where}: '{label}providers.{provider}.{keys[0]}' is not accepted from the "
                    "repository's configuration: it decides where requests and keys are sent",
                    hint=f"set it in --config, THRESHER_CONFIG or {_user_hint()}, "
                    f"or pass {TRUST_FLAG} if you trust this repository",
                )
    if "budget" in layer:
        raise ConfigError(
            f"{where}: '{label}budget' is not accepted from the repository's configuration: "
            "a usage limit decides whether the job fails",
            hint=f"set it in --config, THRESHER_CONFIG or {_user_hint()}, or with "
            f"--max-tokens-per-finding, or pass {TRUST_FLAG} if you trust this repository",
        )
    if repo.mode is RepoMode.BASE_COMMIT:
        check_no_paths(layer, where, label)


def check_no_paths(layer: Mapping[str, Any], where: str, label: str) -> None:
    """Refuse a layer read from a base commit that names a path: in a pull-request job
    paths resolve into the checkout the pull request controls."""
    for key in _path_keys(layer):
        raise ConfigError(
            f"{where}: '{label}{key}' names a path, and in a pull-request job paths "
            "resolve into the checkout the pull request controls",
            hint="name it in --config or THRESHER_CONFIG with a path outside the checkout",
        )


def _path_keys(layer: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    if "prompts_dir" in layer:
        found.append("prompts_dir")
    for agent, table in _tables(layer.get("agents")):
        if "definition" in table:
            found.append(f"agents.{agent}.definition")
    for agent, table in _tables(layer.get("skills")):
        for key in ("directories", "mounts"):
            if table.get(key):
                found.append(f"skills.{agent}.{key}")
    return found


def _tables(value: Any) -> list[tuple[str, Mapping[str, Any]]]:
    if not isinstance(value, Mapping):
        return []
    return [(str(k), v) for k, v in value.items() if isinstance(v, Mapping)]


def _user_hint() -> str:
    return f"~/.config/thresher/{USER_CONFIG_NAME}"
