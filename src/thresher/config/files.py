"""Reading configuration layers: TOML files, ``THRESHER_*`` variables, merging.

Pure functions over files and mappings, kept apart from the settings models in
``config`` (which validates each layer and applies the trust rules).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from thresher.errors import ConfigError

ENV_PREFIX = "THRESHER_"
ENV_CONFIG = "THRESHER_CONFIG"
_NESTING = "__"


def explicit(explicit: Path, cwd: Path) -> Path:
    path = explicit if explicit.is_absolute() else cwd / explicit
    if not path.is_file():
        raise ConfigError(
            f"config file not found: {explicit}",
            hint="pass an existing thresher.toml or pyproject.toml to --config",
        )
    return path


def find_config(cwd: Path) -> Path | None:
    dedicated = cwd / "thresher.toml"
    if dedicated.is_file():
        return dedicated
    pyproject = cwd / "pyproject.toml"
    if pyproject.is_file() and names_thresher(pyproject):
        return pyproject
    return None


def names_thresher(pyproject: Path) -> bool:
    """Whether a found ``pyproject.toml`` configures thresher. A project's own file that is
    broken but has no ``[tool.thresher]`` table is the project's business, not a reason
    to refuse the scan."""
    try:
        return "thresher" in read_toml(pyproject).get("tool", {})
    except ConfigError:
        try:
            text = pyproject.read_bytes().decode("utf-8", errors="replace")
        except OSError:
            return False
        if "tool.thresher" in text:
            raise  # it does try to configure thresher: say what is wrong with it
        return False


def read_toml(path: Path) -> dict[str, Any]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
    return parse_toml(data, str(path))


def parse_toml(data: bytes, where: str) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}", hint="fix the syntax") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{where}: not UTF-8 text (byte {exc.start})", hint="TOML files are UTF-8"
        ) from None


def thresher_table(name: str, data: dict[str, Any], where: str) -> tuple[dict[str, Any], str]:
    if name == "pyproject.toml":
        table = data.get("tool", {}).get("thresher", {})
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: [tool.thresher] must be a table")
        return table, "tool.thresher."
    return data, ""


def env_name(dotted: str) -> str:
    return ENV_PREFIX + dotted.replace(".", _NESTING).upper()


def env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    """``THRESHER_AGENTS__ANALYSIS__MODEL=x`` -> ``{"agents": {"analysis": {"model": "x"}}}``.

    Values starting with ``[`` or ``{`` are JSON (lists, mount tables); anything
    else stays a string and pydantic coerces it (``"false"`` -> ``False``).
    """
    layer: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX) or name == ENV_CONFIG:
            continue
        parts = [part.lower() for part in name[len(ENV_PREFIX) :].split(_NESTING)]
        if not all(parts):
            raise ConfigError(
                f"malformed environment variable name {name}",
                hint="nest keys with a double underscore",
            )
        value: Any = raw
        if raw.strip().startswith(("[", "{")):
            try:
                value = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"environment variable {name}: invalid JSON: {exc}") from exc
        node = layer
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"environment variable {name} conflicts with another one")
        node[parts[-1]] = value
    return layer


def resolve_paths(layer: dict[str, Any], base: Path) -> dict[str, Any]:
    """Make relative paths absolute against the file (or cwd) that named them."""

    def fix(value: Any) -> Any:
        return (
            str(base / value) if isinstance(value, str) and not Path(value).is_absolute() else value
        )

    out = json.loads(json.dumps(layer, default=str))
    if "prompts_dir" in out:
        out["prompts_dir"] = fix(out["prompts_dir"])
    for agent in (out.get("agents") or {}).values():
        if isinstance(agent, dict) and "definition" in agent:
            agent["definition"] = fix(agent["definition"])
    for skills in (out.get("skills") or {}).values():
        if not isinstance(skills, dict):
            continue
        if isinstance(skills.get("directories"), list):
            skills["directories"] = [fix(item) for item in skills["directories"]]
        for mount in skills.get("mounts") or []:
            if isinstance(mount, dict) and "source" in mount:
                mount["source"] = fix(mount["source"])
    return dict(out)


def deep_merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged
