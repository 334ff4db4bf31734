"""The evidence tree: what the tribunal may read about an alert, without a clone.

GitHub's alert names a file at a commit. Triage fetches that one file through the
contents (or blobs) API when the alert is decided, and writes it under a private
temporary directory, one directory per batch of one repository's alerts: the
workspace the agents' ``read_file`` and ``grep`` tools, and the scorer's line reader,
already know how to read. Text outside the tree (an issue comment, a pull-request
body) is written under its address (a ``TextLocation``'s ``path``), where the same
tools find it, so the lines around the value are evidence too. A batch holds one
version of each path; an alert that needs another goes to the next batch.

Everything here comes from the repository and from people who can comment on it:
hostile. A path is written only when it stays inside the tree (no absolute path, no
``..``, no ``.git``), files are created without following links, and the sizes are
bounded. What cannot be written is reported, never guessed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Self

from thresher.errors import ThresherError

MAX_EVIDENCE_BYTES = 1_048_576 * 4  # one file; larger ones are decided from the alert alone


class EvidenceError(ThresherError):
    """A fetched path or text cannot be placed in the evidence tree."""


class EvidenceTree:
    """A temporary directory of fetched files, removed when the run ends."""

    def __init__(self, parent: Path | None = None) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="thresher-evidence-", dir=parent))
        self._batches = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def batch(self, repo: str) -> EvidenceRoot:
        """A fresh directory for one batch of ``repo``'s alerts: the workspace root."""
        self._batches += 1
        _check_repo(repo)
        root = self.root / str(self._batches) / repo
        root.mkdir(parents=True)
        return EvidenceRoot(root)


class EvidenceRoot:
    """One batch's files, each path at one version: an alert that needs another version
    of a path already written goes to a later batch (``holds`` tells)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._versions: dict[str, str] = {}

    def holds(self, path: str, version: str) -> bool | None:
        """True: written at this version; False: at another one; None: not written."""
        known = self._versions.get(path)
        return None if known is None else known == version

    def add(self, path: str, version: str, content: bytes) -> None:
        relative = _safe_relative(path)
        target = self.root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.parent.resolve().is_relative_to(self.root.resolve()):
            raise EvidenceError(f"{path!r}: refused, it leads outside the evidence tree")
        # O_NOFOLLOW: a name fetched twice, or a link, is never written through.
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(content[:MAX_EVIDENCE_BYTES])
        self._versions[path] = version

    def lines(self, path: str) -> list[str]:
        return (self.root / _safe_relative(path)).read_text("utf-8", "replace").splitlines()


def _check_repo(repo: str) -> None:
    parts = PurePosixPath(repo).parts
    if len(parts) != 2 or any(p in {"..", ".", ".git"} or "\x00" in p for p in parts):
        raise EvidenceError(f"{repo!r} is not an owner/name repository")


def _safe_relative(path: str) -> str:
    """The path when every part is an ordinary name, else EvidenceError."""
    clean = PurePosixPath(path.replace("\\", "/"))
    if (
        not path
        or "\x00" in path
        or clean.is_absolute()
        or any(part in {"..", ".", ".git"} for part in clean.parts)
    ):
        raise EvidenceError(f"the path {path!r} cannot be placed in the evidence tree")
    return clean.as_posix()
