"""``pnpm-lock.yaml``, lockfile versions 5, 6 and 9.

The package keys changed shape across versions: ``/name/1.2.3_peer@1`` (5),
``/name@1.2.3(peer@1)`` (6) and ``name@1.2.3`` (9, with peers only in ``snapshots``).
Importers (the root project, or each workspace under ``importers``) list their
``dependencies``, ``devDependencies`` and ``optionalDependencies``, which makes those
packages direct. Versions 5 and 6 mark packages ``dev: true`` (only dev), ``dev:
false`` (only production) or neither (both); version 9 dropped the flag, so dev-only
is worked out from the ``snapshots`` dependency graph.
"""

from __future__ import annotations

import yaml

from thresher.deps.lockfiles._base import (
    compose_yaml,
    dependency,
    dev_only,
    unique,
    yaml_mapping,
    yaml_scalar,
)
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

Key = tuple[str, str]
_PROD = ("dependencies", "optionalDependencies")
_DEV = ("devDependencies",)


def _bare(version: str) -> str:
    """A version without its peer suffix (``1.0.0_react@18`` or ``1.0.0(react@18)``)."""
    return version.split("(", 1)[0].split("_", 1)[0]


def split_key(key: str, major: int) -> Key | None:
    """(name, version) of a package key; None for non-registry packages."""
    if major < 6:
        if not key.startswith("/"):
            return None
        parts = key[1:].split("/")
        scoped = parts[0].startswith("@")
        if len(parts) != (3 if scoped else 2):
            return None
        name, version = "/".join(parts[:-1]), _bare(parts[-1])
    else:
        bare = key.removeprefix("/").split("(", 1)[0]
        at = bare.find("@", 1)
        if at < 0:
            return None
        name, version = bare[:at], bare[at + 1 :]
    return (name, version) if name and version[:1].isdigit() else None


def _target(name: str, version: str, major: int) -> Key | None:
    """The package a dependency entry points at: ``1.2.3(peer@1)`` is a version of
    ``name``; an alias names another package (``string-width@4.2.3`` in 9,
    ``/string-width@4.2.3`` in 6, ``/string-width/4.2.3`` in 5); ``link:`` is local."""
    if version[:1].isdigit():
        return name, _bare(version)
    if major >= 9:
        return split_key(version, major)
    return split_key(version if version.startswith("/") else f"/{version}", major)


def parse(path: str, text: str, _read: object = None) -> list[Dependency]:
    root = compose_yaml(path, text)
    top = {key: (node, line) for key, node, line in yaml_mapping(path, root, "the lockfile")}
    raw_version = yaml_scalar(top["lockfileVersion"][0]) if "lockfileVersion" in top else None
    line = top["lockfileVersion"][1] if "lockfileVersion" in top else 1
    try:
        major = int(float((raw_version or "").strip("'\"")))
    except (ValueError, OverflowError):
        raise LockfileError(
            path, f"lockfileVersion {raw_version!r} is not a number", line=line
        ) from None
    if major not in (5, 6, 9):
        raise LockfileError(
            path, f"lockfileVersion {raw_version} is not one thresher reads (5, 6, 9)", line=line
        )

    importers: list[list[tuple[str, yaml.Node, int]]] = []
    if "importers" in top:
        for name, node, _ in yaml_mapping(path, top["importers"][0], "importers"):
            importers.append(yaml_mapping(path, node, f'importer "{name}"'))
    else:
        importers.append([(k, node, line) for k, (node, line) in top.items()])
    prod_roots, dev_roots = _roots(path, importers, major)

    packages = yaml_mapping(path, top.get("packages", (None, 0))[0], "packages")
    flags: dict[Key, bool | None] = {}
    if major < 9:
        for key, node, _line in packages:
            found = split_key(key, major)
            if found is not None:
                fields = {k: v for k, v, _ in yaml_mapping(path, node, f'"{key}"')}
                flag = yaml_scalar(fields.get("dev"))
                flags[found] = flag == "true" if flag in ("true", "false") else False
    else:
        edges: dict[Key, list[Key]] = {}
        snapshots = top.get("snapshots", (None, 0))[0]
        for key, node, _ in yaml_mapping(path, snapshots, "snapshots"):
            found = split_key(key, major)
            if found is not None:
                fields = {k: v for k, v, _ in yaml_mapping(path, node, f'"{key}"')}
                edges.setdefault(found, []).extend(
                    target
                    for field in _PROD
                    for dep, child, _ in yaml_mapping(path, fields.get(field), field)
                    if (version := yaml_scalar(child)) is not None
                    and (target := _target(dep, version, major)) is not None
                )
        flags.update(dev_only(edges, prod_roots, dev_roots))

    direct = set(prod_roots) | set(dev_roots)
    deps = []
    for key, _node, line in packages:
        found = split_key(key, major)
        if found is None:
            continue  # a link:, file: or tarball package: no registry release
        name, version = found
        relation = Relation.DIRECT if found in direct else Relation.TRANSITIVE
        deps.append(
            dependency(Ecosystem.NPM, name, version, path, line, relation, flags.get(found))
        )
    return unique(deps)


def _roots(
    path: str, importers: list[list[tuple[str, yaml.Node, int]]], major: int
) -> tuple[list[Key], list[Key]]:
    prod: list[Key] = []
    dev: list[Key] = []
    for fields in importers:
        for field, node, _ in fields:
            if field not in _PROD and field not in _DEV:
                continue
            for name, spec, line in yaml_mapping(path, node, field):
                version = yaml_scalar(spec)
                if version is None:  # v6+: {specifier: ..., version: ...}
                    inner = {k: v for k, v, _ in yaml_mapping(path, spec, f'"{name}"')}
                    version = yaml_scalar(inner.get("version"))
                if version is None:
                    raise LockfileError(path, f'"{name}" has no version', line=line)
                target = _target(name, version, major)
                if target is not None:
                    (dev if field in _DEV else prod).append(target)
    return prod, dev
