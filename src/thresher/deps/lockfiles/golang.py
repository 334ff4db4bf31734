"""``go.mod``: the module requirements, with ``// indirect`` marking transitive ones.

Since Go 1.17 a module's go.mod lists its whole build list (minimal version
selection), so it is the lockfile. ``require`` lines give the versions. A ``replace``
directive swaps a module for another module version, or for a local directory, at
build time, so what is built is the replacement, and that is what is checked: a
project that pins a patched fork, or forces a fixed version, is not reported for the
version it replaced, and one that replaces a module with a vulnerable version is. A
replacement is reported at its ``replace`` line, the line to edit. A module replaced
by a local directory is the project's own code, read by the secret scan like the
rest of the tree, and not a registry package OSV knows (as npm's ``file:`` and
``link:`` packages). Replacements follow Go's rules: ``old vX => ...`` replaces that
version only and wins over ``old => ...``, which replaces every version; two
replacements of the same module and version are an error, as ``go`` says.

The version drops Go's ``v`` prefix as OSV's Go ranges write it; the purl keeps it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from thresher.deps.lockfiles._base import check_size, dependency, physical_lines, unique
from thresher.deps.model import Dependency, Ecosystem, LockfileError, Relation

_VERSION = re.compile(r"^v\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")
_MODULE = re.compile(r"^[^/\s]+(?:/[^/\s]+)*$")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`|\S+')
_LOCAL = ("./", "../", "/")  # a replacement that is a directory, as go tells them apart


@dataclass(frozen=True)
class _Require:
    module: str
    version: str  # with Go's "v"
    line: int
    indirect: bool


@dataclass(frozen=True)
class _Replace:
    module: str | None  # None: a local directory
    version: str | None  # with Go's "v"; None for a directory
    line: int


def _tokens(line: str) -> tuple[list[str], bool]:
    """The line's tokens without its comment, and whether the comment says indirect."""
    code, _, comment = line.partition("//")
    indirect = comment.strip().split(";")[0].strip() == "indirect"
    return [t.strip('"`') for t in _TOKEN.findall(code)], indirect


def parse(path: str, text: str, _read: object = None) -> list[Dependency]:
    check_size(path, text)
    requires: list[_Require] = []
    replaces: dict[tuple[str, str | None], _Replace] = {}
    block: tuple[str, int] | None = None  # (verb, line) of an open "verb (" block
    for number, raw in enumerate(physical_lines(text), start=1):
        tokens, indirect = _tokens(raw)
        if not tokens:
            continue
        if block is not None:
            if tokens == [")"]:
                block = None
            elif block[0] == "require":
                requires.append(_require(path, number, tokens, indirect))
            elif block[0] == "replace":
                _add_replace(path, number, tokens, replaces)
            continue
        verb = tokens[0]
        if len(tokens) == 2 and tokens[1] == "(":
            block = (verb, number)
        elif verb == "require":
            requires.append(_require(path, number, tokens[1:], indirect))
        elif verb == "replace":
            _add_replace(path, number, tokens[1:], replaces)
        elif tokens[-1] == "(" or ")" in tokens:
            raise LockfileError(path, f"unbalanced parenthesis after {verb!r}", line=number)
    if block is not None:
        raise LockfileError(path, f"the {block[0]} block is never closed", line=block[1])
    deps: list[Dependency] = []
    for required in requires:
        built = _built(required, replaces)
        if built is not None:
            deps.append(_dependency(path, built, required.indirect))
    return unique(deps)


def _built(required: _Require, replaces: dict[tuple[str, str | None], _Replace]) -> _Require | None:
    """The module version the build uses for a requirement; None for a local directory."""
    replace = replaces.get((required.module, required.version)) or replaces.get(
        (required.module, None)
    )
    if replace is None:
        return required
    if replace.module is None or replace.version is None:
        return None
    return _Require(replace.module, replace.version, replace.line, required.indirect)


def _dependency(path: str, module: _Require, indirect: bool) -> Dependency:
    return dependency(
        Ecosystem.GO,
        module.module,
        module.version[1:],
        path,
        module.line,
        Relation.TRANSITIVE if indirect else Relation.DIRECT,
        None,
        purl_version=module.version,
    )


def _require(path: str, number: int, tokens: list[str], indirect: bool) -> _Require:
    if len(tokens) != 2:
        raise LockfileError(path, "a requirement must read: module/path v1.2.3", line=number)
    module, version = tokens
    _check_module(path, number, module)
    _check_version(path, number, version)
    return _Require(module, version, number, indirect)


def _add_replace(
    path: str, number: int, tokens: list[str], replaces: dict[tuple[str, str | None], _Replace]
) -> None:
    """One ``old [version] => new [version]`` directive, or ``=> ./directory``."""
    if "=>" not in tokens:
        raise LockfileError(
            path, "a replacement must read: module [v1.2.3] => module v1.2.4 | ./dir", line=number
        )
    arrow = tokens.index("=>")
    old, new = tokens[:arrow], tokens[arrow + 1 :]
    if len(old) not in (1, 2) or len(new) not in (1, 2):
        raise LockfileError(
            path, "a replacement must read: module [v1.2.3] => module v1.2.4 | ./dir", line=number
        )
    _check_module(path, number, old[0])
    old_version = old[1] if len(old) == 2 else None
    if old_version is not None:
        _check_version(path, number, old_version)
    if len(new) == 1:
        if not new[0].startswith(_LOCAL):
            raise LockfileError(
                path,
                f"{new[0]!r} needs a version, or is a directory written ./{new[0]}",
                line=number,
            )
        replace = _Replace(None, None, number)
    else:
        _check_module(path, number, new[0])
        _check_version(path, number, new[1])
        replace = _Replace(new[0], new[1], number)
    key = (old[0], old_version)
    if key in replaces:
        shown = f"{old[0]} {old_version}" if old_version else old[0]
        raise LockfileError(
            path,
            f"{shown} is replaced twice (first at line {replaces[key].line}), which go refuses",
            line=number,
        )
    replaces[key] = replace


def _check_module(path: str, number: int, module: str) -> None:
    if not _MODULE.match(module):
        raise LockfileError(path, f"{module!r} is not a module path", line=number)


def _check_version(path: str, number: int, version: str) -> None:
    if not _VERSION.match(version):
        raise LockfileError(path, f"{version!r} is not a module version", line=number)
