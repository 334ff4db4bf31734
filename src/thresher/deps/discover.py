"""Finding a project's lockfiles and reading them all, one bad file never stopping the rest.

Files are listed the way the secret scan lists them (``git.scope``): inside a
git work tree through git, so ``.gitignore`` is honoured, elsewhere by walking the
tree. Installed or vendored copies (``node_modules``, ``vendor``) are other people's
lockfiles, and ``.thresher`` is thresher's own output, so none of them is read.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from thresher.deps.lockfiles import MAX_BYTES, decode, kind_of, parse
from thresher.deps.model import Dependency, LockfileError
from thresher.errors import UsageError
from thresher.git.scope import list_files

SKIPPED_DIRS = frozenset({"node_modules", "vendor", ".git", ".thresher"})


class DepsPathError(UsageError):
    """A PATH given on the command line does not exist, is outside the root, or is a
    file thresher cannot read as a lockfile."""


def _relative(root: Path, path: Path) -> str:
    full = path if path.is_absolute() else root / path
    try:
        relative = os.path.relpath(
            os.path.normpath(full.absolute()), os.path.normpath(root.absolute())
        )
    except ValueError:  # another drive (Windows)
        relative = ".."
    relative = relative.replace(os.sep, "/")
    if relative == ".." or relative.startswith("../"):
        raise DepsPathError(f"{path} lies outside the scanned root {root}")
    return "" if relative == "." else relative


def find_lockfiles(root: Path, paths: tuple[Path, ...] | list[Path] = ()) -> list[Path]:
    """The lockfiles under ``root`` (or only under/at ``paths``), as root-relative paths,
    sorted. A file named explicitly is taken even if git ignores it."""
    wanted = [_relative(root, p) for p in paths]
    explicit: list[str] = []
    prefixes: list[str] = []
    for relative, given in zip(wanted, paths, strict=True):
        full = root / relative if relative else root
        if full.is_file():
            if kind_of(relative) is None:
                raise DepsPathError(
                    f"{given} is not a lockfile or manifest thresher reads",
                    hint="supported: requirements*.txt, poetry.lock, Pipfile.lock, uv.lock, "
                    "package-lock.json, npm-shrinkwrap.json, yarn.lock, pnpm-lock.yaml, go.mod, "
                    "Cargo.lock, Gemfile.lock, composer.lock",
                )
            explicit.append(relative)
        elif full.is_dir():
            prefixes.append(relative)
        else:
            raise DepsPathError(f"{given} does not exist")
    found = set(explicit)
    if prefixes or not paths:
        listed, _skipped = list_files(root)
        for item in listed:
            parts = item.path.split("/")
            if SKIPPED_DIRS.intersection(parts[:-1]) or kind_of(item.path) is None:
                continue
            if not paths or any(p == "" or item.path.startswith(p + "/") for p in prefixes):
                found.add(item.path)
    return [Path(p) for p in sorted(found)]


def read_text(root: Path, relative: str) -> str:
    """A root-relative file as bounded UTF-8; a symbolic link (which could lead out of
    the tree, or to a device) is refused, never followed."""
    full = root / relative
    try:
        if full.is_symlink() or not full.resolve().is_relative_to(root.resolve()):
            raise LockfileError(
                relative, "is reached through a symbolic link; lockfiles are read as regular files"
            )
        size = full.stat().st_size
        if size > MAX_BYTES:
            raise LockfileError(
                relative,
                f"{size:,} bytes is more than the {MAX_BYTES:,} a lockfile may have",
                hint="lockfiles this large are refused so a hostile file cannot stall the scan",
            )
        with full.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise LockfileError(relative, f"cannot be read: {exc.strerror or exc}") from None
    return decode(relative, data)


def read_all(
    root: Path, paths: tuple[Path, ...] | list[Path] = ()
) -> tuple[list[Dependency], list[LockfileError]]:
    """Every dependency of every lockfile found, and one error per file that could not
    be read. A dependency pinned by an included requirements file and by that file
    itself is listed once."""

    def read(relative: str) -> str | None:
        if not (root / relative).exists():
            return None
        return read_text(root, relative)

    deps: list[Dependency] = []
    errors: list[LockfileError] = []
    for path in find_lockfiles(root, paths):
        relative = posixpath.normpath(path.as_posix())
        try:
            deps.extend(parse(relative, read_text(root, relative), read=read))
        except LockfileError as exc:
            errors.append(exc)
    return list(dict.fromkeys(deps)), errors
