"""Settings: defaults < user file < config file < ``THRESHER_*`` environment < flags.

The config file is ``thresher.toml`` (keys at the top level) or the
``[tool.thresher]`` table of ``pyproject.toml``, found in the working directory or
named with ``--config`` / ``THRESHER_CONFIG``. A file found in the working
directory belongs to the repository being scanned and is held to the rules of
``thresher.config.trust``. Every layer is validated on its own first, so an unknown key
or a bad value is reported against the file or environment variable that holds
it, not against the merged result.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from thresher.config.files import (
    ENV_CONFIG,
    deep_merge,
    env_layer,
    env_name,
    explicit,
    find_config,
    parse_toml,
    read_toml,
    resolve_paths,
    thresher_table,
)
from thresher.config.trust import (
    REPO_CONFIG_NAMES,
    Layer,
    RepoConfig,
    RepoMode,
    check_repository_layer,
    user_config_path,
)
from thresher.errors import ConfigError
from thresher.findings.rules.book import Rule, RuleError
from thresher.names import AgentName, ProviderName

__all__ = [
    "AgentName",
    "AgentSettings",
    "AgentSkills",
    "BudgetSettings",
    "HttpSettings",
    "LoadedSettings",
    "ProviderName",
    "ProviderSettings",
    "RepoConfig",
    "RepoMode",
    "RuleSettings",
    "Settings",
    "SkillMount",
    "load_settings",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SkillMount(_Frozen):
    """A skill directory or a single ``.md`` file mounted into one agent's catalog."""

    source: Path
    name: str | None = None
    enabled: bool = True


class AgentSkills(_Frozen):
    """Per-agent skill configuration: disabled names, extra trees and mounts."""

    disabled: tuple[str, ...] = ()
    directories: tuple[Path, ...] = ()
    mounts: tuple[SkillMount, ...] = ()


class AgentSettings(_Frozen):
    """Per-agent overrides of the bundled agent definition."""

    model: str | None = None
    definition: Path | None = Field(
        default=None, description="an *.agent.md file replacing the bundled one"
    )

    @field_validator("model")
    @classmethod
    def _provider_model(cls, value: str | None) -> str | None:
        if value is not None:
            provider, sep, model = value.partition(":")
            if not sep or not provider or not model:
                raise ValueError(f"expected 'provider:model', got {value!r}")
        return value


class ProviderSettings(_Frozen):
    """Where a provider lives and which environment variable holds its key."""

    base_url: str | None = None
    api_key_env: str | None = None

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {value!r}")
        return value


class RuleSettings(Rule):
    """A custom detector, in the format of the built-in rules (``thresher rules show``):
    ``id`` and ``pattern`` (RE2; the named group ``secret``, else the whole match, is the
    value) and optionally ``keywords``, ``value_group``, ``kind``, ``key_group`` /
    ``key_words``, ``min_length``, ``min_entropy``, ``checks``, ``path``, ``severity``,
    ``description``, ``provider``, ``secret_type``."""

    @model_validator(mode="after")
    def _compiles(self) -> RuleSettings:
        """RE2, as the scanner and the redactor run it: a rule runs on every line of a
        repository that may be hostile, so it must run in linear time."""
        try:
            self.compiled()
            self.compiled_path()
        except RuleError as exc:
            raise ValueError(exc.message) from None
        return self


class BudgetSettings(_Frozen):
    """Usage limits an operator sets in a file (``--max-tokens-per-finding`` overrides).

    ``max_tokens_per_finding`` bounds every escalated finding's agent sessions together
    (input and output tokens; each request reserves its estimate before it is sent). A
    finding that reaches it keeps its offline decision, says why, and the run exits 3.
    A repository's own configuration may not set it: it decides whether the job fails.
    """

    max_tokens_per_finding: int | None = Field(default=None, ge=1)


class HttpSettings(_Frozen):
    """How long a model request may take, and when a provider is given up on.

    ``total_timeout`` bounds one attempt from its first byte sent to its last byte
    read: a server that drips a byte every few seconds never trips a read timeout, so
    the read timeout alone bounds nothing. A request with all its retries and waits
    ends within twice ``total_timeout``. After
    ``breaker_failures`` consecutive failed requests a provider's circuit opens and
    the rest of the run is decided offline.
    """

    connect_timeout: float = Field(default=10.0, gt=0)
    read_timeout: float = Field(default=60.0, gt=0)
    total_timeout: float = Field(default=180.0, gt=0)
    max_attempts: int = Field(default=4, ge=1, le=10)
    breaker_failures: int = Field(default=3, ge=1)


class Settings(_Frozen):
    """Resolved settings for one invocation."""

    color: bool = True
    prompts_dir: Path | None = Field(
        default=None, description="a directory of prompt templates replacing the bundled ones"
    )
    agents: dict[AgentName, AgentSettings] = Field(default_factory=dict)
    skills: dict[AgentName, AgentSkills] = Field(default_factory=dict)
    providers: dict[ProviderName, ProviderSettings] = Field(default_factory=dict)
    rules: tuple[RuleSettings, ...] = ()
    http: HttpSettings = Field(default_factory=HttpSettings)
    budget: BudgetSettings = Field(default_factory=BudgetSettings)

    def agent(self, name: AgentName) -> AgentSettings:
        return self.agents.get(name, AgentSettings())

    def agent_skills(self, name: AgentName) -> AgentSkills:
        return self.skills.get(name, AgentSkills())

    def provider(self, name: ProviderName) -> ProviderSettings:
        return self.providers.get(name, ProviderSettings())


