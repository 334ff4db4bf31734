"""The directories of a tree, each resolved once a run.

``Path.resolve`` (``os.path.realpath``) checks every component of a path with a system
call, in Python, so resolving each file of a tree whole checks each directory's whole
chain again for every file in it. Both readers of a tree's files after a scan -- the
scorer's line reader and the agents' workspace -- resolve a file's directory here
instead: from its parent's resolution and one ``lstat`` of its own name.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

# Directories deeper than this are resolved whole (``ResolvedDirectories.of`` recurses).
_DEEPEST = 64


class ResolvedDirectories:
    """Directories under ``root`` (resolved already), as ``os.path.realpath`` resolves
    them: a link, an absolute path, a name that is empty, ``.`` or ``..``, or a path
    deeper than ``_DEEPEST`` is resolved whole; any other name is its parent's
    resolution joined with it. Strings, not paths: a ``Path`` a file would cost what is
    saved here. ``whole`` resolves a path whole: ``os.path.realpath``, or a caller's
    own that refuses a looping link as ``Path.resolve`` does (``RuntimeError``)."""

    def __init__(self, root: str, whole: Callable[[str], str] = os.path.realpath) -> None:
        self._root = root
        self._whole = whole
        self._resolved: dict[str, str] = {}

    def of(self, head: str) -> str:
        """Directory ``head`` (relative to the root, "/"-separated) resolved."""
        where = self._resolved.get(head)
        if where is not None:
            return where
        parent, _, name = head.rpartition("/")
        if (
            not head
            or head.startswith("/")
            or name in ("", ".", "..")
            or head.count("/") > _DEEPEST
            or is_link(candidate := os.path.join(self.of(parent), name))  # noqa: PTH118
        ):
            where = self._whole(os.path.join(self._root, head))  # noqa: PTH118
        else:
            where = candidate  # a directory, or nothing: ``realpath`` keeps the name
        self._resolved[head] = where
        return where


def is_link(path: str) -> bool:
    """Whether ``path`` is a symbolic link; a name that cannot be read is none, as
    ``realpath`` takes it."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False
