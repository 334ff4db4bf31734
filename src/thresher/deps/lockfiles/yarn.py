"""``yarn.lock``: Yarn 1's own format and Yarn Berry's YAML (recognised by ``__metadata``).

An entry is keyed by every range that resolved to it and records the resolved
``version``. Only registry releases are dependencies: Berry's ``workspace:`` entries
are the project itself, ``patch:`` entries duplicate the npm release they patch (which
is listed on its own), and git, file, link and portal sources have no release to
match. Neither format records direct or dev, so both stay unknown.
"""

from __future__ import annotations

import json
import re

import yaml

from thresher.deps.lockfiles._base import (
    check_size,
    compose_yaml,
    dependency,
    physical_lines,
    unique,
    yaml_mapping,
    yaml_scalar,
)
from thresher.deps.model import Dependency, Ecosystem, LockfileError

_BERRY = re.compile(r"^__metadata:", re.M)
_NON_REGISTRY = ("file:", "link:", "portal:", "workspace:", "git", "http:", "https:", "patch:")
_FIELD = re.compile(r'^(?P<key>"(?:[^"\\]|\\.)*"|[^\s":]+):?\s+(?P<value>.+)$')


def parse(path: str, text: str) -> list[Dependency]:
    check_size(path, text)
    if _BERRY.search(text):
        return _parse_berry(path, text)
    return _parse_v1(path, text)


def _split_spec(spec: str) -> tuple[str, str]:
    """``@scope/name@^1.0`` -> (``@scope/name``, ``^1.0``); aliases resolve to the real name."""
    at = spec.find("@", 1)
    if at < 0:
        return spec, ""
    name, rng = spec[:at], spec[at + 1 :]
    if rng.startswith("npm:") and "@" in rng[5:]:
        return _split_spec(rng[4:])
    return name, rng


def _unquote(token: str) -> str:
    token = token.strip()
    if len(token) >= 2 and token[0] == token[-1] == '"':
        try:
            value = json.loads(token)
        except json.JSONDecodeError:
            return token[1:-1]
        return value if isinstance(value, str) else token[1:-1]
    return token


def _parse_v1(path: str, text: str) -> list[Dependency]:
    deps: list[Dependency] = []
    header: tuple[int, list[tuple[str, str]]] | None = None
    version: str | None = None

    def close() -> None:
        if header is None:
            return
        number, specs = header
        if version is None:
            raise LockfileError(path, "entry has no version", line=number)
        name, rng = specs[0]
        if not rng.startswith(_NON_REGISTRY) and version[:1].isdigit():
            deps.append(dependency(Ecosystem.NPM, name, version, path, number))

    for number, raw in enumerate(physical_lines(text), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not raw[0].isspace():
            close()
            if not stripped.endswith(":"):
                raise LockfileError(path, "an entry must end with ':'", line=number)
            specs = [_split_spec(_unquote(s)) for s in stripped[:-1].split(",") if s.strip()]
            if not specs or not specs[0][0]:
                raise LockfileError(path, "an entry names no package", line=number)
            header, version = (number, specs), None
            continue
        if header is None:
            raise LockfileError(path, "an indented line outside any entry", line=number)
        if raw.startswith("  ") and not raw.startswith("   ") and stripped.startswith("version"):
            field = _FIELD.match(stripped)
            if field is None or _unquote(field.group("key")) != "version":
                raise LockfileError(path, 'a version line must read: version "1.2.3"', line=number)
            version = _unquote(field.group("value"))
    close()
    return unique(deps)


def _parse_berry(path: str, text: str) -> list[Dependency]:
    root = compose_yaml(path, text)
    deps = []
    for key, node, line in yaml_mapping(path, root, "the lockfile"):
        if key == "__metadata":
            continue
        fields = {k: v for k, v, _ in yaml_mapping(path, node, f'"{key}"')}
        version = yaml_scalar(fields.get("version"))
        resolution = yaml_scalar(fields.get("resolution"))
        if version is None or resolution is None:
            raise LockfileError(path, f'"{key}" has no version or resolution', line=line)
        at = resolution.find("@", 1)
        name, source = resolution[:at], resolution[at + 1 :]
        if at < 0 or not source.startswith("npm:"):
            continue  # workspace:, patch:, git, file, link, portal: no registry release
        if version[:1].isdigit():
            deps.append(dependency(Ecosystem.NPM, name, version, path, line))
    return unique(deps)


__all__ = ["parse", "yaml"]
