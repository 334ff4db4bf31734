"""``yarn.lock``: Yarn 1's own format and Yarn Berry's YAML (recognised by ``__metadata``).

An entry is keyed by every range that resolved to it (``lodash@^4.17.20, lodash@4.17.21``)
and records the resolved ``version`` and its own dependencies' ranges. Only registry
releases are dependencies: Berry's ``workspace:`` entries are the project itself,
``patch:`` entries duplicate the npm release they patch (listed on its own), and git,
file, link and portal sources have no release to match.

Neither format records direct or dev, but the ``package.json`` beside the lockfile
does: its ``dependencies`` and ``devDependencies`` ranges name entries, and the entries'
own ranges form the graph that tells dev-only packages apart. Without that manifest,
Berry's workspace entries still give the direct packages; Yarn 1 says nothing.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import unquote

from thresher.deps.lockfiles._base import (
    check_size,
    compose_yaml,
    dependency,
    dev_only,
    json_key_lines,
    load_json,
    physical_lines,
    unique,
    yaml_mapping,
    yaml_scalar,
)
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

Reader = Callable[[str], str | None]

_BERRY = re.compile(r"^__metadata:", re.M)
_NON_REGISTRY = ("file:", "link:", "portal:", "workspace:", "git", "http:", "https:", "patch:")
_FIELD = re.compile(r'^(?P<key>"(?:[^"\\]|\\.)*"|[^\s":]+):?\s+(?P<value>.+)$')
_DEP_BLOCKS = ("dependencies:", "optionalDependencies:")


@dataclass
class _Entry:
    line: int
    name: str
    version: str | None = None
    registry: bool = True
    workspace: bool = False
    patch: bool = False
    requires: list[str] = field(default_factory=list)  # "name@range" of its dependencies


def parse(path: str, text: str, read: Reader | None = None) -> list[Dependency]:
    check_size(path, text)
    berry = _BERRY.search(text) is not None
    entries, by_spec = _parse_berry(path, text) if berry else _parse_v1(path, text)
    manifest = _manifest(path, read)

    def lookup(name: str, rng: str) -> int | None:
        for spec in (f"{name}@{rng}", f"{name}@npm:{rng}"):
            if spec in by_spec:
                return by_spec[spec]
        return None

    # A patch entry stands for the npm release it patches (which carries the version).
    patched = {
        entry.line: target
        for entry in entries
        if entry.patch
        and entry.requires
        and (target := lookup(*_split(entry.requires[-1]))) is not None
    }

    def find(name: str, rng: str) -> int | None:
        found = lookup(name, rng)
        return patched.get(found, found) if found is not None else None

    edges = {
        entry.line: [i for spec in entry.requires if (i := find(*_split(spec))) is not None]
        for entry in entries
    }
    prod: list[int] = []
    dev: list[int] = []
    if manifest is not None:
        for (name, rng), is_dev in manifest:
            if (found := find(name, rng)) is not None:
                (dev if is_dev else prod).append(found)
    else:
        prod = [i for entry in entries if entry.workspace for i in edges[entry.line]]
    known = manifest is not None or any(entry.workspace for entry in entries)
    flags = dev_only(edges, prod, dev) if manifest is not None else {}
    direct = set(prod) | set(dev)
    deps = []
    for entry in entries:
        if not entry.registry or entry.version is None or not entry.version[:1].isdigit():
            continue
        relation = Relation.UNKNOWN
        if known:
            relation = Relation.DIRECT if entry.line in direct else Relation.TRANSITIVE
        deps.append(
            dependency(
                Ecosystem.NPM,
                entry.name,
                entry.version,
                path,
                entry.line,
                relation,
                flags.get(entry.line),
            )
        )
    return unique(deps)


def _manifest(path: str, read: Reader | None) -> list[tuple[tuple[str, str], bool]] | None:
    """((name, range), dev) from the package.json beside the lockfile, if there is one."""
    if read is None:
        return None
    where = posixpath.join(posixpath.dirname(path), "package.json")
    text = read(where)
    if text is None:
        return None
    data = load_json(where, text)
    if not isinstance(data, dict):
        raise LockfileError(where, "is not a JSON object", line=1)
    roots: list[tuple[tuple[str, str], bool]] = []
    for section, is_dev in (
        ("dependencies", False),
        ("optionalDependencies", False),
        ("devDependencies", True),
    ):
        listed = data.get(section, {})
        if not isinstance(listed, dict):
            lines = json_key_lines(text, lambda parent, _key: parent == ())
            line = lines.get((section,))
            raise LockfileError(where, f'"{section}" is not an object', line=line)
        roots += [((name, rng), is_dev) for name, rng in listed.items() if isinstance(rng, str)]
    return roots


def _split(spec: str) -> tuple[str, str]:
    """``@scope/name@^1.0`` -> (``@scope/name``, ``^1.0``)."""
    at = spec.find("@", 1)
    return (spec, "") if at < 0 else (spec[:at], spec[at + 1 :])


def _real(spec: str) -> tuple[str, str]:
    """Like ``_split``, but an alias (``x@npm:real@^1``) gives the real package."""
    name, rng = _split(spec)
    if rng.startswith("npm:") and "@" in rng[5:]:
        return _real(rng[4:])
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


def _parse_v1(path: str, text: str) -> tuple[list[_Entry], dict[str, int]]:
    entries: list[_Entry] = []
    by_spec: dict[str, int] = {}
    in_deps = False
    for number, raw in enumerate(physical_lines(text), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not raw[0].isspace():
            if entries and entries[-1].version is None:
                raise LockfileError(path, "entry has no version", line=entries[-1].line)
            if not stripped.endswith(":"):
                raise LockfileError(path, "an entry must end with ':'", line=number)
            specs = [_unquote(s) for s in stripped[:-1].split(",") if s.strip()]
            if not specs or not _real(specs[0])[0]:
                raise LockfileError(path, "an entry names no package", line=number)
            name, rng = _real(specs[0])
            entries.append(_Entry(number, name, registry=not rng.startswith(_NON_REGISTRY)))
            by_spec.update((spec, number) for spec in specs)
            in_deps = False
            continue
        if not entries:
            raise LockfileError(path, "an indented line outside any entry", line=number)
        indent = len(raw) - len(raw.lstrip(" "))
        if indent == 2:
            in_deps = stripped in _DEP_BLOCKS
            if stripped.startswith("version"):
                found = _FIELD.match(stripped)
                if found is None or _unquote(found.group("key")) != "version":
                    raise LockfileError(
                        path, 'a version line must read: version "1.2.3"', line=number
                    )
                entries[-1].version = _unquote(found.group("value"))
        elif indent == 4 and in_deps:
            found = _FIELD.match(stripped)
            if found is None:
                raise LockfileError(path, 'a dependency must read: name "range"', line=number)
            requirement = f"{_unquote(found.group('key'))}@{_unquote(found.group('value'))}"
            entries[-1].requires.append(requirement)
    if entries and entries[-1].version is None:
        raise LockfileError(path, "entry has no version", line=entries[-1].line)
    return entries, by_spec


def _parse_berry(path: str, text: str) -> tuple[list[_Entry], dict[str, int]]:
    root = compose_yaml(path, text)
    entries: list[_Entry] = []
    by_spec: dict[str, int] = {}
    for key, node, line in yaml_mapping(path, root, "the lockfile"):
        if key == "__metadata":
            continue
        fields = {k: v for k, v, _ in yaml_mapping(path, node, f'"{key}"')}
        version = yaml_scalar(fields.get("version"))
        resolution = yaml_scalar(fields.get("resolution"))
        if version is None or resolution is None:
            raise LockfileError(path, f'"{key}" has no version or resolution', line=line)
        name, source = _split(resolution)
        entry = _Entry(
            line,
            name,
            version,
            registry=bool(name) and source.startswith("npm:"),
            workspace=source.startswith("workspace:"),
            patch=source.startswith("patch:"),
        )
        for block in ("dependencies", "optionalDependencies"):
            for dep, rng, _ in yaml_mapping(path, fields.get(block), f'"{key}" {block}'):
                if (value := yaml_scalar(rng)) is not None:
                    entry.requires.append(f"{dep}@{value}")
        if entry.patch:  # "x@patch:x@npm%3A^1#..." patches the entry "x@npm:^1"
            base = _split(key.split(",")[0].strip())[1].removeprefix("patch:")
            entry.requires.append(unquote(base.split("#", 1)[0]))
        entries.append(entry)
        by_spec.update((spec.strip(), line) for spec in key.split(","))
    return entries, by_spec
