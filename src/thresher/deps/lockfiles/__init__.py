"""Lockfiles and manifests: every pinned dependency with the file and line pinning it.

``parse(path, text)`` picks the parser by file name (``kind_of``); each returns
``Dependency`` values or raises ``LockfileError`` naming the file and, when the
format allows, the line. One module per format family; they share ``_base``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from enum import StrEnum

from thresher.deps.lockfiles import (
    cargo,
    composer,
    golang,
    npm,
    pnpm,
    pylocks,
    requirements,
    ruby,
    yarn,
)
from thresher.deps.lockfiles._base import MAX_BYTES, decode
from thresher.deps.model import Dependency, LockfileError

Reader = requirements.Reader
# Every format's parser: (root-relative path, text, reader of files beside it).
Parser = Callable[[str, str, Reader | None], list[Dependency]]


class LockfileKind(StrEnum):
    REQUIREMENTS = "requirements.txt"
    POETRY = "poetry.lock"
    PIPFILE = "Pipfile.lock"
    UV = "uv.lock"
    NPM = "package-lock.json"
    YARN = "yarn.lock"
    PNPM = "pnpm-lock.yaml"
    GO_MOD = "go.mod"
    CARGO = "Cargo.lock"
    GEMFILE = "Gemfile.lock"
    COMPOSER = "composer.lock"


_EXACT = {
    "poetry.lock": LockfileKind.POETRY,
    "Pipfile.lock": LockfileKind.PIPFILE,
    "uv.lock": LockfileKind.UV,
    "package-lock.json": LockfileKind.NPM,
    "npm-shrinkwrap.json": LockfileKind.NPM,
    "yarn.lock": LockfileKind.YARN,
    "pnpm-lock.yaml": LockfileKind.PNPM,
    "go.mod": LockfileKind.GO_MOD,
    "Cargo.lock": LockfileKind.CARGO,
    "Gemfile.lock": LockfileKind.GEMFILE,
    "gems.locked": LockfileKind.GEMFILE,
    "composer.lock": LockfileKind.COMPOSER,
}
# requirements.txt, requirements-dev.txt, dev-requirements.txt, requirements/base.txt
_REQUIREMENTS = re.compile(r"(?:.*requirements[^/]*|requirements/[^/]+)\.txt", re.I)


def kind_of(path: str) -> LockfileKind | None:
    """The format a root-relative posix path holds, by its name; None if not a lockfile."""
    name = posixpath.basename(path)
    if name in _EXACT:
        return _EXACT[name]
    tail = "/".join(path.split("/")[-2:])
    if _REQUIREMENTS.fullmatch(name) or _REQUIREMENTS.fullmatch(tail):
        return LockfileKind.REQUIREMENTS
    return None


def parse(path: str, text: str, *, read: Reader | None = None) -> list[Dependency]:
    """The dependencies ``text`` (the content of ``path``) pins.

    ``read`` reads another root-relative file (None when it does not exist): a
    requirements file's ``-r`` includes, and the manifest beside a lockfile
    (package.json, composer.json, pyproject.toml, Pipfile) that says which packages
    are direct. Without it, includes are not followed and manifests not consulted."""
    kind = kind_of(path)
    if kind is None:
        raise LockfileError(path, "is not a lockfile or manifest thresher reads")
    parser: Parser
    match kind:
        case LockfileKind.REQUIREMENTS:
            parser = requirements.parse
        case LockfileKind.POETRY:
            parser = pylocks.parse_poetry
        case LockfileKind.PIPFILE:
            parser = pylocks.parse_pipfile_lock
        case LockfileKind.UV:
            parser = pylocks.parse_uv
        case LockfileKind.NPM:
            parser = npm.parse
        case LockfileKind.YARN:
            parser = yarn.parse
        case LockfileKind.PNPM:
            parser = pnpm.parse
        case LockfileKind.GO_MOD:
            parser = golang.parse
        case LockfileKind.CARGO:
            parser = cargo.parse
        case LockfileKind.GEMFILE:
            parser = ruby.parse
        case LockfileKind.COMPOSER:
            parser = composer.parse
    try:
        return parser(path, text, read)
    except LockfileError as exc:
        raise _scrubbed(exc) from None
    except (TypeError, KeyError, AttributeError, IndexError, ValueError, ArithmeticError) as exc:
        # A structure no parser anticipated (a number where a table belongs, ...):
        # still this file's error, never a traceback that stops the other files.
        raise LockfileError(path, f"has an unexpected structure ({type(exc).__name__})") from None


# Credentials a lockfile may carry in a URL (a private registry's user:token@, a
# ?token= query) never reach an error message, hence never a report.
_USERINFO = re.compile(r"(?i)([a-z][a-z0-9+.-]*://)[^/\s@\"']+@")
_QUERY = re.compile(r"\?[^\s\"'#]+")


def _scrubbed(exc: LockfileError) -> LockfileError:
    where = f"{exc.path}:{exc.line}" if exc.line is not None else exc.path
    message = exc.message.removeprefix(f"{where}: ")
    clean = _QUERY.sub("?…", _USERINFO.sub(r"\1…@", message))
    if clean == message:
        return exc
    return LockfileError(exc.path, clean, line=exc.line, hint=exc.hint)


__all__ = ["MAX_BYTES", "LockfileKind", "Reader", "decode", "kind_of", "parse"]
