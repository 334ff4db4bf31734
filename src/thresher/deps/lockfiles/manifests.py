"""The manifest beside a lockfile: which packages the project names itself.

Several lockfiles record the whole resolved tree but not which of its packages the
project asked for (npm's version 1, composer.lock, poetry.lock, Pipfile.lock). The
manifest next to them (package.json, composer.json, pyproject.toml, Pipfile) does, so
when it is there its names make those packages direct and the rest transitive. A
manifest that does not parse is an error naming the manifest: a project whose
manifest is broken cannot be installed either, and guessing would mislabel packages.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any

from packaging.utils import canonicalize_name

from thresher.deps.lockfiles._base import load_json, load_toml
from thresher.deps.model import LockfileError

Reader = Callable[[str], str | None]

_PEP508_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_NPM_LISTS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


def _beside(path: str, name: str, read: Reader | None) -> tuple[str, str] | None:
    if read is None:
        return None
    where = posixpath.join(posixpath.dirname(path), name)
    text = read(where)
    return None if text is None else (where, text)


def _object(where: str, data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise LockfileError(where, "is not an object or table", line=1)
    return data


def _keys(value: Any) -> list[str]:
    return [key for key in value if isinstance(key, str)] if isinstance(value, dict) else []


def npm_direct(path: str, read: Reader | None) -> set[str] | None:
    """The package names package.json lists, or None without a package.json."""
    found = _beside(path, "package.json", read)
    if found is None:
        return None
    data = _object(found[0], load_json(*found))
    return {name for field in _NPM_LISTS for name in _keys(data.get(field))}


def composer_direct(path: str, read: Reader | None) -> set[str] | None:
    """composer.json's ``require`` and ``require-dev`` packages (lower-cased)."""
    found = _beside(path, "composer.json", read)
    if found is None:
        return None
    data = _object(found[0], load_json(*found))
    return {name.lower() for field in ("require", "require-dev") for name in _keys(data.get(field))}


def pipfile_direct(path: str, read: Reader | None) -> set[str] | None:
    """The Pipfile's ``[packages]`` and ``[dev-packages]``, normalised."""
    found = _beside(path, "Pipfile", read)
    if found is None:
        return None
    data = load_toml(*found)
    return {
        canonicalize_name(name)
        for table in ("packages", "dev-packages")
        for name in _keys(data.get(table))
    }


def pyproject_direct(path: str, read: Reader | None) -> set[str] | None:
    """Every dependency pyproject.toml names: PEP 621 ``[project]`` lists, PEP 735
    ``[dependency-groups]`` and Poetry's own tables, normalised."""
    found = _beside(path, "pyproject.toml", read)
    if found is None:
        return None
    data = load_toml(*found)
    raw_project = data.get("project")
    project: dict[str, Any] = raw_project if isinstance(raw_project, dict) else {}
    listed = project.get("dependencies")
    strings: list[Any] = list(listed) if isinstance(listed, list) else []
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        strings += [
            spec for group in optional.values() if isinstance(group, list) for spec in group
        ]
    groups = data.get("dependency-groups")
    if isinstance(groups, dict):
        strings += [spec for group in groups.values() if isinstance(group, list) for spec in group]
    names: set[str] = {
        canonicalize_name(match.group(1))
        for spec in strings
        if isinstance(spec, str) and (match := _PEP508_NAME.match(spec)) is not None
    }
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        group = poetry.get("group")
        if isinstance(group, dict):
            tables += [g.get("dependencies") for g in group.values() if isinstance(g, dict)]
        names |= {canonicalize_name(n) for table in tables for n in _keys(table)}
    names.discard(canonicalize_name("python"))
    return names
