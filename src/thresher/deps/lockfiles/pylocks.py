"""Python lockfiles: ``poetry.lock``, ``Pipfile.lock`` and ``uv.lock``.

Each records the whole resolved environment. What each says about direct and dev:

- poetry.lock: ``category = "dev"`` (Poetry < 1.5) or ``groups = [...]`` (Poetry 2)
  give dev; it does not say which packages are direct.
- Pipfile.lock: ``default`` against ``develop`` gives dev; direct is not recorded.
- uv.lock: the project's own packages (editable, virtual or directory sources) list
  their dependencies and dev groups, so direct is known and dev-only follows from the
  dependency graph.
"""

from __future__ import annotations

from typing import Any

from packaging.utils import canonicalize_name

from thresher.deps.lockfiles._base import (
    dependency,
    dev_only,
    json_key_lines,
    load_json,
    load_toml,
    toml_package_lines,
    unique,
)
from thresher.deps.lockfiles.manifests import Reader, pipfile_direct, pyproject_direct
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

_LOCAL_SOURCES = ("editable", "virtual", "directory")


def _packages(path: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    packages = data.get("package", [])
    if not isinstance(packages, list) or not all(isinstance(p, dict) for p in packages):
        raise LockfileError(path, "[[package]] is not a list of tables")
    for index, package in enumerate(packages):
        for key in ("name", "version"):
            if key in package and not isinstance(package[key], str):
                raise LockfileError(path, f"package #{index + 1}: {key} is not a string")
        if not isinstance(package.get("name"), str) or not package["name"]:
            raise LockfileError(path, f"package #{index + 1} has no name")
    return packages


def parse_poetry(path: str, text: str, read: Reader | None = None) -> list[Dependency]:
    packages = _packages(path, load_toml(path, text))
    lines = toml_package_lines(text, [p["name"] for p in packages])
    direct = pyproject_direct(path, read)
    deps = []
    for package, line in zip(packages, lines, strict=True):
        version = package.get("version")
        source = package.get("source")
        if not version or (isinstance(source, dict) and source.get("type") == "directory"):
            continue  # a local path project: the user's own code, not a published release
        deps.append(
            dependency(
                Ecosystem.PYPI,
                canonicalize_name(package["name"]),
                version,
                path,
                line,
                _relation(canonicalize_name(package["name"]), direct),
                _poetry_dev(package),
            )
        )
    return unique(deps)


def _poetry_dev(package: dict[str, Any]) -> bool | None:
    category = package.get("category")
    if category in ("main", "dev"):
        return bool(category == "dev")
    groups = package.get("groups")
    if isinstance(groups, list) and groups:
        return "main" not in groups
    return None


def parse_pipfile_lock(path: str, text: str, read: Reader | None = None) -> list[Dependency]:
    data = load_json(path, text)
    if not isinstance(data, dict):
        raise LockfileError(path, "is not a JSON object", line=1)
    lines = json_key_lines(text, lambda parent, _key: parent in (("default",), ("develop",)))
    direct = pipfile_direct(path, read)
    deps = []
    for section, dev in (("default", False), ("develop", True)):
        entries = data.get(section, {})
        if not isinstance(entries, dict):
            raise LockfileError(path, f'"{section}" is not an object', line=lines.get((section,)))
        for name, entry in entries.items():
            line = lines.get((section, name), 1)
            if not isinstance(entry, dict):
                raise LockfileError(path, f'"{name}" is not an object', line=line)
            version = entry.get("version")
            if version is None:
                continue  # git, path or editable: no released version to match
            if not isinstance(version, str) or not version.startswith("=="):
                raise LockfileError(path, f'"{name}": version {version!r} is not a pin', line=line)
            deps.append(
                dependency(
                    Ecosystem.PYPI,
                    canonicalize_name(name),
                    version.removeprefix("==").removeprefix("="),
                    path,
                    line,
                    _relation(canonicalize_name(name), direct),
                    dev,
                )
            )
    return unique(deps)


def parse_uv(path: str, text: str, _read: object = None) -> list[Dependency]:
    packages = _packages(path, load_toml(path, text))
    lines = toml_package_lines(text, [p["name"] for p in packages])

    local = [p for p in packages if _is_local(p)]
    prod_roots: list[str] = []
    dev_roots: list[str] = []
    for package in local:
        prod_roots += _names(package.get("dependencies"))
        optional = package.get("optional-dependencies")
        if isinstance(optional, dict):
            for group in optional.values():
                prod_roots += _names(group)
        groups = package.get("dev-dependencies")
        if isinstance(groups, dict):
            for group in groups.values():
                dev_roots += _names(group)
    edges: dict[str, list[str]] = {
        str(canonicalize_name(p["name"])): _names(p.get("dependencies"))
        + [n for g in _dict_values(p.get("optional-dependencies")) for n in _names(g)]
        for p in packages
        if not _is_local(p)
    }
    dev: dict[str, bool] = dev_only(edges, prod_roots, dev_roots)
    direct = set(prod_roots) | set(dev_roots)
    deps = []
    for package, line in zip(packages, lines, strict=True):
        version = package.get("version")
        if _is_local(package) or not version:
            continue
        name = canonicalize_name(package["name"])
        relation = Relation.DIRECT if name in direct else Relation.TRANSITIVE
        if not local:  # no project package recorded: the graph has no roots to judge by
            relation = Relation.UNKNOWN
        deps.append(dependency(Ecosystem.PYPI, name, version, path, line, relation, dev.get(name)))
    return unique(deps)


def _is_local(package: dict[str, Any]) -> bool:
    source = package.get("source")
    return isinstance(source, dict) and any(kind in source for kind in _LOCAL_SOURCES)


def _names(entries: Any) -> list[str]:
    """The normalised names of a uv dependency list (``[{ name = "x" }, ...]``)."""
    if not isinstance(entries, list):
        return []
    return [
        canonicalize_name(entry["name"])
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("name"), str)
    ]


def _dict_values(value: Any) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else []


def _relation(name: str, direct: set[str] | None) -> Relation:
    """Direct or transitive by the manifest beside the lockfile; unknown without one."""
    if direct is None:
        return Relation.UNKNOWN
    return Relation.DIRECT if name in direct else Relation.TRANSITIVE
