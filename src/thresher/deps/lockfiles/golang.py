"""``go.mod``: the module requirements, with ``// indirect`` marking transitive ones.

Since Go 1.17 a module's go.mod lists its whole build list (minimal version
selection), so it is the lockfile. ``require`` lines give the versions; a ``replace``
directive can swap a module for another version or a local path at build time, and
is recorded as is: the required version is reported at its require line (OSV matches
what the module requires; a replacement is the project's own choice to review). The
version drops Go's ``v`` prefix as OSV's Go ranges write it; the purl keeps it.
"""

from __future__ import annotations

import re

from thresher.deps.lockfiles._base import check_size, dependency, physical_lines, unique
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

_VERSION = re.compile(r"^v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")
_MODULE = re.compile(r"^[^/\s]+(?:/[^/\s]+)*$")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|\S+')


def _tokens(line: str) -> tuple[list[str], bool]:
    """The line's tokens without its comment, and whether the comment says indirect."""
    code, _, comment = line.partition("//")
    indirect = comment.strip().split(";")[0].strip() == "indirect"
    return [t.strip('"`') for t in _TOKEN.findall(code)], indirect


def parse(path: str, text: str, _read: object = None) -> list[Dependency]:
    check_size(path, text)
    deps: list[Dependency] = []
    block: tuple[str, int] | None = None  # (verb, line) of an open "verb (" block
    for number, raw in enumerate(physical_lines(text), start=1):
        tokens, indirect = _tokens(raw)
        if not tokens:
            continue
        if block is not None:
            if tokens == [")"]:
                block = None
                continue
            if block[0] == "require":
                deps.append(_require(path, number, tokens, indirect))
            continue
        verb = tokens[0]
        if len(tokens) == 2 and tokens[1] == "(":
            block = (verb, number)
        elif verb == "require":
            deps.append(_require(path, number, tokens[1:], indirect))
        elif tokens[-1] == "(" or ")" in tokens:
            raise LockfileError(path, f"unbalanced parenthesis after {verb!r}", line=number)
    if block is not None:
        raise LockfileError(path, f"the {block[0]} block is never closed", line=block[1])
    return unique(deps)


def _require(path: str, number: int, tokens: list[str], indirect: bool) -> Dependency:
    if len(tokens) != 2:
        raise LockfileError(path, "a requirement must read: module/path v1.2.3", line=number)
    module, version = tokens
    if not _MODULE.match(module):
        raise LockfileError(path, f"{module!r} is not a module path", line=number)
    if not _VERSION.match(version):
        raise LockfileError(path, f"{version!r} is not a module version", line=number)
    return dependency(
        Ecosystem.GO,
        module,
        version[1:],
        path,
        number,
        Relation.TRANSITIVE if indirect else Relation.DIRECT,
        None,
        purl_version=version,
    )
