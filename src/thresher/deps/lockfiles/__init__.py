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

    ``read`` lets a requirements file follow its ``-r`` includes (root-relative
    paths; it returns None for a missing file); without it they are not followed."""
    kind = kind_of(path)
    if kind is None:
        raise LockfileError(path, "is not a lockfile or manifest thresher reads")
    parser: Callable[[str, str], list[Dependency]]
    match kind:
        case LockfileKind.REQUIREMENTS:
            return requirements.parse(path, text, read)  # its own errors name their line
        case LockfileKind.POETRY:
            parser = pylocks.parse_poetry
        case LockfileKind.PIPFILE:
            parser = pylocks.parse_pipfile_lock
        case LockfileKind.UV:
            parser = pylocks.parse_uv
        case LockfileKind.NPM:
            parser = npm.parse
        case LockfileKind.YARN:
            return _guarded(path, lambda: yarn.parse(path, text, read))
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
    return _guarded(path, lambda: parser(path, text))


def _guarded(path: str, run: Callable[[], list[Dependency]]) -> list[Dependency]:
    try:
        return run()
    except (TypeError, KeyError, AttributeError, IndexError, ValueError) as exc:
        # A structure no parser anticipated (a number where a table belongs, ...):
        # still this file's error, never a traceback that stops the other files.
        raise LockfileError(
            path, f"has an unexpected structure ({type(exc).__name__}: {exc})"
        ) from None


__all__ = ["MAX_BYTES", "LockfileKind", "Reader", "decode", "kind_of", "parse"]
