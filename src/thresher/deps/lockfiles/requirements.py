"""pip requirements files: the ``==`` pins, following ``-r`` includes.

Only an exact pin (``==1.2.3``, ``===1.2.3``) says which version is installed, so only
those lines are dependencies; ranges, editables (``-e``), URLs and local paths pin
nothing OSV can match and are passed over without error. Per-requirement options
(``--hash``) and environment markers never reach the version. Everything a requirements
file lists is something the project asked for, hence direct.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from thresher.deps.lockfiles._base import check_size, dependency, physical_lines
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

# Reads a root-relative posix path; None when the file does not exist.
Reader = Callable[[str], str | None]

MAX_INCLUDE_DEPTH = 20
_COMMENT = re.compile(r"(^|\s+)#.*$")
_INCLUDE = re.compile(r"^(?:-r|--requirement)(?:\s*=\s*|\s+|(?=[^\s-]))(?P<target>\S+)\s*$")
_PER_REQUIREMENT = re.compile(
    r"\s--(?:hash|global-option|install-option|config-settings)(?:=|\s+)\S+"
)
# Lines naming an archive, a URL or a path rather than a project.
_NOT_A_NAME = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git\+|hg\+|svn\+|bzr\+|\.|/|~)", re.I)


def logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first physical line, content) after joining ``\\`` continuations and dropping
    comments, as pip reads them."""
    start: int | None = None
    parts: list[str] = []
    for number, raw in enumerate(physical_lines(text), start=1):
        if start is None:
            start = number
        if raw.endswith("\\"):
            parts.append(raw[:-1])
            continue
        parts.append(raw)
        line = _COMMENT.sub("", "".join(parts)).strip()
        if line:
            yield start, line
        start, parts = None, []
    if parts and start is not None:
        line = _COMMENT.sub("", "".join(parts)).strip()
        if line:
            yield start, line


def parse(path: str, text: str, read: Reader | None = None) -> list[Dependency]:
    """The pins of ``path`` and, when ``read`` is given, of the files it includes.

    Without ``read`` an include is not followed (the caller lists that file itself)."""
    deps: list[Dependency] = []
    _parse(path, text, read, deps, seen={path}, depth=0)
    return deps


def _parse(
    path: str,
    text: str,
    read: Reader | None,
    deps: list[Dependency],
    seen: set[str],
    depth: int,
) -> None:
    check_size(path, text)
    for number, line in logical_lines(text):
        if line.startswith("-"):
            include = _INCLUDE.match(line)
            if include is not None and read is not None:
                _include(path, number, include.group("target"), read, deps, seen, depth)
            continue  # other options (-c, -e, -i, --hash-only lines, ...) pin nothing
        found = _pin(path, number, line)
        if found is not None:
            name, version = found
            deps.append(
                dependency(Ecosystem.PYPI, name, version, path, number, Relation.DIRECT, None)
            )


def _include(
    path: str,
    number: int,
    target: str,
    read: Reader,
    deps: list[Dependency],
    seen: set[str],
    depth: int,
) -> None:
    if _NOT_A_NAME.match(target) and not target.startswith("."):
        raise LockfileError(
            path, f"-r {target}: only files inside the project are read", line=number
        )
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    if joined.startswith("../") or joined == ".." or posixpath.isabs(joined):
        raise LockfileError(
            path, f"-r {target}: the included file lies outside the scanned tree", line=number
        )
    if joined in seen:
        return  # a cycle, or a file already included: its pins are already recorded
    if depth >= MAX_INCLUDE_DEPTH:
        raise LockfileError(path, f"-r {target}: includes nest too deep", line=number)
    seen.add(joined)
    try:
        included = read(joined)
    except LockfileError as exc:  # too large, undecodable, behind a symlink
        raise LockfileError(path, f"-r {target}: {exc.message}", line=number) from None
    if included is None:
        raise LockfileError(path, f"-r {target}: no such file ({joined})", line=number)
    _parse(joined, included, read, deps, seen, depth + 1)


def _pin(path: str, number: int, line: str) -> tuple[str, str] | None:
    """(normalised name, version) of an exact pin; None for lines that pin nothing."""
    first = line.split(maxsplit=1)[0]
    if _NOT_A_NAME.match(line) or (("/" in first or "\\" in first) and "@" not in first):
        return None  # a URL, an archive or a local path: pip installs it, nothing pins it
    spec = _PER_REQUIREMENT.sub("", " " + line).strip()
    if spec.startswith("-"):
        return None
    try:
        requirement = Requirement(spec)
    except InvalidRequirement as exc:
        reason = str(exc).splitlines()[0]
        raise LockfileError(path, f"is not a requirement: {reason}", line=number) from None
    except RecursionError:  # packaging's marker parser recurses per parenthesis
        raise LockfileError(
            path, "environment markers: nests deeper than a requirement can", line=number
        ) from None
    if requirement.url is not None:
        return None
    specifiers = list(requirement.specifier)
    if len(specifiers) != 1:
        return None
    only = specifiers[0]
    if only.operator not in ("==", "===") or "*" in only.version:
        return None
    return canonicalize_name(requirement.name), only.version
