"""SemVer 2.0 ordering, for npm, crates.io and Go (https://semver.org/#spec-item-11).

One comparator serves the three ecosystems because they all order by SemVer 2.0:

- precedence is major, minor, patch, then the pre-release: a pre-release sorts before
  its release, and pre-release identifiers compare numerically when both are digits,
  lexically otherwise, numeric before alphanumeric, a shorter prefix first;
- build metadata (``+...``) is ignored for ordering (item 10), so ``1.0.0+build.1``
  equals ``1.0.0`` -- Go's ``+incompatible`` suffix included;
- Go's pseudo-versions are ordinary pre-releases by construction
  (https://go.dev/ref/mod#pseudo-versions): ``v0.0.0-20191109021931-daa7c04131f5`` is
  a pre-release of 0.0.0 and ``v1.2.4-0.20191109021931-daa7c04131f5`` sorts after
  1.2.3 and before 1.2.4, which plain SemVer ordering already gives.

A leading ``v`` is accepted (Go modules always carry it, OSV's Go ranges never do),
as is npm's ``=`` (``npm`` accepts ``=1.2.3`` as an exact version).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SEMVER = re.compile(
    r"^(?P<major>0|[1-9]\d*)\.(?P<minor>0|[1-9]\d*)\.(?P<patch>0|[1-9]\d*)"
    r"(?:-(?P<pre>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+(?P<build>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


@dataclass(frozen=True, order=False)
class SemVer:
    major: int
    minor: int
    patch: int
    prerelease: tuple[int | str, ...] = ()

    def key(self) -> tuple[int, int, int, int, tuple[tuple[int, int, str], ...]]:
        """A sort key in SemVer precedence: a release (no pre-release) sorts last."""
        pre = tuple(
            (0, part, "") if isinstance(part, int) else (1, 0, part) for part in self.prerelease
        )
        return (self.major, self.minor, self.patch, 0 if self.prerelease else 1, pre)


def parse_semver(text: str) -> SemVer | None:
    """The version, or ``None`` when ``text`` is not SemVer 2.0 (after a ``v``/``=``)."""
    candidate = text.strip()
    if candidate[:1] in ("v", "V", "="):
        candidate = candidate[1:]
    match = _SEMVER.match(candidate)
    if match is None:
        return None
    pre = match.group("pre")
    parts: tuple[int | str, ...] = ()
    if pre:
        parts = tuple(int(p) if p.isdigit() else p for p in pre.split("."))
    return SemVer(int(match["major"]), int(match["minor"]), int(match["patch"]), parts)
