"""``Cargo.lock``: every ``[[package]]`` with a registry ``source``.

Packages without a ``source`` are the workspace's own crates; they are skipped, but
their ``dependencies`` name the crates the project depends on directly. Git and path
crates are not crates.io releases and are skipped too. Cargo.lock does not separate
dev-dependencies, so dev stays unknown.
"""

from __future__ import annotations

from typing import Any

from thresher.deps.lockfiles._base import dependency, load_toml, toml_package_lines, unique
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

_REGISTRY = ("registry+", "sparse+")


def parse(path: str, text: str, _read: object = None) -> list[Dependency]:
    data = load_toml(path, text)
    packages = data.get("package", [])
    if not isinstance(packages, list) or not all(isinstance(p, dict) for p in packages):
        raise LockfileError(path, "[[package]] is not a list of tables")
    for index, package in enumerate(packages):
        if not isinstance(package.get("name"), str) or not isinstance(package.get("version"), str):
            raise LockfileError(path, f"package #{index + 1} has no name or version")
    lines = toml_package_lines(text, [p["name"] for p in packages])
    direct: set[str] = set()
    for package in packages:
        if "source" not in package:
            direct.update(_dependency_names(package.get("dependencies")))
    deps = []
    for package, line in zip(packages, lines, strict=True):
        source = package.get("source")
        if not isinstance(source, str) or not source.startswith(_REGISTRY):
            continue
        name = package["name"]
        relation = Relation.DIRECT if name in direct else Relation.TRANSITIVE
        deps.append(
            dependency(Ecosystem.CRATES_IO, name, package["version"], path, line, relation, None)
        )
    return unique(deps)


def _dependency_names(value: Any) -> list[str]:
    """``["serde", "log 0.4.20", "rand 0.8.5 (registry+...)"]`` -> the crate names."""
    if not isinstance(value, list):
        return []
    return [entry.split()[0] for entry in value if isinstance(entry, str) and entry.strip()]