class LoadedSettings(_Frozen):
    """Settings plus where they came from, for messages and relative paths.

    ``sources`` names every layer that was read (``repository: thresher.toml at
    3f2a1c0``); ``notices`` says what was deliberately not read and why, so a user
    whose configuration was left out of a pull-request job is told, not surprised.
    """

    settings: Settings
    config_file: Path | None = None
    sources: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()


def load_settings(
    *,
    config_path: Path | None = None,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    repo: RepoConfig | None = None,
) -> LoadedSettings:
    """Resolve settings from every layer; raise ``ConfigError`` naming the culprit.

    Layers, lowest first: the user-level file, then either the explicit file
    (``--config`` / ``THRESHER_CONFIG``) or the repository's own file (under the
    rules of ``thresher.config.trust``), then ``THRESHER_*`` variables, then flags.
    """
    env = os.environ if environ is None else environ
    base = Path.cwd() if cwd is None else cwd
    repo = repo or RepoConfig()
    if config_path is None and env.get(ENV_CONFIG):
        config_path = Path(env[ENV_CONFIG])

    layers: list[dict[str, Any]] = []
    sources: list[str] = []
    notices: list[str] = []
    user_file = user_config_path(env)
    if user_file is not None and user_file.is_file():
        layers.append(_file_layer(user_file, read_toml(user_file), None))
        sources.append(f"{Layer.USER.value}: {user_file}")
    config_file: Path | None = None
    if config_path is not None:
        config_file = explicit(config_path, base)
        layers.append(_file_layer(config_file, read_toml(config_file), None))
        sources.append(f"{Layer.EXPLICIT.value}: {config_file}")
    else:
        found = _repository_layer(base, repo, notices)
        if found is not None:
            layer, label, config_file = found
            layers.append(layer)
            sources.append(f"{Layer.REPOSITORY.value}: {label}")
    from_env = env_layer(env)
    _check_layer(
        from_env,
        lambda key: f"unknown setting {env_name(key)} in the environment",
        lambda key: f"environment variable {env_name(key)}",
    )
    layers.append(resolve_paths(from_env, base))
    flag_layer = dict(overrides or {})
    _check_layer(
        flag_layer,
        lambda key: f"unknown setting '{key}' from the command line",
        lambda key: f"command-line setting '{key}'",
    )
    layers.append(flag_layer)

    merged: dict[str, Any] = {}
    for layer in layers:
        merged = deep_merge(merged, layer)
    settings = Settings.model_validate(merged)
    return LoadedSettings(
        settings=settings,
        config_file=config_file,
        sources=tuple(sources),
        notices=tuple(notices),
    )


def _file_layer(
    path: Path, data: dict[str, Any], repo: RepoConfig | None, *, where: str | None = None
) -> dict[str, Any]:
    """One file's layer, checked on its own; ``repo`` set for the repository's file."""
    where = where or str(path)
    table, label = thresher_table(path.name, data, where)
    _check_layer(
        table,
        lambda key: f"unknown key '{label}{key}' in {where}",
        lambda key: f"{where}: '{label}{key}'",
    )
    if repo is not None:
        check_repository_layer(table, where, label, repo)
    return resolve_paths(table, path.parent)


def _repository_layer(
    cwd: Path, repo: RepoConfig, notices: list[str]
) -> tuple[dict[str, Any], str, Path | None] | None:
    """The repository's own file, as the run's mode allows it to be read."""
    match repo.mode:
        case RepoMode.WORKING_TREE:
            found = find_config(cwd)
            if found is None:
                return None
            return _file_layer(found, read_toml(found), repo), str(found), found
        case RepoMode.BASE_COMMIT:
            short = (repo.commit or "?")[:12]
            in_checkout = [n for n in REPO_CONFIG_NAMES if (cwd / n).is_file()]
            if in_checkout:
                notices.append(
                    f"pull request: ignoring the checkout's {' and '.join(in_checkout)}; "
                    f"configuration comes from the base commit {short}"
                )
            for name in REPO_CONFIG_NAMES:
                content = repo.files.get(name)
                if content is None:
                    continue
                where = f"{name} at {short}"
                data = parse_toml(content, where)
                if name == "pyproject.toml" and "thresher" not in data.get("tool", {}):
                    continue
                return _file_layer(cwd / name, data, repo, where=where), where, None
            return None
        case RepoMode.NONE:
            if any((cwd / n).is_file() for n in REPO_CONFIG_NAMES):
                notices.append(
                    "pull request: the checkout's configuration is not read "
                    f"({repo.reason or 'no base commit to read it from'}); "
                    "pass --config or THRESHER_CONFIG to configure this job"
                )
            return None


def _check_layer(
    layer: dict[str, Any], unknown: Callable[[str], str], where: Callable[[str], str]
) -> None:
    try:
        Settings.model_validate(layer)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        if first["type"] == "extra_forbidden":
            raise ConfigError(unknown(key), hint=_KNOWN_KEYS_HINT) from None
        raise ConfigError(f"{where(key)}: {first['msg']}", hint=_KNOWN_KEYS_HINT) from None


_KNOWN_KEYS_HINT = (
    "known keys: color, prompts_dir, agents.<agent>.model, agents.<agent>.definition, "
    "skills.<agent>.disabled, skills.<agent>.directories, skills.<agent>.mounts, "
    "providers.<provider>.base_url, providers.<provider>.api_key_env, "
    "rules (id, pattern and the built-in rules' fields: `thresher rules show ID`), "
    "http.connect_timeout, http.read_timeout, "
    "http.total_timeout, http.max_attempts, http.breaker_failures, "
    "budget.max_tokens_per_finding "
    "(agents: analysis, challenger, judge); see the README's Configuration section"
)
