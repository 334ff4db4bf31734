"""npm's ``package-lock.json`` and ``npm-shrinkwrap.json`` (lockfile versions 1 to 3).

Versions 2 and 3 list every installed folder under ``packages``, keyed by its path
(``node_modules/a/node_modules/b``); the root entry ``""`` and each workspace entry
carry their package.json dependency lists, so a package installed right under an
importer and named by it is direct. Version 1 has only the nested ``dependencies``
tree: nested entries are transitive, top-level ones may be either (npm hoists).
``dev: true`` marks dev-only packages; ``devOptional`` does not, since a production
install may still fetch the package as optional.
"""

from __future__ import annotations

from typing import Any

from thresher.deps.lockfiles._base import (
    MAX_DEPTH,
    JsonPath,
    dependency,
    json_key_lines,
    load_json,
    unique,
)
from thresher.deps.lockfiles.manifests import Reader, npm_direct
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

_MANIFEST_LISTS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")
_MODULES = "node_modules/"
_NOT_REGISTRY = ("git+", "git:", "github:", "file:", "link:")


def parse(path: str, text: str, read: Reader | None = None) -> list[Dependency]:
    data = load_json(path, text)
    if not isinstance(data, dict):
        raise LockfileError(path, "is not a JSON object", line=1)
    version = data.get("lockfileVersion", 1)
    if not isinstance(version, int) or version not in (1, 2, 3):
        raise LockfileError(
            path,
            f"lockfileVersion {version!r} is not one this version of thresher reads (1-3)",
            line=json_key_lines(text, lambda p, k: p == () and k == "lockfileVersion").get(
                ("lockfileVersion",)
            ),
        )
    packages = data.get("packages")
    if version >= 2 and isinstance(packages, dict):
        return _parse_packages(path, text, packages)
    return _parse_tree(path, text, data, npm_direct(path, read))


def _parse_packages(path: str, text: str, packages: dict[str, Any]) -> list[Dependency]:
    lines = json_key_lines(text, lambda parent, _key: parent == ("packages",))
    importers: dict[str, set[str]] = {}
    for key, entry in packages.items():
        if not isinstance(entry, dict):
            raise LockfileError(
                path, f'"{key}" is not an object', line=lines.get(("packages", key))
            )
        if _MODULES not in key and not entry.get("link"):
            importers[key] = {
                name for field in _MANIFEST_LISTS for name in _strings(entry.get(field))
            }

    def relation(direct: bool) -> Relation:
        if "" not in importers:  # no root entry (a hidden lockfile): nothing to judge by
            return Relation.UNKNOWN
        return Relation.DIRECT if direct else Relation.TRANSITIVE

    deps = []
    for key, entry in packages.items():
        line = lines.get(("packages", key), 1)
        folder, sep, installed = key.rpartition(_MODULES)
        if not sep or entry.get("link"):
            continue  # the root, a workspace, or a symlink to one
        name = entry.get("name", installed)
        version = entry.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            if version is None:
                continue  # not installed from a registry (npm records no version)
            raise LockfileError(path, f'"{key}": name or version is not a string', line=line)
        resolved = entry.get("resolved")
        if not _is_release(version) or (
            isinstance(resolved, str) and resolved.startswith(_NOT_REGISTRY)
        ):
            continue  # a git, file or tarball URL: no registry release to match
        importer = folder.removesuffix("/")
        direct = importer in importers and installed in importers[importer]
        # A hoisted package sits under the root but may be named by a workspace.
        if importer == "" and not direct:
            direct = any(installed in names for names in importers.values())
        deps.append(
            dependency(
                Ecosystem.NPM,
                name,
                version,
                path,
                line,
                relation(direct),
                entry.get("dev") is True,
            )
        )
    return unique(deps)


def _parse_tree(
    path: str, text: str, data: dict[str, Any], direct: set[str] | None
) -> list[Dependency]:
    lines = json_key_lines(
        text, lambda parent, _key: len(parent) % 2 == 1 and parent[-1] == "dependencies"
    )
    deps: list[Dependency] = []
    stack: list[tuple[JsonPath, Any]] = [(("dependencies",), data.get("dependencies", {}))]
    while stack:
        where, tree = stack.pop()
        if len(where) > MAX_DEPTH:
            raise LockfileError(path, "dependencies nest deeper than a lockfile can")
        if not isinstance(tree, dict):
            raise LockfileError(path, '"dependencies" is not an object', line=lines.get(where))
        for name, entry in tree.items():
            line = lines.get((*where, name), 1)
            if not isinstance(entry, dict):
                raise LockfileError(path, f'"{name}" is not an object', line=line)
            version = entry.get("version")
            if not isinstance(version, str):
                raise LockfileError(path, f'"{name}" has no version', line=line)
            real = name
            if version.startswith("npm:"):  # an alias: "npm:real-name@1.2.3"
                real, _, version = version[4:].rpartition("@")
            if _is_release(version) and real:
                deps.append(
                    dependency(
                        Ecosystem.NPM,
                        real,
                        version,
                        path,
                        line,
                        _top_relation(name, direct) if len(where) == 1 else Relation.TRANSITIVE,
                        entry.get("dev") is True,
                    )
                )
            if "dependencies" in entry:
                stack.append(((*where, name, "dependencies"), entry["dependencies"]))
    deps.sort(key=lambda dep: dep.line)
    return unique(deps)


def _top_relation(name: str, direct: set[str] | None) -> Relation:
    """Version 1 hoists transitive packages to the top: only package.json can tell."""
    if direct is None:
        return Relation.UNKNOWN
    return Relation.DIRECT if name in direct else Relation.TRANSITIVE


def _strings(value: Any) -> list[str]:
    return [k for k in value if isinstance(k, str)] if isinstance(value, dict) else []


def _is_release(version: str) -> bool:
    return version[:1].isdigit()
