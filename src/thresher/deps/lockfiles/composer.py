"""``composer.lock``: ``packages`` (production) and ``packages-dev`` (require-dev only).

Versions drop a leading ``v`` (``v6.0.1``) as Packagist advisories write them; branch
checkouts (``dev-main``) have no release to match and are skipped. composer.lock does
not say which packages composer.json requires directly, so the relation stays unknown.
"""

from __future__ import annotations

from thresher.deps.lockfiles._base import dependency, json_key_lines, load_json, unique
from thresher.deps.lockfiles.manifests import Reader, composer_direct
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

_SECTIONS = (("packages", False), ("packages-dev", True))


def parse(path: str, text: str, read: Reader | None = None) -> list[Dependency]:
    data = load_json(path, text)
    if not isinstance(data, dict):
        raise LockfileError(path, "is not a JSON object", line=1)
    lines = json_key_lines(
        text,
        lambda parent, key: (
            (len(parent) == 2 and parent[0] in ("packages", "packages-dev"))
            or (parent == () and key in ("packages", "packages-dev"))
        ),
    )
    direct = composer_direct(path, read)
    deps = []
    for section, dev in _SECTIONS:
        entries = data.get(section) or []
        if not isinstance(entries, list):
            raise LockfileError(path, f'"{section}" is not a list', line=lines.get((section,)))
        for index, entry in enumerate(entries):
            line = lines.get((section, index, "name")) or lines.get((section,), 1)
            if not isinstance(entry, dict):
                raise LockfileError(path, f"{section}[{index}] is not an object", line=line)
            name, version = entry.get("name"), entry.get("version")
            if not isinstance(name, str) or not isinstance(version, str) or "/" not in name:
                raise LockfileError(
                    path, f"{section}[{index}] needs a vendor/name and a version", line=line
                )
            version = version.removeprefix("v").removeprefix("V")
            if not version[:1].isdigit():
                continue  # dev-main and other branch checkouts
            deps.append(
                dependency(
                    Ecosystem.PACKAGIST,
                    name.lower(),
                    version,
                    path,
                    line,
                    _relation(name, direct),
                    dev,
                )
            )
    return unique(deps)


def _relation(name: str, direct: set[str] | None) -> Relation:
    if direct is None:
        return Relation.UNKNOWN
    return Relation.DIRECT if name.lower() in direct else Relation.TRANSITIVE
