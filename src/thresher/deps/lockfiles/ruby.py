"""``Gemfile.lock``: the gems Bundler resolved from a gem server.

Under ``GEM`` / ``specs:``, a line indented by four spaces is a locked gem
(``name (version[-platform])``) and six spaces are its own requirements. The
``DEPENDENCIES`` section lists what the Gemfile asks for, which makes those gems
direct. ``GIT`` and ``PATH`` sections are not RubyGems releases and are skipped. Groups
(development, test) are in the Gemfile only, so dev stays unknown.
"""

from __future__ import annotations

import re

from thresher.deps.lockfiles._base import check_size, dependency, physical_lines, unique
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

_SPEC = re.compile(r"^    (?P<name>[^\s(]+) \((?P<version>[^)\s]+)\)$")
_DIRECT = re.compile(r"^  (?P<name>[^\s(!]+)")


def parse(path: str, text: str, _read: object = None) -> list[Dependency]:
    check_size(path, text)
    locked: list[tuple[str, str, int]] = []
    direct: set[str] = set()
    section = ""
    in_specs = False
    for number, raw in enumerate(physical_lines(text), start=1):
        line = raw.rstrip()
        if not line:
            continue
        if not line[0].isspace():
            section, in_specs = line.strip(), False
            continue
        if section == "GEM":
            if line == "  specs:":
                in_specs = True
            elif in_specs and line.startswith("    ") and not line.startswith("     "):
                spec = _SPEC.match(line)
                if spec is None:
                    raise LockfileError(path, "a locked gem must read: name (version)", line=number)
                version = spec.group("version").split("-", 1)[0]  # drop the platform
                if not version[:1].isdigit():
                    raise LockfileError(path, f"{version!r} is not a gem version", line=number)
                locked.append((spec.group("name"), version, number))
        elif section == "DEPENDENCIES" and (found := _DIRECT.match(line)) is not None:
            direct.add(found.group("name"))
    deps = [
        dependency(
            Ecosystem.RUBYGEMS,
            name,
            version,
            path,
            number,
            Relation.DIRECT if name in direct else Relation.TRANSITIVE,
            None,
        )
        for name, version, number in locked
    ]
    # A gem locked for several platforms is one release: keep its first line.
    first: dict[tuple[str, str], Dependency] = {}
    for dep in deps:
        first.setdefault((dep.name, dep.version), dep)
    return unique(first.values())
